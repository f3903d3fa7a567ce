/**
 * The BM25 baseline of the dataset's README (k1 1.2, b 0.75, English stop words, no stemming),
 * computed in the benchmark process over the same turns, to stand beside UMO's ranking.
 */

// The usual English stop-word list (Lucene / NLTK style), with contractions.
const stopWords = new Set(
  `a an the and or but if of to in on at by for with about against between into through during
  before after above below from up down out off over under again further then once here there when
  where why how all any both each few more most other some such no nor not only own same so than too
  very s t can will just don should now i me my myself we our ours ourselves you your yours yourself
  yourselves he him his himself she her hers herself it its itself they them their theirs themselves
  what which who whom this that these those am is are was were be been being have has had having do
  does did doing would could ought i'm you're he's she's it's we're they're i've you've we've they've
  i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't aren't wasn't weren't
  hasn't haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't can't cannot couldn't
  mustn't let's that's who's what's here's there's when's where's why's how's`.split(/\s+/)
)

export const tokens = (text: string): Array<string> =>
  (
    text
      .toLowerCase()
      .replace(/’/g, "'")
      .match(/[a-z0-9']+/g) ?? []
  )
    .map((w) => w.replace(/'s$/, ""))
    .filter((w) => w !== "" && !stopWords.has(w))

/** An index over documents; `score(query)` gives every document's BM25 score, in order. */
export const index = (documents: ReadonlyArray<string>, k1 = 1.2, b = 0.75) => {
  const docs = documents.map((d) => {
    const tf = new Map<string, number>()
    const words = tokens(d)
    for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1)
    return { tf, length: words.length }
  })
  const df = new Map<string, number>()
  for (const d of docs) for (const w of d.tf.keys()) df.set(w, (df.get(w) ?? 0) + 1)
  const averageLength = docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, docs.length)
  const idf = (w: string) => {
    const n = df.get(w) ?? 0
    return Math.log(1 + (docs.length - n + 0.5) / (n + 0.5))
  }
  return {
    score: (query: string): Array<number> => {
      const terms = [...new Set(tokens(query))]
      return docs.map((d) => {
        let score = 0
        for (const w of terms) {
          const f = d.tf.get(w)
          if (f === undefined) continue
          score += (idf(w) * f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.length) / averageLength))
        }
        return score
      })
    }
  }
}
