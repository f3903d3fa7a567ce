import { decideUpdates, type StatedFact } from "@umo/core"
import { askedFacts, statedFacts } from "@umo/plugins/nlp"
import { describe, expect, it } from "vitest"

/** The facts of a text as `subject|attribute|value|mode` lines, without the `keep` marker. */
const facts = (text: string) =>
  statedFacts(text)
    .filter((f) => f.mode !== "keep")
    .map((f) => `${f.subject}|${f.attribute}|${f.value}|${f.mode}`)

/** Whether the newer text supersedes the older one, as a capture in one user's scope would decide. */
const supersedes = (older: string, newer: string) => {
  const stated = (text: string): ReadonlyArray<StatedFact> =>
    statedFacts(text).map((f) => ({
      slot: `user:u\u001f${f.subject}\u001f${f.attribute}`,
      value: f.value,
      mode: f.mode
    }))
  const decision = decideUpdates({ umo_id: "b", timestamp: "2025-01-01T00:00:00Z", facts: stated(newer) }, [
    { umo_id: "a", timestamp: "2024-01-01T00:00:00Z", facts: stated(older) }
  ])
  return decision.supersedes.includes("a")
}

describe("statedFacts", () => {
  it("reads where someone lives, however it is said", () => {
    for (const [text, place] of [
      ["I live in Madrid.", "madrid"],
      ["I've lived in Madrid for six years now.", "madrid"],
      ["We just moved to Lisbon!", "lisbon"],
      ["Just signed the lease on our place in Lisbon!", "lisbon"],
      ["Keys to the Toronto flat in hand!", "toronto"],
      ["First night in our new apartment in Buenos Aires.", "buenos aires"],
      ["Home for me is Accra these days.", "accra"],
      ["We bought a house in the Bay Area", "bay area"],
      ["relocated to São Paulo for good", "são paulo"]
    ] as const)
      expect(facts(text), text).toContain(`self|residence|${place}|set`)
  })

  it("reads employers, roles and their ends", () => {
    expect(facts("I work at Google.")).toEqual(["self|employer|google|set"])
    expect(facts("First week at Stripe done!")).toEqual(["self|employer|stripe|set"])
    expect(facts("I'm a nurse at St. Mary's Hospital.")).toEqual([
      "self|employer|st. mary's hospital|set",
      "self|role|nurse|set"
    ])
    expect(facts("Finally got promoted to staff engineer!")).toEqual(["self|role|staff engineer|set"])
    expect(facts("I quit my job.")).toEqual(["self|employer|*|end"])
    expect(facts("Today was my last day at Acme.")).toEqual(["self|employer|acme|end"])
    expect(facts("I also freelance for Acme Corp on weekends.")).toEqual(["self|employer|acme corp|add"])
    expect(facts("Leaving Andela after 5 yrs. Next stop Flutterwave, start Monday")).toEqual([
      "self|employer|flutterwave|set"
    ])
  })

  it("reads a role of several words, with a doer's word after its head, and no adverb", () => {
    expect(
      facts("PASSED BOARDS!!! I'm officially a nurse practitioner 🩺 first clinic day is Monday")
    ).toEqual(["self|role|nurse practitioner|set"])
    expect(facts("Boss moved me off the bar — I'm the head roaster now!")).toEqual([
      "self|role|head roaster|set"
    ])
    expect(facts("after the reorg, I'm officially Senior Data Analyst (!!!) effective 1 March")).toContain(
      "self|role|senior data analyst|set"
    )
    expect(facts("I'm a nurse after all")).toEqual(["self|role|nurse|set"])
    expect(facts("I'm a teacher later today")).toEqual(["self|role|teacher|set"])
  })

  it("reads partners, relationship status, pets, favourites, diets, contacts, counts and plans", () => {
    expect(facts("I'm dating Tom.")).toEqual(["self|partner|tom|set", "self|relationship|dating|set"])
    expect(facts("I got married to Alex last weekend!")).toContain("self|relationship|married|set")
    expect(facts("I have a golden retriever named Max.")).toEqual(["self|pet|max|add"])
    expect(facts("Max passed away last month; we adopted a beagle called Bella.")).toEqual([
      "self|pet|max|end",
      "self|pet|bella|add"
    ])
    expect(facts("Green is my new favourite colour.")).toEqual(["self|favorite:color|green|set"])
    // A word done after "favourite" is no kind of thing: no slot "favorite:unlocked".
    expect(facts("New all-time favourite unlocked: Sichuan boiled fish.")).toEqual([])
    expect(facts("My favourite breed is the whippet.")).toEqual(["self|favorite:breed|whippet|set"])
    expect(facts("I'm vegan now.")).toEqual(["self|diet|vegan|set"])
    expect(facts("My new email is ana.k@proton.me")).toEqual(["self|email|ana.k@proton.me|set"])
    expect(facts("Call me on +1 (415) 555-0134.")).toEqual(["self|phone|+14155550134|set"])
    expect(facts("We have two kids.")).toEqual(["self|count:children|2|set"])
    expect(facts("Our trip to Japan is in May.")).toEqual([
      "self|plan:trip:japan|may|set",
      "self|plan:trip|japan|add"
    ])
    expect(facts("The Peru trip is off, flights cancelled.")).toEqual([
      "self|plan:trip:peru|*|end",
      "self|plan:trip|peru|end"
    ])
  })

  it("reads a partner by an anniversary or a proposal, a pet by an aside, a date moved again", () => {
    expect(facts("Diego and I celebrated 2 years together at that tapas place")).toEqual([
      "self|partner|diego|set"
    ])
    expect(facts("Proposed to Yasmin on the Corniche and she said YES")).toEqual(["self|partner|yasmin|set"])
    expect(facts("Proposed to Yasmin on the Corniche, fingers crossed")).toEqual([])
    expect(facts("Mochi (my cat) is 14 now and steals my chair")).toEqual(["self|pet|mochi|add"])
    expect(facts("plot twist: wedding moved AGAIN, now 17 May 2025 bc of visa stuff")).toContain(
      "self|plan:wedding|17 may 2025|set"
    )
  })

  it("reads a favourite's kind by one name for its synonyms, its value without filler", () => {
    expect(facts("Coldplay is my favourite band, fight me")).toEqual(["self|favorite:artist|coldplay|set"])
    expect(facts("Fav artist is hands down Black Coffee now")).toEqual([
      "self|favorite:artist|black coffee|set"
    ])
    expect(facts("new favourite thing to eat is my mom's mushroom risotto")).toEqual([
      "self|favorite:food|mom's mushroom risotto|set"
    ])
    expect(askedFacts("What's Ingrid's favourite food at the moment?").attributes).toContain("favorite:food")
    expect(askedFacts("Who is Zanele's favourite singer now?").attributes).toContain("favorite:artist")
    expect(askedFacts("When is Elena getting married?").attributes).toContain("plan:wedding")
  })

  it("reads a workplace by a day there, its end by a badge handed in, a home by years or a last box", () => {
    expect(facts("Another long day at Shopify. The migration is eating my life")).toEqual([
      "self|employer|shopify|set"
    ])
    expect(facts("Working as a barista at The Workshop in Saigon")).toEqual([
      "self|employer|workshop|set",
      "self|role|barista|set"
    ])
    expect(facts("Handed in my badge today. 4 years.")).toEqual(["self|employer|*|end"])
    expect(facts("My sister had a long day at Google")).toEqual([])
    expect(facts("We've been renting in Ikeja since 2019.")).toEqual(["self|residence|ikeja|set"])
    expect(facts("Ten years in Honolulu and I still can't find parking")).toEqual([
      "self|residence|honolulu|set"
    ])
    expect(facts("Unpacked the last box in Hilo. The rain here is no joke")).toEqual([
      "self|residence|hilo|set"
    ])
    // Weeks somewhere are a visit.
    expect(facts("Two weeks in Bali and I'm so tan")).toEqual([])
  })

  it("reads addresses, cars, schools, counts and contact details by their shape", () => {
    expect(facts("New address is Avenida de América 27, 5ºA.")).toContain(
      "self|address|avenida de américa 27, 5ºa|set"
    )
    expect(facts("Got the keys to 9 Heol y Nant today!")).toContain("self|address|9 heol y nant|set")
    expect(facts("Sold the Corolla and now I'm driving a Prius Prime.")).toEqual([
      "self|car|prius prime|set",
      "self|car|corolla|end"
    ])
    expect(facts("Second year of computer science at Politehnica Bucharest")).toEqual([
      "self|school|politehnica bucharest|set"
    ])
    expect(facts("Baby number three is here!")).toEqual(["self|count:children|3|set"])
    expect(facts("Four grandchildren and counting!")).toEqual(["self|count:grandchildren|4|set"])
    // A tally of anything, written as one, counts it in the singular.
    expect(facts("Munro count: 12")).toEqual(["self|count:munro|12|set"])
    expect(facts("Schiehallion in the mist today, that's Munro #15")).toEqual(["self|count:munro|15|set"])
    expect(facts("Finished Chicago today — marathon #5 in the books!")).toEqual([
      "self|count:marathons|5|set"
    ])
    expect(facts("Reach me at olumide.adeyemi@proton.me from now on")).toEqual([
      "self|email|olumide.adeyemi@proton.me|set"
    ])
    expect(facts("new SIM so new number: 07700 900456")).toEqual(["self|phone|07700900456|set"])
    // Numbers that are not anyone's phone, and words that are not a car.
    expect(facts("Our office number is 415-555-0000.")).toEqual([])
    expect(facts("My focus this year is sleep.")).toEqual([])
  })

  it("reads facts said in passing, with a condition after them, and plans moved or called off", () => {
    expect(facts("My email is olu@yahoo.com if anyone from the meetup wants it")).toEqual([
      "self|email|olu@yahoo.com|set"
    ])
    expect(facts("Four years at KPMG as of today.")).toEqual(["self|employer|kpmg|set"])
    expect(facts("I joined MTN Ghana's finance team last week")).toEqual(["self|employer|mtn ghana|set"])
    expect(facts("Been seeing Ilyas for a few months now")).toContain("self|partner|ilyas|set")
    expect(facts("the wedding is now 6 September 2024")).toEqual(["self|plan:wedding|6 september 2024|set"])
    expect(facts("Pushed Seoul to November")).toContain("self|plan:trip:seoul|november|set")
    expect(facts("Not moving to Bristol after all")).toContain("self|plan:move:bristol|*|end")
    // A plan denied is none.
    expect(facts("Physio says no marathon this year so I've deferred my entry")).toEqual([])
    expect(facts("Started eating fish again, doctor's orders")).toEqual(["self|diet|pescatarian|set"])
  })

  it("knows who a statement is about: the writer, a relation, a named person, a speaker", () => {
    expect(facts("My husband just got promoted to head chef!")).toEqual(["husband|role|head chef|set"])
    expect(facts("My abuela still lives in Rosario")).toEqual([])
    expect(facts("Brother-in-law bought a Tesla")).toEqual(["brother-in-law|car|tesla|set"])
    expect(facts("My sister lives in Porto.")).toEqual(["sister|residence|porto|set"])
    expect(facts("My sister Ana lives in Porto.")).toEqual(["ana|residence|porto|set"])
    expect(facts("Ana moved to Oslo.")).toEqual(["ana|residence|oslo|set"])
    expect(facts("Caroline: I moved to Boston last year.")).toEqual(["caroline|residence|boston|set"])
    // Whom "she" means is not in the memory: no fact.
    expect(facts("She moved to Paris.")).toEqual([])
    expect(facts("He moved to Lisbon and started at Farfetch.")).toEqual([])
    // A clause opened by the writer's verb, "I" left out, is the writer's, its "and"-parts too.
    expect(facts("Left Rakuten last Friday and started at Mercari today.")).toEqual([
      "self|employer|rakuten|end",
      "self|employer|mercari|set"
    ])
    expect(facts("Ana moved to Lisbon and started at Farfetch.")).toEqual([
      "ana|residence|lisbon|set",
      "ana|employer|farfetch|set"
    ])
  })

  it("states no fact in a wish, a question, a condition, a plan to change, a negation or a trip", () => {
    for (const text of [
      "I'd love to live in Tokyo someday.",
      "Should we move to Berlin?",
      "If I got the job I would move to Denver.",
      "We are thinking about moving to Berlin.",
      "I will start at Google next month.",
      "We visited Paris last summer.",
      "I don't work at Google.",
      "moved to the countryside",
      "I work with Anna on the project.",
      "Joined Anna for dinner last night."
    ])
      expect(facts(text), text).toEqual([])
  })

  it("takes commentary on a fact for part of it, and a statement of its own for more", () => {
    const modes = (text: string) => statedFacts(text).map((f) => f.mode)
    expect(modes("I've lived in Madrid for six years now and I still love the light here.")).toEqual(["set"])
    expect(modes("I work at Infosys in Bangalore.")).toEqual(["set"])
    expect(modes("I live in Buenos Aires with my two cats, Mate and Dulce")).toEqual(["set", "keep"])
    expect(modes("I live in Oslo and I'm pregnant.")).toEqual(["set", "keep"])
  })

  it("marks a memory that says more than its facts, so no fact can supersede it", () => {
    const stated = statedFacts(
      "I live in Madrid. Yesterday we had dinner with Ana at La Bola and talked for hours."
    )
    expect(stated.map((f) => f.mode)).toEqual(["set", "keep"])
    expect(statedFacts("Just moved to Lisbon! So excited.").map((f) => f.mode)).toEqual(["set"])
  })
})

