import type { AnswerContext } from "@umo/core"
import { ExtractiveAnswerModel } from "@umo/plugins/answer"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

/** Memories as an ask hands them over: numbered in rank order, with their times and whether a newer one replaced them. */
const contexts = (
  memories: ReadonlyArray<readonly [content: string, day: number, outdated?: boolean]>
): ReadonlyArray<AnswerContext> =>
  memories.map(([content, day, outdated = false], i) => ({
    index: i + 1,
    umo_id: `m${i + 1}`,
    content,
    summary: content,
    timestamp: new Date(Date.UTC(2024, 0, 1 + day)).toISOString(),
    similarity: 0.5,
    outdated
  }))

const ask = (question: string, memories: Parameters<typeof contexts>[0]) =>
  ExtractiveAnswerModel.answer({ question, contexts: contexts(memories) })

describe("answers from stated facts", () => {
  const moved = [
    ["My sister Ana lives in Porto, she runs a bakery there.", 5],
    ["Just signed the lease on our place in Lisbon!", 30],
    ["I've lived in Madrid for six years now and I still love the light here.", 1, true]
  ] as const

  it("gives the newest value for a question about now, and cites it", () => {
    const a = ask("Where does Maria live now?", moved)
    expect(a.answer).toBe("Lisbon [2]")
    expect(a.citations.map((c) => c.umo_id)).toEqual(["m2"])
  })

  it("gives the one value a past question points at by a name it holds", () => {
    const emails = [
      ["New job, new inbox: reach me at ana@mosaicpay.com from now on", 40],
      ["My work email is ana.ruiz@finlytics.io if anyone wants the slides", 1, true]
    ] as const
    expect(ask("What was Ana's email when she worked at Finlytics?", emails).answer).toBe(
      "ana.ruiz@finlytics.io [2]"
    )
    expect(ask("Which email address should be used to reach Ana?", emails).answer).toBe(
      "ana@mosaicpay.com [1]"
    )
    // "before Lisbon" names the value after the one asked for.
    expect(ask("Where did Maria live before Lisbon?", moved).answer).toBe("Madrid [3]")
  })

  it("answers from the facts a capture stored beyond the rules' (the slot sense's), as the content writes them", () => {
    const [older, newer] = contexts([
      ["3 years at Nubank this month, fraud team still the best team", 1],
      ["First payday at iFood 🥳 and the free lunch is actually good", 40]
    ])
    const employer = { subject: "self", attribute: "employer", value: "ifood", mode: "set" } as const
    const question = "Who does Rafael work for now?"
    // No rule reads the newer memory: without what its capture stored, the older one answers.
    expect(ExtractiveAnswerModel.answer({ question, contexts: [older!, newer!] }).answer).toBe("Nubank [1]")
    const stored = { ...newer!, facts: [employer] }
    expect(ExtractiveAnswerModel.answer({ question, contexts: [older!, stored] }).answer).toBe("iFood [2]")
    // A stored fact about someone else, or of another kind, answers nothing here.
    for (const other of [
      { ...employer, subject: "sister" },
      { ...employer, attribute: "school" }
    ])
      expect(
        ExtractiveAnswerModel.answer({ question, contexts: [older!, { ...newer!, facts: [other] }] }).answer
      ).toBe("Nubank [1]")
  })

  it("gives the value before the one named for a question about the past", () => {
    expect(ask("Where did Maria live before Lisbon?", moved).answer).toBe("Madrid [3]")
    expect(
      ask("Who was Omar dating before the breakup?", [
        ["I'm dating Layla, we met at a climbing gym.", 1],
        ["Layla and I broke up. It was mutual.", 9]
      ]).answer
    ).toBe("Layla [1]")
    // A word of the value names it: "the Prius" is the Prius Prime.
    expect(
      ask("What did Leilani drive before the Prius?", [
        ["Sold the Corolla and now I'm driving a Prius Prime.", 9],
        ["My trusty 2009 Corolla just hit 200k miles", 1, true]
      ]).answer
    ).toBe("Corolla [2]")
    // "Original" asks for the first value of all, not the one before the newest.
    const dates = [
      ["We set a date!! Wedding is 14 September 2024 in Tuscany", 1, true],
      ["we pushed the wedding to 5 October 2024. Same villa", 60, true],
      ["plot twist: wedding moved AGAIN, now 17 May 2025", 90]
    ] as const
    expect(ask("What was the original wedding date?", dates).answer).toBe("14 September 2024 [1]")
    expect(ask("When was the wedding before it moved to May?", dates).answer).toBe("5 October 2024 [2]")
  })

  it("leaves to the sentences a question that names the value it would answer with", () => {
    const a = ask("Who does Joaquín's parrot Pancho live with now?", [
      ["Pancho went to live with my mom, he screamed all day alone in the apartment", 9],
      ["Our parrot Pancho learned to say 'Colo-Colo'", 1]
    ])
    // Its pet's name is no answer: the sentences answer (which one is the search's and their words' to say).
    expect(a.answer).not.toMatch(/^Pancho \[/)
  })

  it("names every value still held of a kind that holds several, and none that ended", () => {
    const a = ask("What pets does Ines have?", [
      ["We adopted a retired greyhound called Biscuit!", 1],
      ["I have a cat named Luna.", 2],
      ["Luna passed away in March, we're heartbroken.", 3],
      ["We brought home a tabby kitten, Pepper.", 4]
    ])
    expect(a.answer).toBe("Biscuit [1] and Pepper [4]")
  })

  it("answers whether something still holds from the latest fact about it", () => {
    const rabbit = [
      ["Our bunny Poi turned 8! Ancient for a rabbit", 1],
      ["Poi passed away this morning.", 20]
    ] as const
    expect(ask("Does Malia still have her rabbit Poi?", rabbit).answer).toMatch(/^No: Poi passed away/)
    expect(
      ask("Is Kenji's Peru trip in May still happening?", [
        ["Planning two weeks in Peru in May, Machu Picchu at last!", 1],
        ["Peru trip is off. Cancelled everything.", 9]
      ]).answer
    ).toMatch(/^No: Peru trip is off/)
  })

  it("quotes contact details and counts as the memory writes them", () => {
    expect(
      ask("What's Freya's phone number now?", [
        ["my number's 07700 900123 btw, text don't call", 1, true],
        ["new SIM so new number: 07700 900456", 5]
      ]).answer
    ).toBe("07700 900456 [2]")
    expect(
      ask("How many marathons has Ben run?", [["Just finished my third marathon in Chicago!", 3]]).answer
    ).toBe("3 [1]")
  })

  it("leaves a question no stated fact answers to the sentences", () => {
    expect(
      ask("What did Maria eat in Seville?", [["We spent a weekend in Seville, the tapas were great.", 1]])
        .answer
    ).not.toMatch(/Lisbon|Madrid/)
  })

  it("never cites a memory it was not given, and answers with the writer's newest place, never a friend's (property)", () => {
    const people = ["Ana", "Luis", "Marta"]
    const places = ["Lisbon", "Porto", "Madrid", "Oslo"]
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            who: fc.integer({ min: -1, max: 2 }),
            place: fc.constantFrom(...places),
            day: fc.nat(365)
          }),
          { minLength: 1, maxLength: 6 }
        ),
        (said) => {
          const memories = said.map(
            ({ who, place, day }) =>
              [who < 0 ? `I moved to ${place}.` : `My friend ${people[who]} moved to ${place}.`, day] as const
          )
          const a = ask("Where does Maria live now?", memories)
          for (const [, n] of a.answer.matchAll(/\[(\d+)\]/g))
            expect(Number(n)).toBeLessThanOrEqual(memories.length)
          const mine = said.filter((s) => s.who < 0)
          // The writer's own newest move is the answer whenever there is one; a friend's never is.
          if (mine.length > 0) {
            const newest = Math.max(...mine.map((s) => s.day))
            const places = new Set(mine.filter((s) => s.day === newest).map((s) => s.place))
            expect(a.answer).toMatch(/^\w+ \[\d+\]$/)
            expect(places.has(a.answer.split(" ")[0]!)).toBe(true)
          }
        }
      )
    )
  })
})

describe("the kind of place asked for", () => {
  it("answers a question for a city with the city, where the home is written as its neighbourhood", () => {
    const memories = [
      ["We moved into a flat in Kilimani last week. Nairobi gets THIS cold in July!", 30],
      ["Six years living in Lagos and the traffic still humbles me daily", 1, true]
    ] as const
    expect(ask("Which city does Amara live in now?", memories).answer).toBe("Nairobi [1]")
    expect(ask("Where does Amara live now?", memories).answer).toBe("Kilimani [1]")
  })
})
