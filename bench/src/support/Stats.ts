/** The value at quantile `p` of ascending `sorted` values (0 when there are none). */
export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!

export const round1 = (x: number) => Math.round(x * 10) / 10

/** Median and 95th percentile of unsorted samples, to a tenth. */
export const p50p95 = (samples: ReadonlyArray<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: round1(percentile(sorted, 0.5)), p95: round1(percentile(sorted, 0.95)) }
}

/** ROC AUC of scores against labels, by ranks (tied scores share their mean rank); NaN without both labels. */
export const rocAuc = (scores: ReadonlyArray<number>, labels: ReadonlyArray<boolean>): number => {
  const order = scores.map((_, i) => i).sort((a, b) => scores[a]! - scores[b]!)
  const ranks = new Array<number>(scores.length)
  for (let i = 0; i < order.length; ) {
    let j = i
    while (j + 1 < order.length && scores[order[j + 1]!] === scores[order[i]!]) j++
    for (let k = i; k <= j; k++) ranks[order[k]!] = (i + j) / 2 + 1
    i = j + 1
  }
  const positives = labels.filter(Boolean).length
  const negatives = labels.length - positives
  const rankSum = ranks.reduce((sum, r, i) => sum + (labels[i] ? r : 0), 0)
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives)
}
