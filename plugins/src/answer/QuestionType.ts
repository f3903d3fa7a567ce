import type { QuestionType } from "@umo/core"

const rules: ReadonlyArray<readonly [QuestionType, RegExp]> = [
  ["quantity", /^\s*(how (many|much|long|far|old|often|big|tall)|what (number|percentage|amount|price))\b/i],
  ["temporal", /^\s*(when|what (time|year|date|day|month)|which (year|day|month|date)|how long ago)\b/i],
  ["location", /^\s*(where|what (place|city|country|town)|which (place|city|country|town))\b/i],
  ["person", /^\s*(who|whom|whose|which (person|people))\b/i],
  ["list", /^\s*(list|name|what (are|were) (the|all|some)|which .* (and|or) )/i],
  // "What pets does she have?", "Which languages does he speak?": a plural asks for every one.
  [
    "list",
    /^\s*(what|which)( (kinds?|sorts?|types?) of)? [a-z]+(?<!ss|us|is|as|ous)s (do|does|did|has|have|had|is|are|was|were|can)\b/i
  ],
  ["yes_no", /^\s*(is|are|was|were|do|does|did|can|could|will|would|has|have|had|should|shall|may|might)\b/i],
  ["factual", /^\s*(what|which|how)\b/i]
]

/** The kind of answer a question asks for, from its opening words. */
export const questionType = (question: string): QuestionType =>
  rules.find(([, pattern]) => pattern.test(question))?.[0] ?? "open"

/** The entity types that answer each kind of question, best first. */
export const wantedEntityTypes: Readonly<Record<QuestionType, ReadonlyArray<string>>> = {
  person: ["PERSON", "ORGANIZATION"],
  location: ["LOCATION", "ORGANIZATION"],
  temporal: ["DATE", "TIME", "DURATION"],
  quantity: ["MONEY", "PERCENT", "QUANTITY", "DURATION"],
  yes_no: [],
  list: [],
  factual: [],
  open: []
}

/** Words by which a question asks how things stand now ("now", "these days", "still"). */
export const nowWords =
  /\b(?:now|currently|these days|nowadays|at the moment|still|anymore|any more|right now)\b/i

/** Words by which a question asks whether something still holds ("Is she still vegan?"). */
export const stillWords = /\b(?:still|anymore|any more)\b/i

/** Whether a question about the past asks for the first value of all ("the original date", "at first"). */
export const asksForTheFirst = (question: string): boolean =>
  /\b(?:original|originally|initially|at first|in the first place|first (?:planned|booked|set|scheduled|picked|chose|chosen|signed up for))\b/i.test(
    question
  )

/**
 * Whether a question asks about an earlier state of things ("Where did she live before Lisbon?",
 * "What was his old number?", "Where did he use to work?"): then replaced memories answer it.
 */
export const asksAboutThePast = (question: string): boolean =>
  /\b(?:before|previous(?:ly)?|formerly|former|originally|original|initially|first (?:planned|booked|set|scheduled|called)|(?<!\b(?:be|is|are|was|were|been|being|get|gets|got|getting) )used to|use to|when (?:she|he|they|I|we|you|\p{Lu}[\p{L}'’-]+) (?:still )?(?:was|were|had|lived|worked|studied|drove|dated)|at first|in the past|prior to|earlier|(?<!how )old|no longer|anymore|any more|ex-?(?:wife|husband|partner|boyfriend|girlfriend))\b/iu.test(
    question
  )
