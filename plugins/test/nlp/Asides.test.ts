import { isAside, opensAhead } from "@umo/plugins/nlp"
import { describe, expect, it } from "vitest"
import { othersNews } from "../../src/nlp/Asides.js"

describe("isAside", () => {
  it("takes questions, wishes, conditions, someone else's news and visits for asides", () => {
    for (const text of [
      "Anyone know a good dentist in Leeds?",
      "I'd love to live by the sea one day",
      "Maybe Peru next year if the knee cooperates",
      "If the offer comes through we'll move to Bristol",
      "My brother just moved to Oslo",
      "Neighbour's spaniel had puppies, eight of them!",
      "Coworker just got back from Bolivia",
      "My sister's baby arrived last night!",
      "Brother-in-law bought a Tesla and won't shut up about it",
      "She got the job at Spotify!",
      "We spent a long weekend in Seville in May",
      "Visiting my parents in Izmir for the holidays",
      "Flying to Lima on Friday for my uncle's birthday",
      "Heading back to Porto for a conference",
      "Drove to Shiraz for my uncle's birthday, 9 hours each way",
      "my mate Sipho quit teaching to go into banking, madness",
      "Piotr himself moved to Warsaw to lead the new ML group",
      "My sister told me she's moving to Oslo"
    ])
      expect(isAside(text), text).toBe(true)
  })

  it("takes the writer's own statements, however worded, for statements", () => {
    for (const text of [
      "Keys to our Rotterdam apartment in hand!",
      "Nobody warned me Nairobi gets THIS cold",
      "Badge photo taken, officially a Shopify employee!",
      "Our first Christmas in the new Leeds flat!",
      "Meet Nessa, our new rescue lurcher!",
      "Our son Minh Khoa arrived last night, three kids now",
      "I've started eating fish again, so I guess I'm pescatarian now.",
      "Poi passed away this morning.",
      "It's been a year in Lisbon and I'm not going back",
      "Moved back home for a weekend visit that turned into forever",
      "Flying home to Lima for good, the lease there starts Monday",
      "Boss moved me off the bar — I'm the head roaster now!"
    ])
      expect(isAside(text), text).toBe(false)
  })
})

describe("opensAhead", () => {
  it("takes a memory opening with something still to come for one, and no other", () => {
    expect(opensAhead("Semester exchange in Porto next spring, confirmed!")).toBe(true)
    expect(opensAhead("We're going to repaint the kitchen soon")).toBe(true)
    expect(opensAhead("Switching from civil engineering to architecture, same uni")).toBe(false)
    // What comes after the opening says nothing of it.
    expect(opensAhead("Started at Stripe today. Will be commuting by bike")).toBe(false)
  })
})

describe("othersNews", () => {
  it("names whose news a sentence is, when it is not the writer's", () => {
    expect(othersNews("My sister Ana just got engaged to her boyfriend of 6 years!!")).toEqual([
      "sister",
      "ana"
    ])
    expect(othersNews("Neighbour's spaniel had puppies, eight of them!")).toEqual(["neighbour"])
    expect(othersNews("She got the job at Spotify!")).toEqual([])
    expect(othersNews("Sione met my parents today and my dad laughed at his jokes")).toBe(undefined)
    expect(othersNews("It's been a year in Lisbon and I'm not going back")).toBe(undefined)
    expect(othersNews("Finished the beadwork for my cousin's regalia")).toBe(undefined)
  })
})
