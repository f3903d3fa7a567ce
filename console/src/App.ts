/**
 * The console's shell: sign-in until a key works, then the header, the current view and the
 * pinned keys. Moving to a view moves focus to its heading, so screen readers announce it.
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { type ConsoleSession, resumeSession, SessionContext, signOut } from "./api/Session.js"
import { html } from "./html.js"
import { type Route, useRoute } from "./Router.js"
import { ChainTimeline } from "./views/ChainTimeline.js"
import { Header } from "./views/Header.js"
import { MemoryDetail } from "./views/MemoryDetail.js"
import { MemoryList } from "./views/MemoryList.js"
import { SearchAndAsk } from "./views/SearchAndAsk.js"
import { SignIn } from "./views/SignIn.js"
import { UploadFile } from "./views/UploadFile.js"

const titles: Record<Route["name"], string> = {
  memories: "Memories",
  memory: "Memory",
  search: "Search and ask",
  upload: "Upload",
  chain: "Chain",
  missing: "Not found"
}

const view = (route: Route) => {
  switch (route.name) {
    case "memories":
      return html`<${MemoryList} />`
    case "memory":
      return html`<${MemoryDetail} key=${route.id} id=${route.id} />`
    case "search":
      return html`<${SearchAndAsk} />`
    case "upload":
      return html`<${UploadFile} />`
    case "chain":
      return html`<${ChainTimeline} />`
    case "missing":
      return html`<h1 tabindex="-1">Not found</h1>
        <p>The console has no page at <code>${route.path}</code>.</p>`
  }
}

export const App = () => {
  // undefined while a key stored in this tab is being checked.
  const [session, setSession] = useState<ConsoleSession | null | undefined>(undefined)
  const route = useRoute()
  const first = useRef(true)

  useEffect(() => {
    resumeSession().then((resumed) => setSession(resumed ?? null))
  }, [])

  useEffect(() => {
    document.title = `${session ? titles[route.name] : "Sign in"} · UMO console`
    if (first.current) {
      first.current = false
      return
    }
    document.querySelector<HTMLElement>("main h1")?.focus()
  }, [route, session])

  if (session === undefined)
    return html`<main id="main" class="centered"><p role="status">Loading the console…</p></main>`
  if (session === null) return html`<${SignIn} onSignedIn=${setSession} />`

  const onSignOut = () => {
    signOut()
    setSession(null)
  }
  return html`
    <${SessionContext.Provider} value=${session}>
      <a class="skip-link" href="#main">Skip to content</a>
      <${Header} route=${route} onSignOut=${onSignOut} />
      <main id="main" tabindex="-1">${view(route)}</main>
      <footer class="site-footer">
        <p>
          Proofs are checked in this browser against the signing keys pinned at sign-in:
          ${session.pinned.keys.map((key) => html` <code key=${String(key.kid)}>${String(key.kid).slice(0, 16)}…</code>`)}
        </p>
      </footer>
    <//>
  `
}
