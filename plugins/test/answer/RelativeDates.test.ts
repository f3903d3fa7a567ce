import { describe, expect, it } from "vitest"
import { resolveRelativeTime } from "../../src/answer/RelativeDates.js"

describe("resolveRelativeTime", () => {
  // Saturday 15 July 2023, as LoCoMo's annotators would write the answers.
  const written = "2023-07-15T18:30:00.000Z"
  it.each([
    ["I went hiking yesterday.", "14 July 2023"],
    ["We met today at noon.", "15 July 2023"],
    ["I start tomorrow!", "16 July 2023"],
    ["I adopted her 3 days ago.", "12 July 2023"],
    ["I joined a gym last week.", "The week before 15 July 2023"],
    ["We went camping last weekend.", "The weekend before 15 July 2023"],
    ["It happened two weekends ago.", "Two weekends before 15 July 2023"],
    ["I painted it last Friday.", "The Friday before 15 July 2023"],
    ["I went to a concert on Tuesday.", "The Tuesday before 15 July 2023"],
    ["I'm busy this week.", "The week of 15 July 2023"],
    ["I moved last month.", "June 2023"],
    ["I moved a month ago.", "June 2023"],
    ["I painted a sunrise last year.", "2022"],
    ["We married 10 years ago.", "2013"],
    ["I'll visit next month.", "August 2023"],
    // A day or month named right before the year keeps it.
    ["We're getting married March 2 next year.", "2 March 2024"],
    ["The 3rd of May next year it is.", "3 May 2024"],
    ["We were in Lima in June last year.", "June 2022"],
    ["I may next year, who knows.", "2024"]
  ])("%s → %s", (text, expected) => {
    expect(resolveRelativeTime(text, written)).toBe(expected)
  })

  it("crosses the year backwards", () => {
    expect(resolveRelativeTime("I moved last month.", "2023-01-09T10:00:00Z")).toBe("December 2022")
    expect(resolveRelativeTime("It was yesterday.", "2024-01-01T10:00:00Z")).toBe("31 December 2023")
  })

  it("finds nothing in a text with no relative time", () => {
    expect(resolveRelativeTime("I went hiking on 7 May 2023.", written)).toBeUndefined()
    expect(resolveRelativeTime("Lasting friendships matter.", written)).toBeUndefined()
  })
})
