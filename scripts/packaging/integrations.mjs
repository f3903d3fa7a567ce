// Run by scripts/check-packaging.mjs in the throwaway app, against `npx umo serve`: the JS
// integrations as installed from their tarballs (UMO_BASE_URL, UMO_API_KEY).
import { UMOClient } from "@umo/client"
import { UMOChatMessageHistory, UMORetriever } from "@umo/langchain"
import { memoriesForPrompt, umoTools } from "@umo/vercel-ai"

const umo = new UMOClient()
const scope = { userId: "packaging-js" }
const captured = await umo.capture("Dorothy Vaughan taught herself FORTRAN.", scope)
const [document] = await new UMORetriever({ memory: umo, scope }).invoke("Who taught herself FORTRAN?")
const found = await umoTools(umo, scope).searchMemories.execute(
  { query: "FORTRAN" },
  { toolCallId: "packaging", messages: [] }
)
const prompt = await memoriesForPrompt(umo, "FORTRAN", scope)
const history = new UMOChatMessageHistory({ memory: umo, scope: { ...scope, sessionId: "packaging" } })
await history.addUserMessage("hello")
const turns = await history.getMessages()
const seen = {
  retriever: document?.metadata.umo_id === captured.umoId,
  tool: found.memories[0]?.id === captured.umoId,
  prompt: prompt.includes(captured.umoId),
  history: turns.length === 1 && turns[0].content === "hello"
}
if (!Object.values(seen).every(Boolean))
  throw new Error(`integrations: ${JSON.stringify({ seen, found, prompt })}`)
console.log(JSON.stringify(seen))
