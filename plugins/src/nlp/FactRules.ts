/**
 * The statements the fact finder (`Facts`) reads, one rule each: the attribute it states, how it
 * bears on earlier values (`set`, `add`, `end`), and the pattern of a clause that states it. A
 * pattern is case-insensitive; what it captures is checked after (a place or a name must be
 * capitalized as written), so "moved to Lisbon" counts and "moved to the countryside" does not.
 * This file holds where someone lives and works, what they do, study and drive; the people,
 * animals, tastes, contacts, counts and plans in their life are in `PersonalFactRules`.
 * @module
 */
import {
  ADDRESS,
  CAR,
  type FactRule,
  HOME,
  NAME,
  NUM,
  OPENER,
  PROPER,
  PROPER_LAZY,
  ROLE,
  rule,
  START,
  STUDY
} from "./FactPatterns.js"
import { personalFactRules } from "./PersonalFactRules.js"

export type { FactRule, ValueKind } from "./FactPatterns.js"
export { numberValue } from "./FactPatterns.js"

const residenceVerbs =
  "live|lives|living|reside|resides|residing|based|live and work|lived|been living|been based|call home|renting|been renting|rent"
const movedVerbs = "moved|relocated|moved back|moved over|moved out|emigrated|immigrated|just moved"
/** Places of study, which an "N years at X" names as a school rather than an employer. */
const SCHOOL_WORD = String.raw`(?:university|college|school|institute|academy|polytechnic|politehnica|uni|conservatory|conservatoire)`

/**
 * A role as written: up to three words before its head ("senior data analyst") and a word after
 * it that names a doer too ("nurse practitioner", "head roaster"), never an adverb that happens to
 * end like one ("a nurse after all").
 */
const ROLE_VALUE = String.raw`(?:[\w-]+ ){0,3}(?:${ROLE})(?: (?!(?:later|never|ever|over|after|rather|together|whether|either|neither|other|another|under|forever|better|sooner|faster|harder|longer|whatever|however|per)\b)[\p{L}-]{2,}(?:er|or|ist|yst|ian|eer))?`

