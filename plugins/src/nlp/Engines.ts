import { createRequire } from "node:module"
import type nlp from "compromise"
import model from "wink-eng-lite-web-model"
import winkNLP, { type Document as WinkDocument } from "wink-nlp"

// Both engines are pure in-memory models loaded once per process; loading wink's model takes a
// few milliseconds. compromise with its dates plugin takes about half a second, so it loads on
// first use (its bundled CommonJS build, synchronously), not at import: the server starts it in
// the background while it starts (`warmUp`), a process that never reads text never pays for it.
// Its plugin registration is global by design.
const wink = winkNLP(model)
const require = createRequire(import.meta.url)
let loaded: typeof nlp | undefined
const loadCompromise = (): typeof nlp => {
  if (loaded === undefined) {
    const engine = require("compromise") as typeof nlp
    engine.plugin(require("compromise-dates"))
    loaded = engine
  }
  return loaded
}

/** compromise, with the dates plugin registered: parses `text`. */
export const compromise = (text: string) => loadCompromise()(text)

export const its = wink.its

// wink's lexicon: the words of English, without the names of places, companies and people.
const lexicon = wink.readDoc("")

/** Whether a word is one of English's (wink's lexicon, case-blind) rather than a name. */
export const isEnglishWord = (word: string): boolean => !lexicon.isOOV(word.toLowerCase())

/** Parses text with wink-nlp (tokens, sentences, entities, POS, sentiment). */
export const readWink = (text: string): WinkDocument => wink.readDoc(text)

/**
 * Character offsets of every wink token, found by searching each token's value forward from the
 * end of the previous one (wink keeps token values verbatim, so they appear in order).
 */
export const tokenOffsets = (
  text: string,
  doc: WinkDocument
): ReadonlyArray<{ start: number; end: number }> => {
  const values = doc.tokens().out(its.value) as Array<string>
  const offsets: Array<{ start: number; end: number }> = []
  let cursor = 0
  for (const value of values) {
    const start = text.indexOf(value, cursor)
    const at = start === -1 ? cursor : start
    offsets.push({ start: at, end: at + value.length })
    cursor = at + value.length
  }
  return offsets
}
