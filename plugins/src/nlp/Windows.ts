import { pairSafeEnd } from "@umo/core"

/** A stretch of a text, by character offsets (end exclusive). */
export interface Window {
  readonly start: number
  readonly end: number
}

/** Most characters the NLP engines read at once (about a page). */
export const windowChars = 4_000

// Breaks to cut at, best first: a paragraph, a sentence end, any white space.
const breaks = [/\n\s*\n/g, /[.!?…]["')\]]*\s+/g, /\s+/g]

/** Where a window that may run to `limit` ends: after the last break of the best kind in its second half. */
const cutAt = (text: string, start: number, limit: number): number => {
  const half = start + Math.floor((limit - start) / 2)
  const stretch = text.slice(half, limit)
  for (const pattern of breaks) {
    let last = -1
    for (const match of stretch.matchAll(pattern)) last = match.index + match[0].length
    if (last > 0) return half + last
  }
  return pairSafeEnd(text, limit)
}

/**
 * Cuts a text into consecutive windows of at most `size` characters that end at paragraph or
 * sentence breaks where the text has them. The engines' cost grows faster than the length of
 * what they read (compromise's date parsing took 2 s for 20,000 characters and 20 s for 80,000),
 * so reading a long capture window by window keeps extraction linear in its length; a text no
 * longer than `size` is one window, read as before.
 */
export const windows = (text: string, size = windowChars): ReadonlyArray<Window> => {
  const found: Array<Window> = []
  let start = 0
  while (text.length - start > size) {
    const end = cutAt(text, start, start + size)
    found.push({ start, end })
    start = end
  }
  if (start < text.length || found.length === 0) found.push({ start, end: text.length })
  return found
}
