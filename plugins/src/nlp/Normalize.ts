import { addMessage, type Draft, makePlugin, type Plugin, type Sentence } from "@umo/core"
import { Effect } from "effect"
import { franc } from "franc-min"
import { its, readWink } from "./Engines.js"
import { runNlp } from "./Workers.js"

// C0/C1 control characters except tab and newline, plus zero-width space and BOM. Zero-width
// joiners stay: they are part of emoji sequences.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const controlCharacters = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B\uFEFF]/g
const horizontalSpace = /[\t\p{Zs}]+/gu

/**
 * A character `normalizeText` keeps: anything but a control character, a space or a line break
 * (those above, every Unicode space, zero-width space and BOM). Text without one normalizes to
 * nothing; the capture stage refuses it, and the API states the rule as a pattern.
 */
export const visibleCharacter =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it excludes
  /[^\u0000-\u0020\u007F-\u00A0\u1680\u2000-\u200B\u2028\u2029\u202F\u205F\u3000\uFEFF]/u

/**
 * Normalizes text: Unicode NFC, line breaks as `\n`, control characters removed, runs of spaces
 * (any Unicode space, tabs) as one space, lines trimmed, at most one blank line in a row, no
 * leading or trailing whitespace. Idempotent: normalizing twice gives the same text.
 */
export const normalizeText = (text: string): string =>
  text
    .replace(/\r\n?|[\u2028\u2029\u0085]/g, "\n")
    .replace(controlCharacters, "")
    .replace(horizontalSpace, " ")
    .split("\n")
    .map((line) => line.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()
    // Last, so removing a control character between a letter and its combining mark still
    // leaves composed text.
    .normalize("NFC")

/** Sentences of normalized text as offsets, from wink-nlp's sentence splitter. */
export const splitSentences = (text: string): ReadonlyArray<Sentence> => {
  const sentences: Array<Sentence> = []
  let cursor = 0
  for (const sentence of readWink(text).sentences().out(its.value) as Array<string>) {
    const start = text.indexOf(sentence, cursor)
    if (start === -1) continue
    sentences.push({ start, end: start + sentence.length })
    cursor = start + sentence.length
  }
  return sentences
}

/** ISO 639-3 code of the text's language, or `und` when the text is too short to tell. */
export const guessLanguage = (text: string): string => franc(text, { minLength: 24 })

/** A text normalized, its language guessed and its sentences found: the normalize stage's reading. */
export const readNormalized = (text: string) => {
  const content = normalizeText(text)
  return content.length === 0
    ? { content, language: "und", sentences: [] }
    : { content, language: guessLanguage(content), sentences: splitSentences(content) }
}

/**
 * The normalize stage: normalized content, its sentences and a language guess (on an NLP worker
 * when the text is long or this thread has spent its turn's budget: see `runNlp`).
 */
export const normalize = (): Plugin =>
  makePlugin({
    name: "normalize",
    version: "1.0.0",
    stage: "normalize",
    run: (draft: Draft) =>
      Effect.map(runNlp("normalized", readNormalized, draft.content), ({ content, language, sentences }) => {
        if (content.length === 0) return addMessage(draft, "fatal", "content has no visible characters")
        const next: Draft = { ...draft, content, language, sentences }
        return language !== "eng" && language !== "und"
          ? addMessage(next, "warning", `language looks like "${language}"; extraction is tuned for English`)
          : next
      })
  })
