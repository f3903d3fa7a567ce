import { useState } from "preact/hooks"
import { describeError } from "./api/Session.js"

/** A form's request to the server: busy while it runs (to disable the button), its failure in words. */
export const useRequest = () => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const run = async (request: () => Promise<void>) => {
    setBusy(true)
    setError(null)
    try {
      await request()
    } catch (failure) {
      setError(describeError(failure))
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, run }
}
