import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { MemoryAccount, type OpenMemoryOptions, openMemoryRuntime } from "@umo/memory"
import { Effect } from "effect"
import { makeMemoryMcpServer } from "./MemoryMcpServer.js"

/**
 * Serves one account's memories over stdio (`npx umo mcp`), the way desktop hosts start an MCP
 * server: the memory service runs in this process on a data directory (or a PostgreSQL server),
 * with no HTTP server and no key. Resolves once the host has closed the connection and the service
 * has closed its database.
 *
 * stdout carries the protocol alone: anything else written there would break it, so this process's
 * console output goes to stderr from here on.
 */
export const serveStdio = async (
  options: OpenMemoryOptions,
  streams: { readonly stdin?: NodeJS.ReadableStream; readonly stdout?: NodeJS.WritableStream } = {}
): Promise<void> => {
  console.log = console.error
  console.info = console.error
  console.debug = console.error
  const { runtime, account } = await openMemoryRuntime(options)
  const server = makeMemoryMcpServer((effect) =>
    runtime.runPromiseExit(Effect.provideService(effect, MemoryAccount, account))
  )
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve
  })
  const stdin = streams.stdin ?? process.stdin
  await server.connect(new StdioServerTransport(stdin as never, streams.stdout as never))
  // The host ends the session by closing our stdin (or by a signal): close the database cleanly.
  const close = () => void server.close()
  stdin.once("end", close)
  process.once("SIGINT", close).once("SIGTERM", close)
  await closed
  process.off("SIGINT", close).off("SIGTERM", close)
  await runtime.dispose()
}