/** Where someone lives, their address, where they work, what they do, where they study, what they drive. */
// biome-ignore format: a table of rules, one a line
const lifeFactRules: ReadonlyArray<FactRule> = [
  // Where someone lives.
  rule({ attribute: "residence", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:${residenceVerbs})\s+(?:(?:for \w+ (?:years?|months?) )?in|at)\s+${PROPER}` }),
  rule({ attribute: "residence", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:${movedVerbs})\s+(?:from ${NAME} )?(?:all the way |back |over |out )?(?:to|into)\s+${PROPER}` }),
  rule({ attribute: "residence", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:${movedVerbs}) into (?:a|an|our|my|the|their) (?:new |little |tiny |own )*(?:${HOME})(?: \w+)? in\s+${PROPER}` }),
  rule({ attribute: "residence", mode: "set", value: "proper", pattern: String.raw`(?:my|our) (?:new |current )*(?:${HOME}|address) (?:is |now )*(?:in|at)\s+${PROPER}` }),
  rule({ attribute: "residence", mode: "set", value: "proper", pattern: String.raw`(?:lease|keys|mortgage|deed|deposit) (?:on|for|to) (?:my|our|the|a|an) (?:new |first |own )*(?:${HOME})(?: \w+)? in\s+${PROPER}` }),
  rule({ attribute: "residence", mode: "set", value: "proper", pattern: String.raw`(?:first|1st) (?:night|day|week|weekend|month) (?:in|at) (?:my|our|the) (?:new |own )+(?:${HOME})(?: \w+)? in\s+${PROPER}` }),
  rule({ attribute: "residence", mode: "set", value: "proper", pattern: String.raw`(?:lease|keys|mortgage|deed|first night|first week) (?:on|for|to|in|at) (?:my|our|the|a) (?:new |own )*${PROPER} (?:${HOME})\b` }),
  rule({ attribute: "residence", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:bought|rented|closed on|signed for|purchased|got the keys to|moved into|unpacked (?:in|at)) (?:a|an|our|my|the) (?:new |first |own |little )*(?:${HOME})(?: \w+)? in\s+${PROPER}` }),
  rule({ attribute: "residence", mode: "set", value: "proper", pattern: String.raw`(?:^|\b)home (?:for (?:me|us) )?is (?:now )?${PROPER}` }),
  rule({ whole: true, attribute: "residence", mode: "set", value: "proper", pattern: String.raw`^${OPENER}${PROPER_LAZY} (?:is|has become) (?:officially |now |finally )?(?:(?:my|our) (?:new )?)?home\b` }),
  rule({ attribute: "residence", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:settled|settling|got settled) (?:down )?in(?:to)?\s+${PROPER}` }),
  rule({ attribute: "residence", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:now )?call\s+${PROPER} home` }),
  // A first winter, a first year somewhere is a life there, not a visit.
  rule({ attribute: "residence", mode: "set", value: "proper", pattern: String.raw`(?:first|second|third) (?:winter|summer|autumn|fall|year|christmas) (?:living |here |back )?in\s+${PROPER}` }),
  rule({ whole: true, attribute: "residence", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:living|based) in\s+${PROPER_LAZY}(?=\s+(?:has|is|means|since|for)\b|\s*[,.!]|$)` }),
  rule({ whole: true, attribute: "residence", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}still (?:living |based )?in\s+${PROPER_LAZY}(?=\s+(?:after|these days|for now|all these years)\b)` }),
  // "Ten years in Honolulu and I still can't find parking": years somewhere are a life there.
  rule({ whole: true, attribute: "residence", mode: "set", value: "proper", pattern: String.raw`^${OPENER}(?:${NUM}|\d+\+?) (?:years?|yrs?) (?:now |living |here )?in\s+${PROPER_LAZY}(?=\s*(?:$|[.!,;:)]|and\b|today|now|already|this\b))` }),
  rule({ attribute: "residence", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}unpacked (?:the |our |my )?(?:last|final) (?:box|boxes|suitcase)(?: in| at)\s+${PROPER}` }),
  rule({ attribute: "residence", mode: "end", value: "proper", anchored: true, pattern: String.raw`${START}(?:no longer|don't|do not|doesn't|does not) live (?:in|at)\s+${PROPER}` }),
  rule({ attribute: "residence", mode: "end", value: "proper", anchored: true, pattern: String.raw`${START}(?:moved|moving|relocated|relocating) (?:away |out )?(?:from|out of)\s+${PROPER}` }),

  // A street address.
  rule({ attribute: "address", mode: "set", value: "address", pattern: String.raw`(?:my|our) (?:new |home |mailing |postal |updated )*address (?:is|changed to|has changed to|is now|:)\s+(?:now )?${ADDRESS}` }),
  rule({ attribute: "address", mode: "set", value: "address", pattern: String.raw`new (?:home )?address(?: is|:)?\s+${ADDRESS}` }),
  rule({ attribute: "address", mode: "set", value: "address", pattern: String.raw`(?:keys to|moved (?:in)?to|moving into|live at|living at|send (?:it|mail|stuff|post|the package|packages|letters) to|find (?:me|us) at) ${ADDRESS}` }),
  rule({ attribute: "address", mode: "set", value: "address", pattern: String.raw`^${OPENER}${ADDRESS} is (?:now )?(?:(?:my|our) (?:new )?)?(?:home|address|where (?:I|we) live)\b` }),

  // Where someone works.
  rule({ attribute: "employer", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:(?:now )?(?:work|works|working|been working|started working|start working|full-time) (?:full[- ]time )?(?:at|for)|(?:started|start|starting) (?:at|with)|(?:took|got|landed|accepted|started|found) (?:a|the|my|a new|my new) (?:new )?(?:job|position|role|offer|gig)(?: offer)? (?:at|with|from)|accepted (?:an|the) offer (?:from|at)|signed (?:on )?with|(?:was|got|been) hired (?:by|at)|(?:moved over|jumped ship|switched jobs|switched over|switched companies) to|(?:am|is|are) now (?:at|with)|(?:am|is|are) (?:a|an|the) (?:[\w-]+ ){0,3}(?:${ROLE}) (?:at|for|with)|(?:work|works|working|worked|started|start|starting) as (?:a|an|the) ${ROLE_VALUE} (?:at|for|with))\s+${PROPER}` }),
  rule({ writers: true, attribute: "employer", mode: "set", value: "proper", pattern: String.raw`^${OPENER}(?:another |a |one more )?(?:long|busy|rough|hard|good|great|crazy|hectic|slow|quiet|late|full) (?:day|week|shift|night|morning) (?:at|with)\s+${PROPER}` }),
  rule({ whole: true, attribute: "employer", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:joined|am joining|is joining)\s+${PROPER_LAZY}(?=\s*(?:$|[.!,;:)]|['’]s\b|as\b|in\b|on\b|today|this\b|last\b|full|part|back\b))` }),
  rule({ whole: true, attribute: "employer", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:joined|am joining|is joining|moved to|transferred to)\s+${PROPER_LAZY}['’]s\s+(?:[\w-]+\s+){0,2}(?:team|department|group|office|division|unit|lab|branch|practice|desk)\b` }),
  rule({ attribute: "employer", mode: "set", value: "proper", pattern: String.raw`promoted (?:to|as) (?:a |an |the )?(?:[\w-]+ ){0,3}(?:${ROLE}) (?:at|for|with)\s+${PROPER}` }),
  rule({ attribute: "employer", mode: "set", value: "proper", pattern: String.raw`(?:(?:first|1st|second|opening) (?:day|week|month|shift|sprint)|day (?:one|1)|onboarding(?: week)?|orientation|induction) (?:at|with)\s+${PROPER}` }),
  rule({ whole: true, attribute: "employer", mode: "set", value: "proper", pattern: String.raw`^${OPENER}${PROPER_LAZY} (?:onboarding|orientation|induction)\b` }),
  rule({ attribute: "employer", mode: "set", value: "proper", pattern: String.raw`(?:my|our) new (?:job|role|position|gig|employer|company|team) (?:is )?(?:at|with)\s+${PROPER}` }),
  rule({ attribute: "employer", mode: "set", value: "proper", pattern: String.raw`(?:badge|onboarding|offer letter|contract|laptop) (?:photo |day |from |at |with )+${PROPER}` }),
  rule({ attribute: "employer", mode: "set", value: "proper", pattern: String.raw`^${PROPER} (?:hired me|offered me (?:a|the) (?:job|position|role))` }),
  rule({ whole: true, attribute: "employer", mode: "set", value: "proper", pattern: String.raw`(?:^|\b(?:officially|now|finally|am|became|become|as))\s*(?:a|an) ${PROPER_LAZY}(?= (?:employee|staffer|hire|new hire|team member|intern|contractor)\b)` }),
  // A work anniversary ("four years at KPMG today"), unless the place is a school.
  rule({ whole: true, attribute: "employer", mode: "set", value: "proper", pattern: String.raw`\b(?:${NUM}) (?:years?|months?) (?:now )?at\s+(?!\S*${SCHOOL_WORD})${PROPER_LAZY}(?=\s*(?:$|[.!,;:)]|today|this\b|now|as of|and\b|already))` }),
  rule({ attribute: "employer", mode: "set", value: "proper", pattern: String.raw`(?:next stop|next chapter|new chapter|onwards to|onward to)[:,]?\s+${PROPER}(?=[^.!?]*\b(?:start|starting|starts|join|joining|offer|role|job|team|monday|tuesday|wednesday|thursday|friday)\b)` }),
  rule({ attribute: "employer", mode: "add", value: "proper", pattern: String.raw`(?:side (?:gig|hustle|job|project)|freelanc\w*|part-time|moonlight\w*|on the side|second job|also work\w*|consult\w*) (?:at|for|with)\s+${PROPER}` }),
  rule({ attribute: "employer", mode: "end", value: "proper", anchored: true, pattern: String.raw`${START}(?:left|quit|resigned from|was laid off (?:from|by)|got laid off (?:from|by)|was let go (?:from|by)|got let go (?:from|by)|got fired from|was fired from|retired from|no longer work (?:at|for)|stopped working (?:at|for)|handed in my notice at)\s+${PROPER}` }),
  rule({ negated: true, attribute: "employer", mode: "end", value: "proper", anchored: true, pattern: String.raw`${START}(?:am |is |are )?(?:no longer|not) (?:at|with|working (?:at|for))\s+${PROPER}` }),
  rule({ attribute: "employer", mode: "end", value: "proper", pattern: String.raw`(?:last|final) (?:day|shift) (?:at|with)\s+${PROPER}` }),
  rule({ attribute: "employer", mode: "end", value: "fixed", fixed: "*", anchored: true, pattern: String.raw`${START}(?:quit|left|lost) (?:my|his|her|our) (?:job|position|role)|${START}(?:got|was|been) (?:laid off|let go|fired)\b|${START}(?:am|'m|is|'s) (?:now )?(?:unemployed|between jobs|out of work|retired)\b|${START}(?:handed|turned|gave) (?:in|back) my (?:badge|notice|resignation|work laptop|keycard|lanyard)\b` }),

  // What someone does.
  rule({ attribute: "role", mode: "set", value: "role", anchored: true, pattern: String.raw`${START}(?:am|'m|is|'s|are|'re|been|work as|works as|working as|started as|start as|hired as|joined as|now) (?:(?:now |officially |finally )?(?:a|an|the) |(?:now |officially |finally )+)(?<v>${ROLE_VALUE})\b` }),
  rule({ attribute: "role", mode: "set", value: "role", pattern: String.raw`^${OPENER}(?:now |officially |finally )+(?:a|an) (?<v>${ROLE_VALUE})\b` }),
  rule({ attribute: "role", mode: "set", value: "role", pattern: String.raw`promoted (?:to|as) (?:a |an |the )?(?<v>${ROLE_VALUE})\b` }),
  rule({ attribute: "role", mode: "set", value: "role", pattern: String.raw`(?:my|our) new (?:title|role|position|job title|job) (?:is )?(?:as )?(?:a |an |the )?(?<v>${ROLE_VALUE})\b` }),
  rule({ attribute: "role", mode: "set", value: "role", anchored: true, pattern: String.raw`${START}(?:became|become|becoming|got hired as|got the job as|was made|got made) (?:a|an|the) (?<v>${ROLE_VALUE})\b` }),
  rule({ attribute: "role", mode: "set", value: "role", pattern: String.raw`^${OPENER}(?:${NUM}) (?:years?|months?) (?:now )?as (?:a|an) (?<v>${ROLE_VALUE})\b` }),

  // Where someone studies.
  rule({ attribute: "school", mode: "set", value: "proper", pattern: String.raw`\b(?:${STUDY}|year of [\p{L} '’-]{2,40}?)(?: [\w'’-]+){0,4}? (?:at|in (?=\S*${SCHOOL_WORD}))\s*${PROPER}` }),
  rule({ attribute: "school", mode: "set", value: "proper", anchored: true, pattern: String.raw`${START}(?:study|studying|studied|enrolled|am enrolled|enrolled in \w+) (?:(?:my|a|an|the) )?(?:[\w'’-]+ ){0,3}?(?:at|in) ${PROPER}` }),
  rule({ attribute: "school", mode: "set", value: "proper", anchored: true, pattern: String.raw`(?=.*\b(?:${STUDY}|${SCHOOL_WORD}))${START}(?:transferred|switched|moved) (?:schools |universities |programs |programmes )?(?:from ${NAME} )?to\s+${PROPER}` }),
  rule({ whole: true, attribute: "school", mode: "set", value: "proper", pattern: String.raw`\b(?:${NUM}) (?:years?|semesters?) (?:now )?(?:at|in)\s+(?=\S*${SCHOOL_WORD})${PROPER_LAZY}(?=\s*(?:$|[.!,;:)]|today|this\b|now|and\b))` }),

  // What someone drives.
  rule({ attribute: "car", mode: "set", value: "proper", pattern: String.raw`(?:my|our) (?:[\w'’-]+ ){0,2}?(?:\d{4} )?(?<v>(?:${CAR})(?: (?:${CAR}|\p{Lu}[\p{L}\d-]*))?)\b` }),
  rule({ attribute: "car", mode: "set", value: "proper", pattern: String.raw`(?:driving|drive|drives|bought|got|picked up|leased|leasing|traded (?:it |up )?for|upgraded to|keys (?:to|for)) (?:a|an|my|our|the) (?:new |used |secondhand |second-hand |shiny |electric )*(?:\d{4} )?(?<v>(?:${CAR})(?: (?:${CAR}|\p{Lu}[\p{L}\d-]*))?)\b` }),
  rule({ attribute: "car", mode: "end", value: "proper", pattern: String.raw`(?:sold|traded in|scrapped|totaled|totalled|wrote off|got rid of|said goodbye to) (?:my|our|the) (?:old |trusty |beloved )*(?:\d{4} )?(?<v>(?:${CAR})(?: (?:${CAR}|\p{Lu}[\p{L}\d-]*))?)\b` })
]

/** Every rule, in the order they are tried (a clause may state several facts). */
export const factRules: ReadonlyArray<FactRule> = [...lifeFactRules, ...personalFactRules]
