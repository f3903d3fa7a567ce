import type { RankingFacts } from "@umo/core"
import { askedFacts, FactFinderLive } from "@umo/plugins/nlp"
import { Effect } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  currentFirst,
  newestAnswerFirst,
  pastFirst,
  readQuestion as readWith
} from "../../src/updates/Succession.js"

const finder = Effect.runSync(FactFinderLive.make(undefined))
const readQuestion = (question: string) => readWith(question, finder)

const slot = (attribute: string) => `user:u\u001fself\u001f${attribute}`

/** A memory stating one set value of where the writer lives, `days` after the epoch. */
const living = (
  id: string,
  days: number,
  value: string,
  supersededBy: string | null = null
): RankingFacts => ({
  umo_id: id,
  timestamp: new Date(days * 86_400_000).toISOString(),
  superseded_by: supersededBy,
  entities: [],
  facts: [{ slot: slot("residence"), value, mode: "set" }]
})

/** Memories stating other things: no fact. */
const other = (id: string, days: number): RankingFacts => ({
  umo_id: id,
  timestamp: new Date(days * 86_400_000).toISOString(),
  superseded_by: null,
  entities: [],
  facts: []
})

const order = (scores: ReadonlyMap<string, number>) =>
  [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id)

// Distinct place names, distinct days, any scores: a line of values over time among other memories.
const line = fc
  .record({
    places: fc.uniqueArray(fc.constantFrom("madrid", "lisbon", "porto", "oslo", "lima", "kyiv"), {
      minLength: 2,
      maxLength: 5
    }),
    others: fc.integer({ min: 0, max: 4 }),
    scores: fc.array(fc.double({ min: 0, max: 3, noNaN: true }), { minLength: 10, maxLength: 10 })
  })
  .map(({ places, others, scores }) => {
    const facts = [
      ...places.map((place, i) => living(`p${i}`, i * 10, place)),
      ...Array.from({ length: others }, (_, i) => other(`o${i}`, i * 7))
    ]
    return { places, facts, scores: new Map(facts.map((f, i) => [f.umo_id, scores[i]!])) }
  })

describe("currentFirst", () => {
  it("puts the newest value of a fact above every older one, and moves nothing else (property)", () => {
    fc.assert(
      fc.property(line, ({ places, facts, scores }) => {
        const { scores: ranked, outdated } = currentFirst(scores, facts)
        const newest = `p${places.length - 1}`
        for (let i = 0; i < places.length - 1; i++) {
          expect(ranked.get(`p${i}`)!).toBeLessThan(ranked.get(newest)!)
          expect(outdated.has(`p${i}`)).toBe(true)
        }
        expect(outdated.has(newest)).toBe(false)
        expect(ranked.get(newest)).toBe(scores.get(newest))
        for (const f of facts.filter((f) => f.umo_id.startsWith("o")))
          expect(ranked.get(f.umo_id)).toBe(scores.get(f.umo_id))
        // Asked about that fact, the same; asked about another kind, none of them is out of date.
        expect(currentFirst(scores, facts, askedFacts("Where does Maria live now?")).scores).toEqual(ranked)
        const cats = currentFirst(scores, facts, askedFacts("How many cats does Maria have?"))
        expect(cats.scores).toEqual(scores)
        expect(cats.outdated.size).toBe(0)
      })
    )
  })
})

describe("pastFirst", () => {
  it("puts first the value just before the one a question names, or before the newest (property)", () => {
    fc.assert(
      fc.property(line, fc.nat(), ({ places, facts, scores }, pick) => {
        const asked = askedFacts("Where did Maria live before?")
        // Named: the value before it goes first.
        const named = 1 + (pick % (places.length - 1))
        const question = `Where did Maria live before ${places[named]}?`
        expect(order(pastFirst(scores, facts, asked, question))[0]).toBe(`p${named - 1}`)
        // None named: the value before the newest.
        expect(order(pastFirst(scores, facts, asked, "Where did Maria live before?"))[0]).toBe(
          `p${places.length - 2}`
        )
      })
    )
  })

  it("without a fact asked, lifts a superseded memory just above the one that replaced it", () => {
    const facts = [other("a", 1), { ...other("b", 2), superseded_by: "c" }, other("c", 3)]
    const scores = new Map([
      ["a", 2],
      ["b", 0.5],
      ["c", 1]
    ])
    expect(
      order(pastFirst(scores, facts, askedFacts("What did she say before?"), "What did she say before?"))
    ).toEqual(["a", "b", "c"])
  })
})

describe("readQuestion: aboutNow", () => {
  it("reads a question about how things stand now, or about what a change led to", () => {
    for (const question of [
      "Where does Sam live now?",
      "Is Noor still doing keto?",
      "Who is Malia dating?",
      "When was Tariq's CFA Level 1 exam rescheduled to?",
      "What's Greta's new email address?"
    ])
      expect(readQuestion(question).aboutNow, question).toBe(true)
    for (const question of [
      "Where did Sam live before Leeds?",
      "What did Sam say about music?",
      "When did Tariq move to Lisbon?",
      "What new hobbies has Sam picked up?"
    ])
      expect(readQuestion(question).aboutNow, question).toBe(false)
  })
})

