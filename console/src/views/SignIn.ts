import { useState } from "preact/hooks"
import { type ConsoleSession, describeError, signIn } from "../api/Session.js"
import { html } from "../html.js"

/** The sign-in page: an API key, checked with the server; a refusal shows the server's `detail`. */
export const SignIn = (props: { onSignedIn: (session: ConsoleSession) => void }) => {
  const [key, setKey] = useState("")
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    try {
      props.onSignedIn(await signIn(key))
    } catch (failure) {
      setError(describeError(failure))
      setBusy(false)
    }
  }

  return html`
    <main id="main" class="sign-in">
      <h1>Sign in to the UMO console</h1>
      <form onSubmit=${submit} aria-describedby="key-help">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck="false"
          required
          value=${key}
          onInput=${(event: Event) => setKey((event.target as HTMLInputElement).value)}
          aria-invalid=${error === null ? undefined : "true"}
          aria-errormessage=${error === null ? undefined : "sign-in-error"}
        />
        <p id="key-help" class="hint">
          A key starts with <code>umo_</code> (<code>npm run umo -- keys create</code> makes one). It is
          kept in this tab's session storage only, and forgotten when you sign out or close the tab.
        </p>
        ${error === null ? null : html`<p id="sign-in-error" class="error" role="alert">${error}</p>`}
        <button type="submit" disabled=${busy}>${busy ? "Signing in…" : "Sign in"}</button>
      </form>
    </main>
  `
}
