/**
 * @umo/langchain: UMO for LangChain.js. A retriever of the scope's memories as `Document`s, memory
 * tools a model can call inside the caller's scope, and a chat message history whose turns are
 * memories of the conversation's scope; over `@umo/client` (a server) or `openMemory` from
 * `@umo/memory` (in-process), both `UMOMemory`.
 *
 * ```ts
 * import { UMOClient } from "@umo/client"
 * import { UMOChatMessageHistory, UMORetriever, umoTools } from "@umo/langchain"
 *
 * const umo = new UMOClient() // UMO_API_KEY, UMO_BASE_URL
 * const retriever = new UMORetriever({ memory: umo, scope: { userId: "ana" } })
 * const docs = await retriever.invoke("Where does Ana live?")
 * const model = chatModel.bindTools(umoTools(umo, { userId: "ana" }))
 * const history = new UMOChatMessageHistory({ memory: umo, scope: { userId: "ana", sessionId: "s1" } })
 * ```
 * @module
 */
export { UMOChatMessageHistory, type UMOChatMessageHistoryInput } from "./UMOChatMessageHistory.js"
export { type UMODocumentMetadata, UMORetriever, type UMORetrieverInput } from "./UMORetriever.js"
export { umoTools } from "./umoTools.js"
