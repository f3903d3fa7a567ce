/** The value at quantile `p` of ascending `sorted` values (0 when there are none). */
export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!

export const round1 = (x: number) => Math.round(x * 10) / 10

/** Median and 95th percentile of unsorted samples, to a tenth. */
export const p50p95 = (samples: ReadonlyArray<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: round1(percentile(sorted, 0.5)), p95: round1(percentile(sorted, 0.95)) }
}
