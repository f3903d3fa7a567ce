import { describe, expect, it } from "vitest"
import { askedFacts } from "../../src/nlp/FactQuestions.js"
import { namesRelative, speaksOf } from "../../src/nlp/FactTopics.js"

const about = (question: string, text: string) => speaksOf(askedFacts(question).attributes)(text)

describe("speaksOf", () => {
  it("knows a memory of the kind of fact asked, though it states no value a rule reads", () => {
    for (const [question, text] of [
      ["Which company does Thandiwe work for now?", "Takealot lanyard on, first standup done"],
      ["Where does Ana live now?", "Unpacked the last box, the view is unreal"],
      ["What's Greta's address?", "Keys collected!! New address is 22 Leith Walk, flat 3F1"],
      ["What car does Greta drive now?", "Heated seats in the Fabia make these mornings bearable"],
      ["Who is Ingrid's favourite artist now?", "Sigrid's album has been on repeat for a month"],
      ["What's Beatriz's favourite book now?", "Finished Pachinko last night, I've never cried so much"],
      ["How many children does Bao have now?", "Our son arrived last night, family of five"],
      ["When is Leilani's wedding now planned for?", "Kai and I are getting married March 2 next year"],
      ["What is Nikos's rank on the ferry now?", "Wearing the second officer stripes on the 6am crossing"],
      ["What is Hemi studying now?", "Tonight was my first lecture at Unitec"],
      ["What's Noor's diet these days?", "Back to rice and bread, just trying to add more veggies"],
      ["What's Emeka's number now?", "Switched networks, call me on +234 809 555 0142"],
      ["How many Munros has Eilidh climbed?", "Schiehallion in the mist today, that's Munro #15"]
    ] as const)
      expect(about(question, text), `${question} / ${text}`).toBe(true)
  })

  it("knows one of another kind", () => {
    for (const [question, text] of [
      [
        "Which company does Thandiwe work for now?",
        "Joined a community theatre group in Melville!! choir on Sundays"
      ],
      ["What does Ayesha do for work now?", "Started an allotment this spring, baking on Saturdays"],
      ["Who is Ingrid's favourite artist now?", "Meet Bolle, our new rabbit"],
      ["What's Dmitri's favourite band these days?", "Passed my B2 Georgian exam!!"],
      ["What is Chloe's address?", "The bakery at the corner of Rue Cler was my favourite."],
      ["What is Nikos's rank on the ferry now?", "Folegandros was unreal, two favourite islands"],
      // A thing no lexicon counts has its own word, and no other.
      ["How many Munros has Eilidh climbed?", "Meet Bolle, our new rabbit"]
    ] as const)
      expect(about(question, text), `${question} / ${text}`).toBe(false)
  })

  it("turns nothing away for a question of no kind it knows", () => {
    expect(about("What did Sam say about music?", "Got a kitten, named her Pixel")).toBe(true)
    expect(about("What does Sam like?", "Got a kitten, named her Pixel")).toBe(true)
  })
})

describe("namesRelative", () => {
  it("knows someone named by what they are to the writer", () => {
    expect(namesRelative("Pancho went to live with my mom, she's home all day")).toBe(true)
    expect(namesRelative("Our neighbour feeds the cat")).toBe(true)
    expect(namesRelative("Mom said hi")).toBe(false)
    expect(namesRelative("Pancho learned to say 'Colo-Colo'")).toBe(false)
  })
})
