import { describe, expect, it } from "vitest"
import { placeOfAskedKind } from "../../src/answer/AskedPlace.js"

describe("placeOfAskedKind", () => {
  const kilimani =
    "Nobody warned me Nairobi gets THIS cold in July 🥶 our new flat in Kilimani has zero heating"

  it("answers a question for a city with the city the memory names, when the value is finer", () => {
    expect(placeOfAskedKind("Which city does Amara live in now?", kilimani, "Kilimani")).toBe("Nairobi")
    expect(placeOfAskedKind("What town is she in these days?", kilimani, "Kilimani")).toBe("Nairobi")
  })

  it("keeps a value that is already of the kind asked, and any value when no kind is asked", () => {
    expect(placeOfAskedKind("Which city does she live in?", "Moved to Lisbon last week!", "Lisbon")).toBe(
      undefined
    )
    expect(placeOfAskedKind("Where does Amara live now?", kilimani, "Kilimani")).toBe(undefined)
  })

  it("never answers with a city left, nor guesses between two", () => {
    expect(
      placeOfAskedKind(
        "Which city does he live in now?",
        "Moved from Nairobi to Kilimani last month",
        "Kilimani"
      )
    ).toBe(undefined)
    expect(
      placeOfAskedKind(
        "Which city does he live in now?",
        "Between Paris and Berlin I picked a flat in Kilimani",
        "Kilimani"
      )
    ).toBe(undefined)
  })

  it("answers a question for a country with the country named", () => {
    expect(
      placeOfAskedKind(
        "Which country does she live in?",
        "Our flat in Kilimani, Kenya is freezing",
        "Kilimani"
      )
    ).toBe("Kenya")
  })
})
