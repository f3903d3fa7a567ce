/**
 * @umo/mcp: UMO for AI agents over the Model Context Protocol. `serveStdio` serves an account's
 * memories in-process over stdio (`npx umo mcp`); `handleMcpRequest` answers one Streamable HTTP
 * request (the reference server mounts it at `/mcp`); `memoryTools` are the tools both offer.
 * @module
 */
export * from "./HttpHandler.js"
export * from "./MemoryMcpServer.js"
export * from "./StdioServer.js"
export { type MemoryTool, memoryTools } from "./Tools.js"
export { Verdict, verifyMemory } from "./Verdict.js"
