/** How the console writes dates and numbers: in the reader's locale, with the UTC value in `title`. */
export const formatTime = (iso: string) => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
}

export const percent = (fraction: number) => `${Math.round(fraction * 100)}%`

/** The start of a long hash, enough to tell two apart at a glance. */
export const shortHash = (hash: string) => (hash.length > 16 ? `${hash.slice(0, 12)}…` : hash)
