import { useSession } from "../api/Session.js"
import { html } from "../html.js"
import { hrefOf, Link, type Route } from "../Router.js"
import { scopeQuery, useScope } from "../Scope.js"

/** Each section: its label, path, the routes it covers, and whether it reads within the scope. */
const sections: ReadonlyArray<readonly [string, string, ReadonlyArray<Route["name"]>, boolean]> = [
  ["Memories", "/memories", ["memories", "memory"], true],
  ["Search and ask", "/search", ["search"], true],
  ["Upload", "/upload", ["upload"], false],
  ["Chain", "/chain", ["chain"], false]
]

/** The banner: the console's name, its sections (the scoped ones keep the scope), and who is signed in. */
export const Header = (props: { route: Route; onSignOut: () => void }) => {
  const { account } = useSession()
  const query = scopeQuery(useScope()[0])
  return html`
    <header class="site-header">
      <${Link} class="brand" href=${hrefOf("/memories")}>UMO console<//>
      <nav aria-label="Sections">
        <ul>
          ${sections.map(
            ([label, path, names, scoped]) => html`
              <li key=${path}>
                <${Link} href=${hrefOf(path) + (scoped ? query : "")} aria-current=${names.includes(props.route.name) ? "page" : undefined}>
                  ${label}
                <//>
              </li>
            `
          )}
        </ul>
      </nav>
      <div class="account">
        <span>Signed in as <strong>${account.name}</strong> (<code>${account.keyId}</code>)</span>
        <button type="button" class="secondary" onClick=${props.onSignOut}>Sign out</button>
      </div>
    </header>
  `
}
