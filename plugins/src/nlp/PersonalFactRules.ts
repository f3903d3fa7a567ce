/**
 * The fact rules about the people, animals, tastes and arrangements in someone's life: their
 * partner and where the relationship stands, their pets, favourites, diet and likes, how to reach
 * them, how many of something they have, and their plans (see `FactRules` for what a rule is).
 * @module
 */
import { partnerWords, plannedEvents } from "./FactLexicon.js"
import {
  COUNT,
  count,
  countOfAny,
  DATE,
  DIET,
  EMAIL,
  EVENT,
  type FactRule,
  favourite,
  KIND,
  NUM,
  OPENER,
  ORDINAL,
  PARTNER,
  PHONE,
  PHRASE,
  PROPER,
  PROPER_LAZY,
  plan,
  rule,
  START,
  statusOf,
  THING
} from "./FactPatterns.js"
import { dietName, isNameWord } from "./FactValues.js"

/** A destination or a named plan, as a group of its own. */
const DEST = String.raw`(?<dest>\p{Lu}[\p{L}-]+(?: \p{Lu}[\p{L}-]+)?)`
const DEST2 = String.raw`(?<dest2>\p{Lu}[\p{L}-]+(?: \p{Lu}[\p{L}-]+)?)`
/** What moves a plan to another time. */
const MOVED = String.raw`(?:moved|pushed|postponed|rescheduled|changed|bumped|delayed|brought forward|shifted|pushed back|moved up)(?: back)?`
const CANCELLED = String.raw`(?:cancel+ed|called off|off|scrapped|not happening|no longer happening|dead)`
/** The "is" of a plan's sentence. */
const IS = String.raw`(?: is| has been| was| got| 's| will be)?`
/**
 * The plan a match names: its event (a trip when it names none) and destination. A destination
 * must be a name as written ("Seoul"), not a word the case-blind pattern took for one ("back"); an
 * event word in its place is the event ("moved the wedding to September").
 */
const planOf = (g: Readonly<Record<string, string | undefined>>) => {
  const dest = (g["dest"] ?? g["dest2"])?.replace(/^(?:the|our|my)\s+/i, "")
  if (dest !== undefined && g["ev"] === undefined && plannedEvents[dest.toLowerCase()] !== undefined)
    return plan(dest, undefined)
  // A lowercase qualifier tells which of an event it is ("dentist appointment"), never where a trip goes.
  if (dest !== undefined && g["ev"] === undefined && !isNameWord(dest.split(/\s+/)[0]!)) return undefined
  return plan(g["ev"] ?? "trip", dest)
}
const dietOf = (g: Readonly<Record<string, string | undefined>>) => dietName(g["v"] ?? g["v2"] ?? "")

