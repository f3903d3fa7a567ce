/**
 * Signing in: the API key is checked against `GET /v1/account` and kept in `sessionStorage` only
 * (never localStorage or a cookie), so it leaves with the tab or on sign-out. The service's public
 * keys are fetched once at sign-in and pinned for the session: proofs are checked against them,
 * never against the copy of a key that a proof carries.
 * @module
 */
import { type Account, type SigningKeySet, UMOClient, UMOError } from "@umo/client"
import { createContext } from "preact"
import { useContext } from "preact/hooks"

const keyItem = "umo.console.apiKey"
const pinnedItem = "umo.console.pinnedKeys"

export interface ConsoleSession {
  readonly client: UMOClient
  readonly apiKey: string
  readonly account: Account
  /** The JWK Set pinned at sign-in. */
  readonly pinned: SigningKeySet
}

// One retry at most: a person is waiting, and errors are better shown than hidden behind backoff.
const clientFor = (apiKey: string) => new UMOClient({ apiKey, baseUrl: location.origin, maxRetries: 1 })

const readPinned = (): SigningKeySet | undefined => {
  try {
    const value = JSON.parse(sessionStorage.getItem(pinnedItem) ?? "null") as SigningKeySet | null
    return value !== null && Array.isArray(value.keys) ? value : undefined
  } catch {
    return undefined
  }
}

/** Checks the key with the server (its `detail` is the error when refused) and starts a session. */
export const signIn = async (apiKey: string): Promise<ConsoleSession> => {
  const client = clientFor(apiKey.trim())
  const account = await client.account()
  const pinned = readPinned() ?? (await client.signingKeys())
  sessionStorage.setItem(keyItem, client.apiKey ?? "")
  sessionStorage.setItem(pinnedItem, JSON.stringify(pinned))
  return { client, apiKey: client.apiKey ?? "", account, pinned }
}

/** The session of this tab, when a key was stored and still works. */
export const resumeSession = async (): Promise<ConsoleSession | undefined> => {
  const stored = sessionStorage.getItem(keyItem)
  if (stored === null) return undefined
  try {
    return await signIn(stored)
  } catch {
    signOut()
    return undefined
  }
}

/** Forgets the key and the pinned keys. */
export const signOut = () => {
  sessionStorage.removeItem(keyItem)
  sessionStorage.removeItem(pinnedItem)
}

/** What to tell a person about a failure: the server's `detail` when it sent one. */
export const describeError = (error: unknown): string =>
  error instanceof UMOError
    ? (error.detail ?? error.message)
    : error instanceof Error
      ? error.message
      : String(error)

export const SessionContext = createContext<ConsoleSession | null>(null)

/** The signed-in session; views are only rendered inside one. */
export const useSession = (): ConsoleSession => {
  const session = useContext(SessionContext)
  if (session === null) throw new Error("useSession outside a signed-in console")
  return session
}
