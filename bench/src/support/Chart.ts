/** A grouped bar chart as a standalone SVG: one group per category, one bar per series. */

export interface BarChart {
  readonly title: string
  readonly yLabel: string
  readonly categories: ReadonlyArray<string>
  readonly series: ReadonlyArray<{ readonly name: string; readonly values: ReadonlyArray<number> }>
  /** Top of the y axis (default: the largest value, rounded up to a multiple of 10). */
  readonly yMax?: number
  /** A horizontal reference line, e.g. a target. */
  readonly reference?: { readonly value: number; readonly label: string }
}

/** Series colours, in order: every chart gives its n-th series the same colour. */
export const palette = ["#9aa5b1", "#3b82f6", "#10b981", "#f59e0b", "#ef4444", "#8b5cf6"]
export const xmlText = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

export const barChart = (chart: BarChart): string => {
  const width = 760
  const legendRows = Math.ceil(chart.series.length / 2)
  const height = 340 + legendRows * 18
  const margin = { top: 48, right: 20, bottom: 40 + legendRows * 18, left: 56 }
  const plotW = width - margin.left - margin.right
  const plotH = height - margin.top - margin.bottom
  const largest = Math.max(...chart.series.flatMap((s) => s.values), chart.reference?.value ?? 0)
  const yMax = chart.yMax ?? Math.max(10, Math.ceil(largest / 10) * 10)
  const y = (v: number) => margin.top + plotH - (v / yMax) * plotH
  const groupW = plotW / chart.categories.length
  const barW = (groupW * 0.8) / chart.series.length
  const parts: Array<string> = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="600">${xmlText(chart.title)}</text>`
  ]
  for (let tick = 0; tick <= yMax; tick += yMax / 5) {
    parts.push(
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="#e5e7eb"/>`,
      `<text x="${margin.left - 6}" y="${y(tick) + 4}" text-anchor="end" fill="#4b5563">${Math.round(tick)}</text>`
    )
  }
  parts.push(
    `<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle" fill="#4b5563">${xmlText(chart.yLabel)}</text>`
  )
  chart.categories.forEach((category, c) => {
    const x0 = margin.left + c * groupW + groupW * 0.1
    chart.series.forEach((series, s) => {
      const value = series.values[c] ?? 0
      const x = x0 + s * barW
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y(value).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(margin.top + plotH - y(value)).toFixed(1)}" fill="${palette[s % palette.length]}"/>`,
        `<text x="${(x + barW / 2 - 1).toFixed(1)}" y="${(y(value) - 3).toFixed(1)}" text-anchor="middle" font-size="9" fill="#111827">${value.toFixed(1)}</text>`
      )
    })
    parts.push(
      `<text x="${(x0 + groupW * 0.4).toFixed(1)}" y="${margin.top + plotH + 16}" text-anchor="middle">${xmlText(category)}</text>`
    )
  })
  if (chart.reference) {
    const ry = y(chart.reference.value)
    parts.push(
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${ry}" y2="${ry}" stroke="#dc2626" stroke-dasharray="5 4"/>`,
      `<text x="${width - margin.right}" y="${ry - 4}" text-anchor="end" fill="#dc2626">${xmlText(chart.reference.label)}</text>`
    )
  }
  chart.series.forEach((series, s) => {
    // Two legend entries a row: the names are long.
    const x = margin.left + (s % 2) * 340
    const ly = height - 12 - (legendRows - 1 - Math.floor(s / 2)) * 18
    parts.push(
      `<rect x="${x}" y="${ly - 10}" width="12" height="12" fill="${palette[s % palette.length]}"/>`,
      `<text x="${x + 17}" y="${ly}">${xmlText(series.name)}</text>`
    )
  })
  parts.push("</svg>")
  return `${parts.join("\n")}\n`
}