// biome-ignore format: a table of rules, one a line
export const personalFactRules: ReadonlyArray<FactRule> = [
  // Who someone's partner is, and where the relationship stands.
  rule({ writers: true, attribute: "partner", mode: "set", value: "name", pattern: String.raw`(?:my|our) (?<rel>${PARTNER})(?:'s name)? is (?:called |named )?${PROPER}` }),
  rule({ writers: true, attribute: "partner", mode: "set", value: "name", pattern: String.raw`^${OPENER}${PROPER_LAZY}(?: is| has| 's)? (?:been |now |officially )*my (?:new )?(?<rel>${PARTNER})\b` }),
  rule({ attribute: "partner", mode: "set", value: "name", anchored: true, pattern: String.raw`${START}(?:got |getting |just got )?(?:dating|going out with|engaged to|married to|marrying|in a relationship with|together with|(?:been |am |'m )?seeing)\s+${PROPER}` }),
  rule({ attribute: "partner", mode: "set", value: "name", pattern: String.raw`^${OPENER}${PROPER} and I (?:are|'re|got|just got|have been|'ve been|made it|are now|got officially)? ?(?:dating|engaged|married|together|a couple|official|moving in together|moved in together|hitched)` }),
  rule({ attribute: "partner", mode: "set", value: "name", pattern: String.raw`^${OPENER}(?:me|I) and ${PROPER} (?:are|'re|got|just got|have been|'ve been|made it|are now|got officially)? ?(?:dating|engaged|married|together|a couple|official|moving in together|moved in together|hitched)` }),
  rule({ attribute: "partner", mode: "set", value: "name", pattern: String.raw`^${OPENER}${PROPER} and I (?:just |have |'ve )?(?:celebrated|are celebrating|celebrating|hit|marked) (?:our )?(?:${NUM}|\d+) (?:years?|months?)(?: together| of (?:dating|marriage|being together))?` }),
  rule({ attribute: "partner", mode: "set", value: "name", anchored: true, pattern: String.raw`${START}(?:just )?proposed to\s+${PROPER}(?=[^.!?]*\b(?:yes|said yes|engaged)\b)` }),
  rule({ attribute: "partner", mode: "end", value: "name", anchored: true, pattern: String.raw`${START}(?:broke up|split up|separated|divorced|got divorced|ended things|called it off|called it quits) with\s+${PROPER}` }),
  rule({ attribute: "partner", mode: "end", value: "name", pattern: String.raw`^${OPENER}${PROPER} and I (?:broke up|split up|separated|divorced|got divorced|called it quits|ended things)` }),
  rule({ attribute: "partner", mode: "end", value: "fixed", fixed: "*", anchored: true, pattern: String.raw`${START}(?:broke up|split up|separated|got divorced|divorced|lost my (?:husband|wife|partner))\b` }),
  rule({ writers: true, attribute: "relationship", mode: "set", value: "fixed", fixed: (g) => partnerWords[(g["rel"] ?? g["rel2"] ?? "").toLowerCase()], pattern: String.raw`(?:my|our) (?<rel>${PARTNER})(?:'s name)? is (?:called |named )?\p{L}|^${OPENER}\p{Lu}[\p{L}'’-]+(?: \p{Lu}[\p{L}'’-]+)?(?: is| has| 's)? (?:been |now |officially )*my (?:new )?(?<rel2>${PARTNER})\b` }),
  rule({ attribute: "relationship", mode: "set", value: "fixed", fixed: (g) => statusOf(g["status"]), anchored: true, pattern: String.raw`${START}(?:got |are |'re |am |'m |just got |officially |made it )?(?<status>engaged|married|hitched|single|divorced|separated|widowed|dating|seeing someone|in a relationship|broke up|split up|official)\b` }),
  rule({ attribute: "relationship", mode: "set", value: "fixed", fixed: (g) => statusOf(g["status"]), pattern: String.raw`^${OPENER}(?:\p{L}+ and I|(?:me|I) and \p{L}+) (?:are |'re |got |just got |made it |are now |have been |'ve been )?(?<status>engaged|married|hitched|dating|official|together|broke up|split up)\b` }),

  // Pets: each one is one more, until it is gone.
  rule({ attribute: "pet", mode: "add", value: "name", anchored: true, pattern: String.raw`${START}(?:have|has|got|adopted|rescued|brought home|took in|welcomed|getting|got ourselves|picked up) (?:a |an |another |our |my |a second |a third |two |three )?(?:[\w-]+ ){0,3}(?<kind>${KIND})(?:,| called| named|:)?\s+${PROPER}` }),
  rule({ attribute: "pet", mode: "add", value: "name", pattern: String.raw`(?:my|our) (?:new |little |rescue )?(?<kind>${KIND})(?:'s name is| is named| is called)\s+${PROPER}` }),
  rule({ attribute: "pet", mode: "add", value: "name", pattern: String.raw`(?:my|our) (?:[\w-]+ ){0,2}?(?<kind>${KIND}),? ${PROPER}` }),
  rule({ attribute: "pet", mode: "add", value: "name", pattern: String.raw`\b(?<kind>${KIND})\b[^.!?;]{0,40}?\b(?:named|called)\s+(?:(?:him|her|it|them)\s+)?${PROPER}` }),
  rule({ attribute: "pet", mode: "add", value: "name", pattern: String.raw`^${OPENER}${PROPER_LAZY} \((?:my|our) (?:[\w-]+ )?(?<kind>${KIND})\)` }),
  rule({ attribute: "pet", mode: "add", value: "name", pattern: String.raw`(?:meet|say hi to|say hello to|introducing|welcome home)\s+${PROPER},? (?:our|my|the) (?:new )?(?:\w+ )?(?<kind>${KIND})` }),
  rule({ attribute: "pet", mode: "end", value: "name", pattern: String.raw`(?:^(?!(?:my|our|the|his|her|their) )|(?:my |our )(?:[\p{L}-]+ ){0,2}?(?:${KIND}) |my |our |\b(?:${KIND}) )${PROPER} (?:has |had |)(?:passed away|passed(?=\s*(?:$|[.!,;:—–-]|on\b|peacefully|yesterday|today|this|last))|died|crossed the rainbow bridge|is no longer with us|was put down|had to be put down|ran away|went missing)` }),
  rule({ attribute: "pet", mode: "end", value: "name", pattern: String.raw`(?<!\b(?:don't|don’t|dont|do not|won't|won’t|never|not) )(?:put|putting|rehome|rehomed|rehoming|gave away|lost|said goodbye to|say goodbye to|saying goodbye to|buried|miss|missing) (?:our |my )?(?:(?:${KIND}) )?${PROPER}` }),

  // Favourites, diets, likes.
  rule({ attribute: (g) => favourite(g["what"]), mode: "set", value: "phrase", pattern: String.raw`(?:my|our) (?:new |current |all-time |absolute )*fav(?:ou?rite)? (?<what>[\w -]{2,30}?) (?:is|are|has to be|has become|is now|these days is|right now is|:)\s+${PHRASE}` }),
  rule({ attribute: (g) => favourite(g["what"]), mode: "set", value: "phrase", pattern: String.raw`^${OPENER}(?:my |our )?(?:new |current |all-time |absolute )*fav(?:ou?rite)? (?<what>[\w -]{2,30}?)(?: of all time| ever| forever| these days| right now)?\s*(?::|=|-|is|are)\s+${PHRASE}` }),
  rule({ attribute: (g) => favourite(g["what"]), mode: "set", value: "phrase", pattern: String.raw`^${OPENER}${PHRASE}\s*(?:is|are|=|has become|became) (?:now |officially |still )?(?:my|our) (?:new |current |all-time |absolute )*fav(?:ou?rite)? (?<what>[\w -]{2,30}?)(?:$|[.!,;]|\s+(?:ever|forever|now|these days|of all time)\b)` }),
  rule({ attribute: "diet", mode: "set", value: "fixed", fixed: dietOf, anchored: true, pattern: String.raw`${START}(?:am|'m|is|'s|are|'re|went|gone|go|going|turned|became|become|switched to|switched to being|eat|eating|have been|'ve been|being) (?:now |fully |officially |completely |strictly |totally |100% )?(?:a |an )?(?<v>${DIET})\b` }),
  rule({ attribute: "diet", mode: "set", value: "fixed", fixed: dietOf, pattern: String.raw`\b(?:of|about|since) being (?:now |fully |officially |completely |strictly |totally |100% )?(?<v>${DIET})\b|\b(?:${NUM}) (?:days?|weeks?|months?|years?) (?:now |fully |completely )?(?<v2>${DIET})\b` }),
  rule({ attribute: "diet", mode: "set", value: "fixed", fixed: (g) => (/fish|seafood/i.test(g["food"] ?? "") ? "pescatarian" : "omnivore"), anchored: true, pattern: String.raw`${START}(?:started|starting|began|am|'m) (?:eating )?(?:to eat )?(?<food>fish|seafood|meat|chicken) again\b` }),
  rule({ future: true, attribute: "diet", mode: "set", value: "fixed", fixed: "omnivore", anchored: true, pattern: String.raw`${START}(?:will |'ll )?eat (?:anything|everything)\b|no dietary (?:rules|restrictions)` }),
  rule({ attribute: "likes", mode: "add", value: "phrase", anchored: true, pattern: String.raw`${START}(?:love|loves|like|likes|enjoy|enjoys|adore|adores|am into|is into|are into|am obsessed with|is obsessed with|got into|gotten into|took up|picked up(?! (?:the|my|our|a|an|his|her|their|some|them|it)\b)|am learning|is learning|(?:started|began|am|is) (?:learning|playing|taking)|am a (?:big |huge )?fan of|is a (?:big |huge )?fan of) (?:playing |doing |making |eating |drinking |watching |reading |learning )?${PHRASE}` }),
  rule({ attribute: "likes", mode: "end", value: "phrase", anchored: true, pattern: String.raw`${START}(?:(?:no longer|do not|does not) (?:like|love|enjoy|eat|drink|play)|hate|hates|cannot stand|(?:gave up|quit|stopped) (?:eating|drinking|playing|doing|liking)?) ${PHRASE}` }),

  // Contact details: found by their shape where the clause speaks of reaching someone.
  // An address the writer gives is theirs, unless it is someone else's ("my colleague's email is…",
  // whom the clause's subject names) or a desk's ("support@…").
  rule({ attribute: "email", mode: "set", value: "email", pattern: String.raw`(?<!(?:his|her|their|[\p{L}-]+['’]s) (?:new |work |personal )*(?:e-?mail|address)(?: is|:)?\s{0,3})(?!(?:support|info|help|sales|noreply|no-reply|admin|contact|hello|team|office|billing|orders|service)@)${EMAIL}` }),
  rule({ attribute: "phone", mode: "set", value: "phone", pattern: String.raw`(?<!(?:office|work|business|company|shop|store|reception|desk|emergency|tracking|order|account|flight|room|house|bus|table|case|reference|confirmation|booking|policy|serial|licen[cs]e|passport|id|team|department|support|hotline|helpline|fax) )(?:phone|number|cell|mobile|call|text|reach|ring|whatsapp|sim|line|tel|landline|contact)[^\d+]{0,40}?${PHONE}` }),

  // Counts.
  rule({ attribute: (g) => count(g["thing"]), mode: "set", value: "number", anchored: true, pattern: String.raw`${START}(?:have|has|got|own|owns|have got|now have|now own|run|ran|finished|completed|done) (?:now )?(?<n>${COUNT}) (?:(?!second|third|more|new|other|another|extra|additional)[\w-]+ ){0,2}?(?<thing>${THING})\b` }),
  rule({ attribute: (g) => count(g["thing"]), mode: "set", value: "number", pattern: String.raw`^${OPENER}(?<n>${COUNT}) (?:(?!second|third|more|new|other|another|extra|additional)[\w-]+ ){0,2}?(?<thing>${THING}) (?:is|are|and counting|so far|now|in total|total|already|under my belt|done|in the books|down)\b` }),
  rule({ attribute: (g) => count(g["thing"]), mode: "set", value: "number", pattern: String.raw`(?<thing>${THING}) (?:number |no\.? ?|#)(?<n>${NUM})\b` }),
  // A running tally of anything, written as one: "Munro count: 12", "that's Munro #15".
  rule({ attribute: (g) => countOfAny(g["thing"]), mode: "set", value: "number", pattern: String.raw`(?:^${OPENER}|\b(?:my|our) )(?<thing>\p{L}[\p{L}-]{2,}) (?:count|tally)(?::|\s+(?:is|now|at|is now|is at|stands at|up to))?\s+(?<n>\d+)\b` }),
  rule({ attribute: (g) => countOfAny(g["thing"]), mode: "set", value: "number", pattern: String.raw`\b(?:that(?:'s|’s| is| makes)|this is) (?:my |our )?(?<thing>\p{L}[\p{L}-]{2,}) (?:number |no\.? ?|#)(?<n>\d+)\b` }),
  rule({ attribute: (g) => count(g["thing"]), mode: "set", value: "number", pattern: String.raw`(?:my|our) (?<n>${ORDINAL}) (?:[\w-]+ )?(?<thing>${THING})\b` }),
  rule({ attribute: () => "count:family", mode: "set", value: "number", pattern: String.raw`(?:we(?:'re| are)|I(?:'m| am)) (?:now |officially )?a family of (?<n>${NUM})` }),
  rule({ attribute: () => "count:children", mode: "set", value: "number", pattern: String.raw`(?:welcomed|had|just had|gave birth to|expecting|adopted|meet) our (?<n>${ORDINAL}) (?:child|baby|kid|son|daughter|little one)` }),
  rule({ attribute: () => "count:employees", mode: "set", value: "number", pattern: String.raw`(?:my|our) (?:team|company|startup|business|shop|store|firm|studio|agency) (?:has|now has|is up to|grew to|is now|now employs|employs) (?<n>${NUM}) (?:people|employees|staff|members|folks|engineers)` }),

  // Plans that change: a date moved, a trip called off.
  rule({ attribute: planOf, mode: "set", value: "date", future: true, pattern: String.raw`(?:(?:my|our|the) )?(?:${DEST} )?(?<ev>${EVENT})(?: date)?(?: to ${DEST2})?${IS}(?: now| officially| actually| finally)?(?: (?:${MOVED}|set|planned|scheduled|booked|confirmed|happening)(?: again)?,?(?: now)?(?: for| to| until| till)?:?| on| in| for)?\s+${DATE}` }),
  rule({ attribute: planOf, mode: "set", value: "date", future: true, pattern: String.raw`(?:my|our|the) (?<ev>${EVENT})(?: is| 's| will be)? (?:in|to) ${DEST} (?:in|on|for|this|next)\s+${DATE}` }),
  rule({ attribute: planOf, mode: "set", value: "date", future: true, anchored: true, pattern: String.raw`${START}(?:going|heading|flying|traveling|travelling|off|leaving) (?:back )?to ${DEST} (?:on|in|next|this|for)\s+${DATE}` }),
  rule({ attribute: planOf, mode: "set", value: "date", future: true, pattern: String.raw`(?:booked(?: it)?|flights? booked|tickets? booked|planning|planned|trip booked)[:!,]?\s+(?:(?:a|one|two|three|\w+) (?:weeks?|days?|nights?|months?) in )?${DEST} (?:in|on|for)\s+${DATE}` }),
  rule({ attribute: planOf, mode: "set", value: "date", future: true, pattern: String.raw`^${OPENER}${DEST}(?: (?<ev>${EVENT}))?(?: is| has been| was| got)? (?:now )?${MOVED} (?:to|until|till)\s+${DATE}` }),
  rule({ attribute: planOf, mode: "set", value: "date", future: true, pattern: String.raw`${MOVED} (?:the |our |my )?${DEST}(?: (?<ev>${EVENT}))? (?:back )?(?:to|until|till)\s+${DATE}` }),
  rule({ attribute: (g) => plan("move", g["dest"]), mode: "set", value: "date", future: true, anchored: true, pattern: String.raw`${START}(?:moving|relocating) to ${DEST} (?:in|on|next|this|for)\s+${DATE}` }),
  rule({ attribute: planOf, mode: "end", value: "fixed", fixed: "*", future: true, pattern: String.raw`(?:(?:my|our|the) )?(?:${DEST} )?(?<ev>${EVENT})(?: to ${DEST2})?(?: is| has been| was| got| 's)? (?:now |officially |sadly |unfortunately )?${CANCELLED}\b` }),
  rule({ attribute: planOf, mode: "end", value: "fixed", fixed: "*", future: true, pattern: String.raw`(?:cancel+ed|called off|scrapped|cancel+ing|calling off) (?:the|our|my) (?:${DEST} )?(?<ev>${EVENT})(?: to ${DEST2})?` }),
  rule({ attribute: planOf, mode: "end", value: "fixed", fixed: "*", future: true, pattern: String.raw`instead of (?:going to )?${DEST}` }),
  rule({ negated: true, attribute: (g) => plan("move", g["dest"]), mode: "end", value: "fixed", fixed: "*", future: true, anchored: true, pattern: String.raw`${START}(?:am |are |is )?not (?:moving|relocating) to ${DEST}` })
]
