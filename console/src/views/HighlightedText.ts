/**
 * A text with its entities in `<mark>` elements. The service gives the offsets of each entity's
 * first mention; later mentions of the same words are marked too. Each mark carries its type as
 * text for screen readers, not only as a colour.
 * @module
 */
import type { Entity } from "@umo/client"
import { html } from "../html.js"

interface Span {
  readonly start: number
  readonly end: number
  readonly type: string
}

/** Non-overlapping spans of the entities in `text`, in order: the longest wins where two overlap. */
export const entitySpans = (text: string, entities: ReadonlyArray<Entity>): ReadonlyArray<Span> => {
  const found: Array<Span> = []
  for (const entity of entities) {
    if (entity.text.trim() === "") continue
    if (text.slice(entity.start, entity.end) === entity.text)
      found.push({ start: entity.start, end: entity.end, type: entity.type })
    for (let at = text.indexOf(entity.text); at !== -1; at = text.indexOf(entity.text, at + 1))
      found.push({ start: at, end: at + entity.text.length, type: entity.type })
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end)
  const spans: Array<Span> = []
  for (const span of found) {
    const last = spans.at(-1)
    if (last === undefined || span.start >= last.end) spans.push(span)
  }
  return spans
}

const typeClass = (type: string) => `entity entity-${type.toLowerCase().replace(/[^a-z]/g, "")}`

export const HighlightedText = (props: { text: string; entities: ReadonlyArray<Entity> }) => {
  const parts: Array<unknown> = []
  let at = 0
  for (const span of entitySpans(props.text, props.entities)) {
    if (span.start > at) parts.push(props.text.slice(at, span.start))
    parts.push(
      html`<mark class=${typeClass(span.type)} data-type=${span.type} title=${span.type}
        >${props.text.slice(span.start, span.end)}<span class="visually-hidden"> (${span.type})</span></mark
      >`
    )
    at = span.end
  }
  if (at < props.text.length) parts.push(props.text.slice(at))
  return html`<p class="highlighted">${parts}</p>`
}

/** The entity types present, with the colour each is marked in. */
export const EntityLegend = (props: { entities: ReadonlyArray<Entity> }) => {
  const types = [...new Set(props.entities.map((entity) => entity.type))]
  if (types.length === 0) return null
  return html`<ul class="legend" aria-label="Entity types">
    ${types.map((type) => html`<li key=${type}><mark class=${typeClass(type)}>${type}</mark></li>`)}
  </ul>`
}
