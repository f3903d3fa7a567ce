import { findEntities } from "@umo/plugins"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const today = "2026-03-10T09:00:00.000Z"
const pairs = (text: string) => findEntities(text, today).map((e) => [e.text, e.type])

describe("findEntities", () => {
  it("finds people, places, organizations, dates and money with their types", () => {
    expect(pairs("Barack Obama visited Berlin on 19 June 2013.")).toEqual([
      ["Barack Obama", "PERSON"],
      ["Berlin", "LOCATION"],
      ["19 June 2013", "DATE"]
    ])
    expect(pairs("Microsoft acquired GitHub for $7.5 billion in 2018.")).toEqual([
      ["Microsoft", "ORGANIZATION"],
      ["GitHub", "ORGANIZATION"],
      ["$7.5 billion", "MONEY"],
      ["2018", "DATE"]
    ])
  })

  it("finds e-mail addresses, URLs, percentages and clock times", () => {
    expect(
      pairs("Write to anna@example.com or see https://example.org/docs at 10:30 am; 40% agreed.")
    ).toEqual(
      expect.arrayContaining([
        ["anna@example.com", "EMAIL"],
        ["https://example.org/docs", "URL"],
        ["10:30 am", "TIME"],
        ["40%", "PERCENT"]
      ])
    )
  })

  it("drops honorifics and keeps name particles", () => {
    expect(pairs("Dr. Alice Wong met Leonardo da Vinci.")).toEqual([
      ["Alice Wong", "PERSON"],
      ["Leonardo da Vinci", "PERSON"]
    ])
  })

  it("keeps one entry per entity, at its first mention", () => {
    const text = "Paris is lovely. I miss Paris."
    expect(findEntities(text, today)).toEqual([{ text: "Paris", type: "LOCATION", start: 0, end: 5 }])
  })

  it("never cuts a surrogate pair when an emoji follows a name", () => {
    for (const text of ["Note \uFFFD\uFFFDWarsaw 🙂", "Met Marie Curie 🙂🙂 in Paris 𝄞", "Tokyo 🙂"]) {
      for (const e of findEntities(text, today)) expect(e.text.isWellFormed(), JSON.stringify(e)).toBe(true)
    }
    expect(findEntities("Note \uFFFD\uFFFDWarsaw 🙂", today)).toEqual([
      { text: "Warsaw", type: "LOCATION", start: 7, end: 13 }
    ])
  })

  it("gives offsets that point at the entity's text, without overlaps (property)", () => {
    const word = fc.constantFrom(
      "Marie",
      "Curie",
      "visited",
      "Berlin",
      "on",
      "Monday",
      "with",
      "$40",
      "and",
      "Google",
      "in",
      "March 2020",
      "the",
      "cat",
      "bob@example.com",
      "https://x.org",
      "yesterday",
      "Tokyo",
      "at",
      "9:15",
      "pm",
      "Apple",
      ".",
      ",",
      // Characters whose UTF-16 length differs from what the engines count.
      "🙂",
      "\uFFFD\uFFFDWarsaw",
      "𝄞Warsaw"
    )
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 30 }), (words) => {
        const text = words.join(" ")
        const found = findEntities(text, today)
        for (const [i, e] of found.entries()) {
          expect(text.slice(e.start, e.end)).toBe(e.text)
          expect(e.text.isWellFormed(), e.text).toBe(true)
          const next = found[i + 1]
          if (next) expect(next.start).toBeGreaterThanOrEqual(e.end)
        }
      }),
      { numRuns: 150 }
    )
  })

  it("reads a long text window by window, with offsets into the whole text", () => {
    const pages = Array.from({ length: 30 }, (_, i) =>
      `Page ${i}. Maya Lopez flew from Lisbon to Oslo on ${(i % 27) + 1} May 2024 with Tom Becker. `.repeat(
        20
      )
    ).join("\n\n")
    expect(pages.length).toBeGreaterThan(40_000)
    const found = findEntities(pages, today)
    for (const e of found) expect(pages.slice(e.start, e.end)).toBe(e.text)
    expect(found.map((e) => [e.text, e.type])).toEqual(
      expect.arrayContaining([
        ["Maya Lopez", "PERSON"],
        ["Lisbon", "LOCATION"],
        ["Oslo", "LOCATION"],
        ["27 May 2024", "DATE"]
      ])
    )
    // Duplicates keep their first mention across windows too.
    expect(new Set(found.map((e) => `${e.type}:${e.text.toLowerCase()}`)).size).toBe(found.length)
  })
})