describe("updates decided from stated facts", () => {
  it("supersedes an older value of the same fact, and nothing else", () => {
    expect(
      supersedes("I've lived in Madrid for six years.", "Just signed the lease on our place in Lisbon!")
    ).toBe(true)
    expect(supersedes("I work at Google.", "First week at Stripe done!")).toBe(true)
    expect(supersedes("My favorite color is blue.", "Green is my new favourite colour.")).toBe(true)
    expect(supersedes("I have a cat named Luna.", "Luna passed away in March.")).toBe(true)
    expect(supersedes("Our trip to Japan is in May.", "Turns out the Japan trip is now in October.")).toBe(
      true
    )
    // Additions, restatements, other people and other trips supersede nothing.
    expect(supersedes("I have a dog named Rex.", "We got a second dog, a corgi named Pixel.")).toBe(false)
    expect(supersedes("I love Paris.", "I love Rome too.")).toBe(false)
    expect(supersedes("I live in Madrid.", "I still live in Madrid and love it.")).toBe(false)
    expect(supersedes("I live in Madrid.", "My sister moved to Lisbon.")).toBe(false)
    expect(supersedes("Our trip to Japan is in May.", "Our trip to Peru is in July.")).toBe(false)
    expect(supersedes("I work at Google.", "I also freelance for Acme Corp on weekends.")).toBe(false)
    // An older memory that also says something still true stays.
    expect(supersedes("I live in Madrid and work at Google.", "We moved to Lisbon.")).toBe(false)
    expect(supersedes("I'm a vegetarian and I love Indian food.", "I've started eating fish again.")).toBe(
      false
    )
    // A newer memory that states some of the older one's facts again and replaces the rest.
    expect(
      supersedes("Camila and I made it official, she's my girlfriend", "Camila and I are engaged!")
    ).toBe(true)
    // A plan called off by its kind alone ends the plan named further.
    expect(supersedes("Our honeymoon is in Bali in August.", "The honeymoon is off.")).toBe(true)
    expect(supersedes("Our trip to Japan is in May.", "The Peru trip is off.")).toBe(false)
  })

  it("lets a value ended by name outdate what was said about it, never what names more", () => {
    // What the older says besides its fact is about the value the newer one ends.
    expect(
      supersedes(
        "Tom and I have been together 3 years today, still my favourite human",
        "Tom and I split up."
      )
    ).toBe(true)
    expect(
      supersedes("Living in Dubai for work and I'm sick of the heat", "Relocated from Dubai to Oslo")
    ).toBe(true)
    // It names more (the cats are still there), or the newer one ends no value by name.
    expect(
      supersedes("I live in Oslo with my two cats, Pixel and Nova", "Moved from Oslo to Bergen last month!")
    ).toBe(false)
    expect(supersedes("Living in Dubai for work and I'm sick of the heat", "We moved to Oslo.")).toBe(false)
  })

  it("reads a couple written with the writer first, and a statement that only ends in a question mark", () => {
    expect(facts("Me and Tomás have been together 2 years today")).toEqual([
      "self|partner|tomás|set",
      "self|relationship|together|set"
    ])
    expect(facts("Single again and honestly? kind of loving it")).toEqual(["self|relationship|single|set"])
    expect(facts("Do you still live in Paris?")).toEqual([])
    expect(facts("Honeymoon = 6 days of tapas and my wife Ana beating me at cards")).not.toContain(
      "self|partner|honeymoon|set"
    )
    expect(facts("Where should we live, Lisbon or Porto?")).toEqual([])
  })

  it("reads a fact before a hope or a plan after a comma, not the hope", () => {
    expect(facts("I've run 3 half marathons so far, hoping to do a fourth in May")).toEqual([
      "self|count:half marathons|3|set"
    ])
    expect(facts("Living in Leeds, thinking of moving to York next year")).toEqual([
      "self|residence|leeds|set"
    ])
  })

  it("reads a contact detail given on a condition of its use, never a wished one", () => {
    expect(facts("if the courier needs me my number is 0161 555 0199")).toContain(
      "self|phone|01615550199|set"
    )
    expect(facts("If you want the slides, my email is ana@example.org")).toContain(
      "self|email|ana@example.org|set"
    )
    expect(facts("I wish my email was ana@example.org")).toEqual([])
    // Someone else's, by a possessive before the way of reaching them.
    expect(facts("Mum's new number is 0403 221 990, saving it here so I don't lose it again")).toEqual([])
    expect(facts("Prima Lupita's email changed too, it's lupita.o@hotmail.com")).toEqual([])
    expect(facts("Here's my new number: 0412 555 873")).toEqual(["self|phone|0412555873|set"])
    expect(facts("If I move to Leeds I'll live at 4 Park Row")).toEqual([])
  })

  it("reads no end of a value in a milestone or in not missing something", () => {
    expect(facts("My 2012 Golf just passed 200k km, what a car")).not.toContainEqual(
      expect.stringMatching(/\|end$/)
    )
    expect(facts("Don't miss the Golf's rattling heater one bit")).toEqual([])
    expect(facts("Our cat Mimi passed this morning.")).toEqual(["self|pet|mimi|end"])
    expect(facts("My old dog Rufus died today.")).toEqual(["self|pet|rufus|end"])
  })
})

describe("askedFacts", () => {
  it("reads the kind of fact and the person a question asks about", () => {
    expect(askedFacts("Where does Maria live now?")).toEqual({ attributes: ["residence"], subject: "maria" })
    expect(askedFacts("Who does Kofi work for?").attributes).toContain("employer")
    expect(askedFacts("What is Ana's favorite color?").attributes).toContain("favorite:color")
    expect(askedFacts("How many kids does Sam have?").attributes).toContain("count:children")
    expect(askedFacts("How many Munros has Eilidh climbed?").attributes).toEqual(["count:munro"])
    expect(askedFacts("How many countries has Eilidh visited?").attributes).toEqual(["count:country"])
    // How often is no count of a thing.
    expect(
      askedFacts("How many times did Eilidh call?").attributes.filter((a) => a.startsWith("count:"))
    ).toEqual([])
    expect(askedFacts("When is Lee's trip to Japan?").attributes).toContain("plan:trip")
    expect(askedFacts("Where do I live?").subject).toBe("self")
    expect(askedFacts("What is the capital of France?").attributes).toEqual([])
  })
})
