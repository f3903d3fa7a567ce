import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"

export interface ProviderStub {
  /** Its base URL, for `OPENAI_BASE_URL` and `ANTHROPIC_BASE_URL` alike. */
  readonly url: string
  /** Every request it was sent. */
  readonly seen: Array<{ path: string; headers: IncomingMessage["headers"]; body: Record<string, unknown> }>
  readonly close: () => Promise<void>
}

/**
 * A local stand-in for the cloud providers' HTTP APIs, speaking their wire formats: OpenAI chat
 * completions (`Authorization: Bearer`) and Anthropic messages (`x-api-key`, `anthropic-version`),
 * refusing keys `accepts` refuses with each provider's own 401 body. The providers cannot be
 * reached from here; this is the only stub the tests use.
 */
export const startProviderStub = async (accepts: (key: string) => boolean): Promise<ProviderStub> => {
  const seen: ProviderStub["seen"] = []
  const stub = createServer((request, response) => {
    let raw = ""
    request.on("data", (chunk) => (raw += chunk))
    request.on("end", () => {
      let body: Record<string, unknown> = {}
      try {
        body = JSON.parse(raw || "{}") as Record<string, unknown>
      } catch {}
      seen.push({ path: request.url ?? "", headers: request.headers, body })
      const reply = (status: number, json: unknown) => {
        response.writeHead(status, { "content-type": "application/json" })
        response.end(JSON.stringify(json))
      }
      if (request.url === "/v1/chat/completions") {
        if (!accepts(String(request.headers.authorization ?? "").replace(/^Bearer /, ""))) {
          return reply(401, {
            error: { message: "Incorrect API key provided", type: "invalid_request_error" }
          })
        }
        return reply(200, {
          id: "chatcmpl-1",
          object: "chat.completion",
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: "Marie Curie was born in Warsaw [1], not Vienna [7]." },
              finish_reason: "stop"
            }
          ]
        })
      }
      if (request.url === "/v1/messages") {
        if (!accepts(String(request.headers["x-api-key"] ?? "")) || !request.headers["anthropic-version"]) {
          return reply(401, {
            type: "error",
            error: { type: "authentication_error", message: "invalid x-api-key" }
          })
        }
        return reply(200, {
          id: "msg_1",
          type: "message",
          role: "assistant",
          content: [{ type: "text", text: "She was born in Warsaw [1]." }],
          stop_reason: "end_turn"
        })
      }
      reply(404, { error: { message: "no such route" } })
    })
  })
  await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => stub.close(() => resolve()))
  }
}
