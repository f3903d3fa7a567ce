/**
 * Who a memory belongs to and what it is about, as badges (`user ana`, `agent concierge`,
 * `session trip-1`, then its categories), and the
 * note that a newer memory superseded it, linking to that one. The memory list and search show them.
 * @module
 */
import { html } from "../html.js"
import { Link, memoryHref } from "../Router.js"

interface Belonging {
  readonly userId: string | null
  readonly agentId: string | null
  readonly sessionId: string | null
  readonly supersededBy: string | null
  readonly categories: ReadonlyArray<string>
}

/** One badge per scope field the memory has, then one per category it is filed under. */
export const ScopeBadges = (props: { item: Belonging }) => {
  const { userId, agentId, sessionId, categories } = props.item
  return [
    ...[
      ["user", userId],
      ["agent", agentId],
      ["session", sessionId]
    ]
      .filter(([, value]) => value !== null)
      .map(
        ([word, value]) =>
          html`<span key=${word} class="chip scope-chip">${word} <strong>${value}</strong></span>`
      ),
    ...categories.map(
      (name) => html`<span key=${`category-${name}`} class="chip category-chip">${name}</span>`
    )
  ]
}

/** "Superseded by <newer memory>", for a memory a newer one replaced; nothing while it is current. */
export const SupersededNote = (props: { item: Belonging; query?: string }) =>
  props.item.supersededBy === null
    ? null
    : html`<span class="superseded-note">
        Superseded by${" "}<${Link} href=${memoryHref(props.item.supersededBy) + (props.query ?? "")}><code>${props.item.supersededBy}</code><//>
      </span>`
