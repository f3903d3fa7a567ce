import { useSession } from "../api/Session.js"
import { html } from "../html.js"
import { hrefOf, Link, type Route } from "../Router.js"

const sections: ReadonlyArray<readonly [string, string, ReadonlyArray<Route["name"]>]> = [
  ["Memories", "/memories", ["memories", "memory"]],
  ["Search and ask", "/search", ["search"]],
  ["Upload", "/upload", ["upload"]],
  ["Chain", "/chain", ["chain"]]
]

/** The banner: the console's name, its sections, and who is signed in. */
export const Header = (props: { route: Route; onSignOut: () => void }) => {
  const { account } = useSession()
  return html`
    <header class="site-header">
      <${Link} class="brand" href=${hrefOf("/memories")}>UMO console<//>
      <nav aria-label="Sections">
        <ul>
          ${sections.map(
            ([label, path, names]) => html`
              <li key=${path}>
                <${Link} href=${hrefOf(path)} aria-current=${names.includes(props.route.name) ? "page" : undefined}>
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
