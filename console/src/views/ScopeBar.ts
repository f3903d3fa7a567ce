/**
 * The scope bar over the memory list and "Search and ask": user, agent and session fields and the
 * "include superseded" toggle, applied to the address (Scope.ts) and so to every list, search and
 * ask request; with a user, agent or session set, erasing that scope.
 * @module
 */
import type { ScopeSummary } from "@umo/client"
import { useEffect, useState } from "preact/hooks"
import { useSession } from "../api/Session.js"
import { html } from "../html.js"
import { type ConsoleScope, namesScope, noScope, scopeFields, scopeQuery } from "../Scope.js"
import { EraseScope } from "./EraseScope.js"

const inputValue = (event: Event) => (event.target as HTMLInputElement).value

/**
 * The account's ids of one kind of scope starting with what the field holds, most recently active
 * first (`GET /v1/scopes`): offered under the field as it is typed in.
 */
const useScopeIds = (kind: ScopeSummary["kind"], prefix: string) => {
  const { client } = useSession()
  const [ids, setIds] = useState<ReadonlyArray<ScopeSummary>>([])
  useEffect(() => {
    let current = true
    client
      .scopes({ kind, limit: 20, ...(prefix.trim() === "" ? {} : { prefix: prefix.trim() }) })
      .then((page) => current && setIds(page.scopes))
      // Suggestions only: the field works without them.
      .catch(() => current && setIds([]))
    return () => {
      current = false
    }
  }, [client, kind, prefix])
  return ids
}

const ScopeField = (props: {
  word: "user" | "agent" | "session"
  name: string
  value: string
  onValue: (value: string) => void
}) => {
  const { word, name, value } = props
  const ids = useScopeIds(word, value)
  return html`
    <div class="field">
      <label for=${`scope-${word}`}>${word[0]!.toUpperCase() + word.slice(1)}</label>
      <input
        id=${`scope-${word}`}
        name=${name}
        list=${`scope-${word}-ids`}
        maxlength="200"
        spellcheck="false"
        autocomplete="off"
        placeholder=${`any ${word}`}
        value=${value}
        onInput=${(event: Event) => props.onValue(inputValue(event))}
      />
      <datalist id=${`scope-${word}-ids`}>
        ${ids.map(
          (scope) => html`<option key=${scope.id} value=${scope.id}>${scope.memories} memories</option>`
        )}
      </datalist>
    </div>
  `
}

export const ScopeBar = (props: {
  scope: ConsoleScope
  onScope: (next: ConsoleScope) => void
  onErased: () => void
}) => {
  const { scope, onScope } = props
  const [draft, setDraft] = useState(scope)
  // Back/forward or a link changes the scope under the form: show what is applied.
  useEffect(() => setDraft(scope), [scope])

  const trimmed = (next: ConsoleScope): ConsoleScope => ({
    userId: next.userId.trim(),
    agentId: next.agentId.trim(),
    sessionId: next.sessionId.trim(),
    includeSuperseded: next.includeSuperseded
  })
  const apply = (event: SubmitEvent) => {
    event.preventDefault()
    onScope(trimmed(draft))
  }
  // The toggle applies at once, with what the fields hold.
  const toggle = (event: Event) => {
    const next = trimmed({ ...draft, includeSuperseded: (event.target as HTMLInputElement).checked })
    setDraft(next)
    onScope(next)
  }

  return html`
    <form class="scope-bar" role="search" aria-label="Scope" onSubmit=${apply}>
      ${scopeFields.map(
        ([field, name, word]) => html`
          <${ScopeField}
            key=${name}
            word=${word}
            name=${name}
            value=${draft[field]}
            onValue=${(value: string) => setDraft({ ...draft, [field]: value })}
          />
        `
      )}
      <div class="scope-actions">
        <label class="check">
          <input type="checkbox" checked=${draft.includeSuperseded} onChange=${toggle} />
          Include superseded memories
        </label>
        <button type="submit">Apply scope</button>
        ${
          scopeQuery(scope) === ""
            ? null
            : html`<button type="button" class="secondary" onClick=${() => onScope(noScope)}>Clear scope</button>`
        }
      </div>
    </form>
    ${namesScope(scope) ? html`<${EraseScope} key=${scopeQuery(scope)} scope=${scope} onErased=${props.onErased} />` : null}
  `
}
