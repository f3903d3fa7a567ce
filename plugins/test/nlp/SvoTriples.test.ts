import { findEntities, findTriples } from "@umo/plugins"
import { describe, expect, it } from "vitest"

const triples = (text: string) => findTriples(text, findEntities(text, "2026-01-01T00:00:00.000Z"))

describe("findTriples", () => {
  it("reads one triple per clause, sharing the subject across a coordinated verb", () => {
    expect(triples("Marie Curie was born in Warsaw and worked in Paris.")).toEqual([
      { subject: "Marie Curie", verb: "was born in", object: "Warsaw" },
      { subject: "Marie Curie", verb: "worked in", object: "Paris" }
    ])
  })

  it("keeps negation in the verb and drops determiners", () => {
    expect(triples("The company has not released the new phone yet.")).toEqual([
      { subject: "company", verb: "has not released", object: "new phone" }
    ])
  })

  it("resolves he/she to the last person named before", () => {
    expect(triples("Apple hired Tim Cook in 1998. He became CEO in 2011.")).toEqual([
      { subject: "Apple", verb: "hired", object: "Tim Cook" },
      { subject: "Tim Cook", verb: "became", object: "CEO" }
    ])
  })

  it("keeps coordinated names together", () => {
    expect(triples("Jane Austen wrote Pride and Prejudice in 1813.")).toEqual([
      { subject: "Jane Austen", verb: "wrote", object: "Pride and Prejudice" }
    ])
  })

  it("finds nothing without a verb and an object", () => {
    expect(triples("ok lol")).toEqual([])
    expect(triples("She laughed.")).toEqual([])
  })
})
