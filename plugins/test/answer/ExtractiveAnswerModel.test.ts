import { ExtractiveAnswerModel, questionType } from "@umo/plugins"
import { describe, expect, it } from "vitest"

const context = (
  index: number,
  content: string,
  timestamp = "2026-01-10T09:00:00.000Z",
  similarity = 0.8
) => ({
  index,
  umo_id: `0000000${index}-0000-7000-8000-000000000000`,
  content,
  summary: content,
  timestamp,
  similarity
})

describe("questionType", () => {
  it.each([
    ["Who painted the lake?", "person"],
    ["Where did Marie Curie work?", "location"],
    ["When is the meeting?", "temporal"],
    ["How many cars were recalled?", "quantity"],
    ["Did Caroline go to the group?", "yes_no"],
    ["List the places I visited", "list"],
    ["What did the committee approve?", "factual"],
    ["Tell me about my garden", "open"]
  ])("%s → %s", (question, type) => {
    expect(questionType(question)).toBe(type)
  })
})

describe("the extractive answer model", () => {
  it("prefers the sentence holding the kind of entity asked for", () => {
    const answer = ExtractiveAnswerModel.answer({
      question: "Where did Marie Curie work?",
      contexts: [
        context(1, "Marie Curie loved her work. She worked in Paris for decades."),
        context(2, "Pierre and Marie Curie shared the Nobel Prize.")
      ]
    })
    expect(answer.answer).toBe("Paris [1]")
    expect(answer.citations).toEqual([
      expect.objectContaining({ index: 1, snippet: "She worked in Paris for decades." })
    ])
  })

  it("resolves a relative date against the memory's own time", () => {
    const answer = ExtractiveAnswerModel.answer({
      question: "When did I go hiking?",
      contexts: [context(1, "I went hiking yesterday with my brother.", "2023-05-08T13:56:00.000Z")]
    })
    expect(answer.answer).toBe("7 May 2023 [1]")
    expect(answer.citations[0]?.snippet).toBe("I went hiking yesterday with my brother.")
    expect(answer.question_type).toBe("temporal")
    const undated = ExtractiveAnswerModel.answer({
      question: "When did I buy the red bike?",
      contexts: [context(1, "I bought the red bike from a neighbour.", "2024-02-29T09:00:00.000Z")]
    })
    expect(undated.answer).toBe("29 February 2024 [1]")
    // A year the tagger finds apart from its day stays with it.
    const moved = ExtractiveAnswerModel.answer({
      question: "When is the party?",
      contexts: [
        context(1, "party moved again, now 17 May 2025 bc of visa stuff", "2024-08-01T00:00:00.000Z")
      ]
    })
    expect(moved.answer).toBe("17 May 2025 [1]")
  })

  const ask = (question: string, ...contents: ReadonlyArray<string>) =>
    ExtractiveAnswerModel.answer({ question, contexts: contents.map((c, i) => context(i + 1, c)) })

  it("answers a person question with the name, a definition with what the person is", () => {
    expect(ask("Who painted the lake?", "Claude Monet painted the lake in 1899.").answer).toBe(
      "Claude Monet [1]"
    )
    const lily = ask("Who is Lily?", "Tom's daughter Lily starts kindergarten next September in Oakland.")
    expect(lily.answer).toBe("Tom's daughter [1]")
    expect(ask("Who is Lily?", "Lily is Tom's daughter.").answer).toBe("Tom's daughter [1]")
  })

  it("answers a number, yes or no with the sentence that says so, and what a sentence adds to the question", () => {
    expect(ask("How many dogs does Ann have?", "Ann has three dogs and a cat.").answer).toBe("three dogs [1]")
    // A year or a length of time is no count: the count before its noun is.
    expect(ask("How many children does Bao have?", "Two kids under 4 and no sleep since 2019").answer).toBe(
      "Two kids [1]"
    )
    // A place word leads to the place ("from Minneapolis"), not to the name before it.
    expect(ask("Which city is Ana from?", "My cousin Abdi moved here from Minneapolis").answer).toBe(
      "Minneapolis [1]"
    )
    expect(ask("Did Caroline go to the parade?", "Caroline did not go to the parade.").answer).toBe(
      "No — Caroline did not go to the parade. [1]"
    )
    expect(ask("Did Caroline go to the parade?", "Caroline went to the parade with friends.").answer).toBe(
      "Yes — Caroline went to the parade with friends. [1]"
    )
    // Whether something still holds is answered no by a sentence saying it ended, negated or not.
    expect(ask("Is Noor still doing keto?", "Officially quit keto. Back to rice and bread").answer).toBe(
      "No — Officially quit keto. Back to rice and bread [1]"
    )
    expect(ask("Is Tenzin still moving to Toronto?", "Toronto is off.").answer).toBe(
      "No — Toronto is off. [1]"
    )
    expect(ask("Is Noor doing keto?", "Keto is going great, 6 weeks in").answer).toBe(
      "Yes — Keto is going great, 6 weeks in [1]"
    )
    const milk = ask(
      "What ingredient did Nate use to make the ice cream lactose-free?",
      "I used coconut milk to make it lactose-free!"
    )
    expect(milk.answer).toBe("coconut milk [1]")
    expect(milk.citations[0]?.snippet).toBe("I used coconut milk to make it lactose-free!")
  })

  it("answers a title with the quote, a kind with the words that name it", () => {
    expect(
      ask(
        "What book did Caroline recommend?",
        'I loved "Becoming Nicole" by Amy Ellis Nutt, highly recommend it.'
      ).answer
    ).toBe("Becoming Nicole [1]")
    expect(
      ask("What kind of dance does Gina love?", "Gina: Contemporary dance is what I love most.").answer
    ).toBe("Contemporary [1]")
  })

  it("says the whole sentence (or short memory) when the words it adds to the question are a guess", () => {
    // One question word of four in the sentence: the run after it ("put") is a guess at the answer.
    const bran = ask(
      "What happened to Siobhan's dog Bran?",
      "We had to put Bran to sleep this morning. Thirteen good years."
    )
    expect(bran.confidence).toBeLessThan(0.5)
    // A memory this short is quoted whole.
    expect(bran.answer).toBe("We had to put Bran to sleep this morning. Thirteen good years. [1]")
  })

  it("picks the sentence that shares the question's words, not only its names", () => {
    const answer = ask("What did John get promoted to?", "John: Thanks! I got promoted to assistant manager.")
    expect(answer.answer).toBe("assistant manager [1]")
  })

  it("answers a list question with the sentence of each of the two best memories, each cited", () => {
    // Whole: a sentence naming several items ("kathak on Saturdays, running on Wednesdays") names
    // them all only whole.
    const answer = ask("List the places I visited", "I visited Rome last spring.", "I visited Kyoto in 2019.")
    expect(answer.answer).toBe("I visited Rome last spring. [1]; I visited Kyoto in 2019. [2]")
    expect(answer.citations.map((c) => c.index)).toEqual([1, 2])
  })

  it("answers an open question with whole sentences", () => {
    const answer = ask("Tell me about my garden", "My garden has tomatoes and basil.")
    expect(answer.answer).toBe("My garden has tomatoes and basil. [1]")
  })

  it("answers a question about now from the memory the search read as current, whatever its words", () => {
    const contexts = [
      {
        ...context(
          1,
          // Longer than a memory quoted whole: the sentence that answers is said.
          "Apprenticeship signed off last month after three years of splinters, early starts, cold vans and a very patient boss ✅ and tonight was my first lecture of the Bachelor of Construction at Unitec. Uni boy now lol"
        ),
        current: true
      },
      context(2, "Started carving classes at the marae, Tuesdays now")
    ]
    const studying = ExtractiveAnswerModel.answer({ question: "What is Hemi studying now?", contexts })
    expect(studying.answer).toContain("Bachelor of Construction")
    expect(studying.citations.map((c) => c.index)).toEqual([1])
    // Without the search's reading, "now" is a word the two share.
    const unread = ExtractiveAnswerModel.answer({
      question: "What is Hemi studying now?",
      contexts: contexts.map((c) => ({ ...c, current: false }))
    })
    expect(unread.answer).not.toContain("Bachelor of Construction")
  })

  it("answers a question about now with no value its sentence says ended, and one about the past with it", () => {
    const contexts = [context(1, "Resigned from Trendyol. Going fully remote with a Berlin startup, Pliant")]
    const now = ExtractiveAnswerModel.answer({ question: "Who does Ahmet work for?", contexts })
    expect(now.answer).not.toMatch(/^Trendyol/)
    expect(now.answer).toContain("Pliant")
    const before = ExtractiveAnswerModel.answer({ question: "Who did Ahmet work for before?", contexts })
    expect(before.answer).toMatch(/^Trendyol/)
  })

  it("quotes after its short answer the memory the search read as current when no stated fact says so", () => {
    const contexts = [
      {
        ...context(1, "Nobody warned me Nairobi gets THIS cold in July, our new flat has zero heating"),
        current: true
      },
      // The search read it as outdated by the newer memory.
      { ...context(2, "Six years living in Lagos and the traffic still humbles me daily"), outdated: true }
    ]
    const city = ExtractiveAnswerModel.answer({ question: "Which city does Amara live in now?", contexts })
    expect(city.answer).toBe(
      "Nairobi — Nobody warned me Nairobi gets THIS cold in July, our new flat has zero heating [1]"
    )
    // Read by the search as no more than near, the short answer stands alone.
    const near = ExtractiveAnswerModel.answer({
      question: "Which city does Amara live in now?",
      contexts: contexts.map((c) => ({ ...c, current: false, outdated: false }))
    })
    expect(near.answer).not.toContain("—")
  })

  it("answers a question about the writer from their own news, not from someone else's", () => {
    const contexts = [
      context(1, "My wife's favourite band is ABBA, which explains a lot about our road trips"),
      context(2, "Can't stop playing Kino lately, best band ever")
    ]
    const own = ExtractiveAnswerModel.answer({
      question: "What's Dmitri's favourite band these days?",
      contexts
    })
    expect(own.citations.map((c) => c.index)).toEqual([2])
    // Named by the question, their news answers it.
    const hers = ExtractiveAnswerModel.answer({
      question: "What is the favourite band of Dmitri's wife?",
      contexts
    })
    expect(hers.citations.map((c) => c.index)).toEqual([1])
    // A sentence with no word of the writer's goes on with the news its memory opened with.
    const dog = ExtractiveAnswerModel.answer({
      question: "What dog does Siobhan have now?",
      contexts: [
        context(1, "Neighbour's spaniel had puppies, eight of them! So tempting"),
        context(2, "Nessa the lurcher stole a whole baguette off the counter today")
      ]
    })
    expect(dog.citations.map((c) => c.index)).toEqual([2])
  })

  it("answers no_context when no sentence shares anything with the question", () => {
    const answer = ExtractiveAnswerModel.answer({
      question: "Where is the zebra?",
      contexts: [context(1, "Bob likes tea.")]
    })
    expect(answer).toMatchObject({ method: "no_context", citations: [], confidence: 0 })
    expect(ExtractiveAnswerModel.answer({ question: "Anything?", contexts: [] }).method).toBe("no_context")
  })
})
