/**
 * @umo/vercel-ai: UMO for the Vercel AI SDK. Memory tools a model can call, each inside the
 * caller's scope, and the user's relevant memories for a system prompt; over `@umo/client`
 * (a server) or `openMemory` from `@umo/memory` (in-process), both `UMOMemory`.
 *
 * ```ts
 * import { UMOClient } from "@umo/client"
 * import { memoriesForPrompt, umoTools } from "@umo/vercel-ai"
 * import { generateText, stepCountIs } from "ai"
 *
 * const umo = new UMOClient() // UMO_API_KEY, UMO_BASE_URL
 * const scope = { userId: "ana" }
 * const { text } = await generateText({
 *   model,
 *   system: await memoriesForPrompt(umo, prompt, scope),
 *   tools: umoTools(umo, scope),
 *   stopWhen: stepCountIs(5),
 *   prompt
 * })
 * ```
 * @module
 */
export { type MemoriesForPromptOptions, memoriesForPrompt } from "./memoriesForPrompt.js"
export {
  type AnsweredFromMemories,
  type Forgotten,
  type FoundMemories,
  type Remembered,
  type UMOTools,
  umoTools
} from "./umoTools.js"