describe("readQuestion: aboutHowThingsStood", () => {
  it("reads a question about the past that asks a kind of fact, not one about an event", () => {
    for (const question of ["Where did Sam live before Leeds?", "What was Greta's old email address?"]) {
      expect(readQuestion(question).aboutThePast, question).toBe(true)
      expect(readQuestion(question).aboutHowThingsStood, question).toBe(true)
    }
    for (const question of ["Where did Sam go before lunch?", "What did Sam say before he left?"]) {
      expect(readQuestion(question).aboutThePast, question).toBe(true)
      expect(readQuestion(question).aboutHowThingsStood, question).toBe(false)
    }
    expect(readQuestion("Where does Sam live now?").aboutHowThingsStood).toBe(false)
  })
})

describe("newestAnswerFirst", () => {
  /** A person's memories as the search ranked them: id, text, day, score and cosine to the question. */
  const search = (
    question: string,
    memories: ReadonlyArray<readonly [id: string, text: string, day: number, score: number, cosine: number]>,
    facts: ReadonlyArray<RankingFacts> = memories.map(([id, , day]) => other(id, day))
  ) =>
    newestAnswerFirst(
      memories.map(([id, , , score]) => [id, score] as const),
      new Map(
        memories.map(([id, content, day]) => [
          id,
          { content, timestamp: new Date(day * 86_400_000).toISOString(), entities: [] }
        ])
      ),
      new Map(memories.map(([id, , , , cosine]) => [id, cosine])),
      facts,
      readQuestion(question)
    )
  const sam = [
    ["manchester", "I've been in Manchester since uni, love the music scene", 1, 0.26, 0.22],
    ["leeds", "Our first Christmas in the new Leeds flat! Tiny tree but it counts", 700, 0.21, 0.15],
    ["wish", "Would love to spend a year in Lisbon someday", 760, 0.2, 0.14],
    ["brother", "My brother just started at Google in Dublin", 120, 0.18, 0.09],
    ["kitten", "Got a kitten, named her Pixel", 800, 0.15, 0.05]
  ] as const

  it("puts first the newest memory that answers a question about now, whatever its words", () => {
    const { ranked, outdated, current } = search("Where does Sam live now?", sam)
    expect(ranked[0]![0]).toBe("leeds")
    expect([...outdated]).toEqual(["manchester"])
    expect(current).toBe("leeds")
  })

  it("takes for the current value no newer memory that says nothing of the kind asked", () => {
    const work = [
      ["discovery", "Working at Discovery Health in Sandton, the canteen is elite", 1, 0.5, 0.37],
      ["lanyard", "Takealot lanyard on, first standup done. I'm the auntie of the team now", 300, 0.3, 0.25],
      ["theatre", "Joined a community theatre group in Melville!! choir on Sundays", 500, 0.35, 0.22]
    ] as const
    // Nearer than half the nearest and newest, the theatre group is no employer: the standup is.
    const { ranked, current } = search("Which company does Thandiwe work for now?", work)
    expect(ranked[0]![0]).toBe("lanyard")
    expect(current).toBe("lanyard")
    // A memory that names what the question asks about speaks of it, in whatever words.
    expect(search("Which company does Thandiwe's choir rehearse with now?", work).current).toBe("theatre")
  })

  it("takes someone named by what they are to the writer as the answer to a question for whom", () => {
    const pancho = [
      ["words", "Our parrot Pancho learned to say 'Colo-Colo'", 1, 0.9, 0.53],
      ["mom", "Pancho went to live with my mom, she's home all day", 300, 0.8, 0.6]
    ] as const
    expect(search("Who does Joaquín's parrot Pancho live with now?", pancho).current).toBe("mom")
  })

  it("reads a memory stating the asked fact as current however far its words are from the question", () => {
    const question = "Where does Valentina live now?"
    const memories = [
      ["ba", "I live in Buenos Aires with my two cats, Mate and Dulce", 1, 0.9, 0.31],
      ["abuela", "My abuela still lives in Rosario, she calls me every Sunday", 100, 0.8, 0.43],
      [
        "montevideo",
        "Moved from Buenos Aires to Montevideo last month! The cats handled the ferry",
        400,
        0.7,
        0.18
      ]
    ] as const
    const { ranked, current } = search(question, memories, [
      living("ba", 1, "buenos aires"),
      other("abuela", 100),
      living("montevideo", 400, "montevideo")
    ])
    // Less than half as near as the nearest (someone else's news), yet it says where she lives.
    expect(ranked[0]![0]).toBe("montevideo")
    expect(current).toBe("montevideo")
  })

  it("reads the memories for what came before when the rules read no value before the one named", () => {
    const fatima = [
      ["ilyas", "Been seeing Ilyas for a few months now and I'm really happy", 400, 0.9, 0.5],
      ["karim", "Two years with Karim today, dinner by the river", 1, 0.5, 0.4]
    ] as const
    // The rules read Ilyas as her partner and nothing before him: Karim's memory comes first by its time.
    const ilyas: RankingFacts = {
      ...other("ilyas", 400),
      facts: [{ slot: slot("partner"), value: "ilyas", mode: "set" }]
    }
    const { ranked } = search("Who was Fatima's partner before Ilyas?", fatima, [ilyas, other("karim", 1)])
    expect(ranked[0]![0]).toBe("karim")
  })

  it("puts first the one before it for a question about the past, and the one before a value named", () => {
    expect(search("Where did Sam live before?", sam).ranked[0]![0]).toBe("manchester")
    // What came before is no current value.
    expect(search("Where did Sam live before?", sam).current).toBeUndefined()
    expect(search("Where did Sam live before Leeds?", sam).ranked[0]![0]).toBe("manchester")
  })

  it("puts someone else's news the question does not name below the writer's own", () => {
    // Neither answers by its facts or its nearness (both far from the question): only whose news it is moves them.
    const news = [
      ["cousin", "My cousin Abdi is moving from Minneapolis to Columbus next month", 300, 0.3, 0.05],
      ["winter", "Minneapolis winters are no joke, -30 today and I still gotta shovel", 10, 0.25, 0.05],
      ["kitten", "Got a kitten, named her Pixel", 800, 0.1, 0.01]
    ] as const
    expect(search("Which city does Yusuf live in now?", news).ranked.map(([id]) => id)).toEqual([
      "winter",
      "kitten",
      "cousin"
    ])
    // Asked about the cousin, the cousin's news keeps its place.
    expect(search("Where does Yusuf's cousin live now?", news).ranked.map(([id]) => id)).toEqual([
      "cousin",
      "winter",
      "kitten"
    ])
  })

  it("puts someone else's news below the writer's own for a list asked about now too", () => {
    const bikes = [
      ["dad", "my dad is thinking about getting an e-bike, he calls cyclists lycra people", 300, 0.9, 0.5],
      ["gravel", "New gravel bike arrived!! Canyon Grizl in olive", 400, 0.8, 0.45]
    ] as const
    expect(search("Which bikes does Lars currently have?", bikes).ranked.map(([id]) => id)).toEqual([
      "gravel",
      "dad"
    ])
  })

  it("reads the memory ending what a question about now names as its answer", () => {
    const rabbit = [
      ["got", "We got a rabbit! Kids named him Pepparkaka", 1, 0.9, 0.55],
      ["rehomed", "had to rehome Pepparkaka, he's with a lovely family in Uppsala", 300, 0.8, 0.5]
    ] as const
    const ended: RankingFacts = {
      ...other("rehomed", 300),
      facts: [{ slot: slot("pet"), value: "pepparkaka", mode: "end" }]
    }
    const question = "Where is Astrid's rabbit Pepparkaka now?"
    expect(search(question, rabbit, [other("got", 1), ended]).current).toBe("rehomed")
    // Ending a value the question does not name answers nothing about now.
    expect(search("Where is Astrid's rabbit now?", rabbit, [other("got", 1), ended]).current).toBe("got")
  })

  it("reads for what is current no plan still to come, which answers when it will be", () => {
    const gabriel = [
      ["exchange", "Semester exchange in Porto next spring, confirmed!", 400, 0.9, 0.236],
      ["civil", "Começando engenharia civil na USP! first week done", 1, 0.6, 0.145],
      ["switch", "Switching from civil engineering to architecture, same uni", 200, 0.5, 0.14]
    ] as const
    const { ranked, current } = search("What is Gabriel studying now?", gabriel)
    expect(current).toBe("switch")
    expect(ranked[0]![0]).toBe("switch")
    expect(search("When is Gabriel's semester exchange?", gabriel).ranked[0]![0]).toBe("exchange")
  })

  it("leaves questions about neither, lists and yes-or-no questions not about now as they were", () => {
    for (const question of [
      "What did Sam say about music?",
      "Which cities has Sam lived in?",
      "Does Sam live in Leeds?"
    ])
      expect(search(question, sam).ranked.map(([id]) => id)).toEqual(sam.map(([id]) => id))
  })

  it("puts first the newest memory on what a yes-or-no question asks whether it still holds", () => {
    const keto = [
      ["going", "Keto is going great, 6 weeks no bread and I feel amazing", 1, 0.6, 0.55],
      ["quit", "Officially quit keto. Back to rice and bread", 200, 0.5, 0.43],
      ["iftar", "Iftar at my aunt's tonight, her mansaf is unbeatable", 100, 0.3, 0.19]
    ] as const
    const { ranked, outdated } = search("Is Noor still doing keto?", keto)
    expect(ranked[0]![0]).toBe("quit")
    expect([...outdated]).toEqual(["going"])
    // Asked without "still", whether she ever did is the question: the order stays.
    expect(search("Did Noor do keto?", keto).ranked.map(([id]) => id)).toEqual(keto.map(([id]) => id))
  })
})
