import { useState } from "preact/hooks"
import { html } from "../html.js"
import { scopeQuery, useScope } from "../Scope.js"
import { AskPanel } from "./AskPanel.js"
import { ScopeBar } from "./ScopeBar.js"
import { SearchPanel } from "./SearchPanel.js"

/**
 * Semantic search (no model involved) beside answers written from the memories, with citations;
 * both within the scope of the address. A new scope, or an erasure, clears their results.
 */
export const SearchAndAsk = () => {
  const [scope, setScope] = useScope()
  const [epoch, setEpoch] = useState(0)
  const within = `${scopeQuery(scope)} ${epoch}`
  return html`
    <h1 tabindex="-1">Search and ask</h1>
    <${ScopeBar} scope=${scope} onScope=${setScope} onErased=${() => setEpoch(epoch + 1)} />
    <div class="columns">
      <${SearchPanel} scope=${scope} within=${within} />
      <${AskPanel} scope=${scope} within=${within} />
    </div>
  `
}
