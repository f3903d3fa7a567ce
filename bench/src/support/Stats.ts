/** The value at quantile `p` of ascending `sorted` values (0 when there are none). */
export const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!

export const round1 = (x: number) => Math.round(x * 10) / 10
