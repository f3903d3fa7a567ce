import { palette, xmlText } from "./Chart.js"

/** Lines over a shared x axis as a standalone SVG, both axes 0 to `max` (a precision/recall plot). */
export interface LineChart {
  readonly title: string
  readonly xLabel: string
  readonly yLabel: string
  readonly max: number
  readonly series: ReadonlyArray<{
    readonly name: string
    readonly points: ReadonlyArray<readonly [number, number]>
  }>
}

export const lineChart = (chart: LineChart): string => {
  const width = 760
  const legendRows = Math.ceil(chart.series.length / 3)
  const height = 420 + legendRows * 18
  const margin = { top: 48, right: 20, bottom: 48 + legendRows * 18, left: 56 }
  const plotW = width - margin.left - margin.right
  const plotH = height - margin.top - margin.bottom
  const x = (v: number) => margin.left + (v / chart.max) * plotW
  const y = (v: number) => margin.top + plotH - (v / chart.max) * plotH
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => t * chart.max)
  const grid = ticks
    .map(
      (t) =>
        `<line x1="${x(0)}" y1="${y(t)}" x2="${x(chart.max)}" y2="${y(t)}" stroke="#e5e7eb"/>` +
        `<text x="${x(0) - 6}" y="${y(t) + 4}" text-anchor="end" font-size="11">${t}</text>` +
        `<text x="${x(t)}" y="${y(0) + 16}" text-anchor="middle" font-size="11">${t}</text>`
    )
    .join("")
  const lines = chart.series
    .map((s, i) => {
      const colour = palette[i % palette.length]
      const path = s.points
        .map(([px, py], k) => `${k === 0 ? "M" : "L"}${x(px).toFixed(1)},${y(py).toFixed(1)}`)
        .join(" ")
      const legendX = margin.left + (i % 3) * 230
      const legendY = height - margin.bottom + 40 + Math.floor(i / 3) * 18
      return (
        `<path d="${path}" fill="none" stroke="${colour}" stroke-width="2"/>` +
        `<rect x="${legendX}" y="${legendY - 9}" width="10" height="10" fill="${colour}"/>` +
        `<text x="${legendX + 14}" y="${legendY}" font-size="11">${xmlText(s.name)}</text>`
      )
    })
    .join("")
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${width / 2}" y="24" text-anchor="middle" font-size="15">${xmlText(chart.title)}</text>
${grid}
<text x="${x(chart.max / 2)}" y="${y(0) + 34}" text-anchor="middle" font-size="12">${xmlText(chart.xLabel)}</text>
<text x="16" y="${y(chart.max / 2)}" text-anchor="middle" font-size="12" transform="rotate(-90 16 ${y(chart.max / 2)})">${xmlText(chart.yLabel)}</text>
${lines}
</svg>
`
}
