import { html } from "../html.js"
import { AskPanel } from "./AskPanel.js"
import { SearchPanel } from "./SearchPanel.js"

/** Semantic search (no model involved) beside answers written from the memories, with citations. */
export const SearchAndAsk = () => html`
  <h1 tabindex="-1">Search and ask</h1>
  <div class="columns">
    <${SearchPanel} />
    <${AskPanel} />
  </div>
`
