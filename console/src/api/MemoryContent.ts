/**
 * A memory's text: `content_text` of `GET /v1/memories/{id}`, used only when its SHA-256 is the
 * memory's `content_hash` — the browser checks it, it does not take it on trust.
 * @module
 */
import type { Memory } from "@umo/client"

/** Lowercase hex SHA-256 of the UTF-8 text, as the service computes `content_hash`. */
export const sha256Hex = async (text: string): Promise<string> =>
  Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))), (byte) =>
    byte.toString(16).padStart(2, "0")
  ).join("")

/** The memory's content, checked against its content hash; undefined when it does not match. */
export const contentOf = async (memory: Memory): Promise<string | undefined> =>
  globalThis.crypto?.subtle !== undefined && (await sha256Hex(memory.contentText)) === memory.contentHash
    ? memory.contentText
    : undefined
