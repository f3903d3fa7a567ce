/**
 * What a memory talks about, in the fact finder's terms: whether its words are of the kind of fact
 * a question asks (`askedFacts`' attributes) — work for an employer, a lease or keys for where
 * someone lives, an album for a favourite band. Not a fact: "Takealot lanyard on, first standup
 * done" states no employer the rules can read, yet it is about work; "Joined a community theatre
 * group" is not, whatever its nearness in meaning to "Which company does she work for now?".
 * Search reads it where a newer memory stating no fact might be the current value of one.
 * @module
 */
import { carNames, countedThings, petKinds, plannedEvents, roleHeads } from "./FactLexicon.js"
import { ADDRESS, alternation, DIET, EMAIL, PARTNER, PHONE, REL, STUDY } from "./FactPatterns.js"

// An empty source (no word of a list) is left out: it would match anywhere.
const of = (...sources: ReadonlyArray<string>) =>
  new RegExp(`\\b(?:${sources.filter((s) => s.length > 0).join("|")})\\b`, "iu")

const home =
  "live|lives|living|lived|moved|move|moving|relocat\\w*|home|house|flat|apartment|place|lease|keys|neighbou?rhood|city|town|resident|unpack\\w*|boxes|settl\\w*|rent|rented|landlord|roommate|flatmate|street|commute|mortgage"
const work =
  "work|works|working|worked|job|jobs|company|office|team|colleagues?|co-?workers?|boss|hired|hiring|onboarding|stand-?up|lanyard|badge|payroll|pay-?check|salary|shift|shifts|desk|career|employer|employee|interview|offer|contract|notice|resign\\w*|laid off|first day|clients?|startup|firm"
// How a couple stands, for a partner and for the relationship (PARTNER names the partner: "wife", "boyfriend").
const couple =
  "dating|date|married|marry|wedding|engaged|engagement|propos\\w*|honeymoon|anniversary|broke up|split|single|together|relationship"

/** The words of each kind of fact (a slot's attribute, or its family before the colon). */
const topics: Readonly<Record<string, RegExp>> = {
  residence: of(home),
  employer: of(work),
  role: of(
    work,
    alternation(roleHeads),
    "promot\\w*|title|rank|stripes|business cards?|report to|in charge|senior|junior|chief"
  ),
  partner: of(PARTNER, couple, "dated|marrying|ring|valentine\\w*"),
  relationship: of(PARTNER, couple, "divorc\\w*|separat\\w*"),
  pet: of(alternation(petKinds), "pets?|adopt\\w*|rescue|vet|breed|leash|litter|cage"),
  diet: of(
    `(?:${DIET})`,
    "diet|eat|eats|eating|ate|food|meat|fish|dairy|meals?|cook\\w*|bread|rice|veg\\w*|plant-based|carbs?"
  ),
  email: new RegExp(`${EMAIL}|\\b(?:e-?mail|inbox|mail)\\b`, "iu"),
  phone: new RegExp(
    `${PHONE}|\\b(?:phone|number|sim|call|text|whatsapp|carrier|network|mobile|cell)\\b`,
    "iu"
  ),
  address: new RegExp(
    `${ADDRESS}|\\b(?:${home}|address|floor|door|buzzer|doorbell|postcode|zip|parcel|deliver\\w*)\\b`,
    "iu"
  ),
  car: of(
    alternation(carNames),
    "car|cars|drive|drives|driving|drove|seats?|engine|mileage|garage|parking|dealer\\w*|heater|tyres?|tires?|fuel|petrol|diesel|charging"
  ),
  school: of(
    STUDY,
    "school|uni|university|college|class|classes|course|courses|program|professor|prof|supervisor|syllabus|exams?|semester|campus|students?|study|studying|studies|enrolled|transfer\\w*|tuition|graduat\\w*"
  )
}

/** A favourite's own words: what liking one says, and the words of its kind. */
const liking = "favou?rite|fave|fav|all-time|obsessed|on repeat|best|top"
const favouriteKinds: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /^(?:band|artist|singer|song|album|musician|group|rapper|composer|music|genre)$/,
    "albums?|songs?|tracks?|bands?|concerts?|gigs?|tour|listen\\w*|playlists?|records?|vinyl|music|sing\\w*"
  ],
  [/^(?:book|author|novel|writer|poet)$/, "books?|novels?|read|reading|finished|authors?|chapters?|pages"],
  [
    /^(?:film|movie|show|series|tv|director|actor|actress)$/,
    "watch\\w*|films?|movies?|cinema|series|episodes?|seasons?|shows?"
  ],
  [
    /^(?:food|dish|meal|restaurant|snack|dessert|drink|cuisine|fruit|cake)$/,
    "eat|ate|eating|food|dish|meals?|cook\\w*|restaurants?|tast\\w*|tried"
  ],
  [/^(?:color|colour)$/, "colou?rs?|paint\\w*|wear\\w*|dyed"]
]

/** The words of an attribute's kind: of its slot, its favourite's kind, its counted thing or its planned event. */
const topicOf = (attribute: string): RegExp | undefined => {
  const [family, kind = ""] = attribute.split(":")
  if (family === undefined) return undefined
  const own = topics[family]
  if (own !== undefined) return own
  const kindWord = alternation([kind])
  if (family === "favorite")
    return of(liking, kindWord, ...favouriteKinds.filter(([kinds]) => kinds.test(kind)).map(([, w]) => w))
  if (family === "count") {
    const named = Object.keys(countedThings).filter((w) => countedThings[w] === kind)
    const born =
      kind === "children" || kind === "grandchildren" ? ["baby|born|arrived|pregnant|son|daughter"] : []
    return of(kindWord, alternation(named), ...born)
  }
  if (family === "plan") {
    const event = kind.split(":")[0] ?? ""
    const named = Object.keys(plannedEvents).filter((w) => plannedEvents[w] === event)
    const marrying = event === "wedding" ? ["married|marry|marrying"] : []
    return of(
      alternation([event]),
      alternation(named),
      ...marrying,
      "booked|cancel\\w*|postpon\\w*|pushed|resched\\w*|called off|dates?|tickets?"
    )
  }
  return undefined
}

/**
 * Whether a text talks about a kind of fact asked (any of `attributes`); true when none of them
 * has words of its own (a kind this module does not know is not used to turn a memory away). The
 * words are gathered once for the attributes, then read in each text.
 */
export const speaksOf = (attributes: ReadonlyArray<string>): ((text: string) => boolean) => {
  const known = attributes.flatMap((a) => {
    const topic = topicOf(a)
    return topic === undefined ? [] : [topic]
  })
  return (text) => known.length === 0 || known.some((topic) => topic.test(text))
}

const relative = new RegExp(String.raw`\b(?:my|our|his|her|their)\s+(?:${REL})\b`, "iu")

/** Whether a text names someone by what they are to the writer ("my mom", "our neighbour"): a "who" answer without a name. */
export const namesRelative = (text: string): boolean => relative.test(text)
