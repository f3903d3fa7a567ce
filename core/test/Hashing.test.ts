import { contentHash, type SemanticFields, semanticHash, sha256Hex } from "@umo/core"
import { describe, expect, it } from "vitest"

const fields: SemanticFields = {
  summary: "Ada wrote the first program.",
  entities: [{ text: "Ada", type: "PERSON", start: 0, end: 3 }],
  svo_triples: [{ subject: "Ada", verb: "wrote", object: "the first program" }],
  topics: [{ name: "program", score: 1 }],
  tone: { label: "neutral", score: 0 },
  language: "eng",
  quality_score: 0.5,
  extensions: {},
  pipeline: [{ name: "capture", version: "1.0.0", stage: "capture" }]
}

describe("hashing", () => {
  it("sha256Hex matches the standard test vectors", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  it("content hash is the SHA-256 of the UTF-8 text", () => {
    expect(contentHash("é")).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9])))
  })

  it("semantic hash ignores key order and changes with any extracted field", () => {
    const reordered = Object.fromEntries(Object.entries(fields).reverse()) as unknown as SemanticFields
    expect(semanticHash(reordered)).toBe(semanticHash(fields))
    expect(semanticHash({ ...fields, summary: "Ada wrote a program." })).not.toBe(semanticHash(fields))
    expect(
      semanticHash({ ...fields, pipeline: [{ name: "capture", version: "1.0.1", stage: "capture" }] })
    ).not.toBe(semanticHash(fields))
  })
})
