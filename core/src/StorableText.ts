/**
 * The one rule for text PostgreSQL cannot store. PostgreSQL text cannot hold U+0000, and an
 * unpaired UTF-16 surrogate is not a Unicode character at all (UTF-8 cannot encode it). So every
 * string a caller sends — JSON fields, query parameters, multipart fields, file names, the text of
 * uploaded files — passes through `storableText` where it enters the service: U+0000 is dropped
 * (as normalization drops every other control character) and each unpaired surrogate becomes
 * U+FFFD, the replacement character (as WHATWG's USVString conversion does). Nothing is refused
 * for them, and no statement ever meets them.
 * @module
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is what this removes
const nul = /\u0000/g
const unpairedSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** `text` with U+0000 removed and unpaired surrogates replaced by U+FFFD. */
export const storableText = (text: string): string =>
  text.replace(nul, "").replace(unpairedSurrogate, "\uFFFD")

/**
 * `end`, moved back one code unit when it would fall between the halves of a surrogate pair (an
 * emoji, say): text cut there would end in a lone surrogate, which is no text at all.
 */
export const pairSafeEnd = (text: string, end: number): number => {
  const unit = text.charCodeAt(end)
  return unit >= 0xdc00 && unit <= 0xdfff && end > 0 ? end - 1 : end
}

/** `text` cut to at most `max` code units, ending in "…" when cut, never inside a surrogate pair. */
export const clipText = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, pairSafeEnd(text, max - 1)).trimEnd()}…`
