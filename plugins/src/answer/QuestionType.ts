import type { QuestionType } from "@umo/core"

const rules: ReadonlyArray<readonly [QuestionType, RegExp]> = [
  ["quantity", /^\s*(how (many|much|long|far|old|often|big|tall)|what (number|percentage|amount|price))\b/i],
  ["temporal", /^\s*(when|what (time|year|date|day|month)|which (year|day|month|date)|how long ago)\b/i],
  ["location", /^\s*(where|what (place|city|country|town)|which (place|city|country|town))\b/i],
  ["person", /^\s*(who|whom|whose|which (person|people))\b/i],
  ["list", /^\s*(list|name|what (are|were) (the|all|some)|which .* (and|or) )/i],
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
