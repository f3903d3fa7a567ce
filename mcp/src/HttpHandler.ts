import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { makeMemoryMcpServer, type RunMemory } from "./MemoryMcpServer.js"

/**
 * Answers one Streamable HTTP request (a web `Request`, a web `Response`) for the account `run`
 * acts for. Stateless: each request gets its own server and transport, and its answer as one JSON
 * body, so nothing is kept between requests and any process serving the database can answer.
 */
export const handleMcpRequest = async (request: Request, run: RunMemory): Promise<Response> => {
  const server = makeMemoryMcpServer(run)
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request)
  } finally {
    await server.close()
  }
}
