/** Calls run one at a time, urgent ones before the others waiting (see `urgentFirst`). */
export interface UrgentFirst {
  /**
   * Starts `call` once the call under way and the calls queued before it in its lane are done
   * (an urgent call waits for urgent ones only, besides the one under way). A call whose `signal`
   * aborts while it waits leaves the queue and rejects with the signal's reason.
   */
  readonly run: <A>(call: () => Promise<A>, urgent: boolean, signal?: AbortSignal) => Promise<A>
}

interface Waiting {
  readonly start: () => void
}

/**
 * One call at a time, in two lanes. A model's thread runs one call at a time, and a call handed to
 * it joins its queue in order: a search's query embedding waited there behind the model calls of a
 * burst of captures or of a re-embedding, queued first. Kept here instead, a call is handed to the
 * thread only when the one before it is done, and the urgent lane goes first. Between two calls
 * the thread waits for this thread to hand it the next (a turn of its event loop). With fp32, whose
 * capture calls are 16 texts, searches during 2,000 captures went from p50 / p95 1,718 / 2,737 ms
 * to 1,033 / 1,790; with the int8 default, one text a call, no difference (bench:burst, 2026-12-01).
 */
export const urgentFirst = (): UrgentFirst => {
  const lanes: { readonly urgent: Array<Waiting>; readonly other: Array<Waiting> } = { urgent: [], other: [] }
  let busy = false
  const next = () => {
    const waiting = lanes.urgent.shift() ?? lanes.other.shift()
    busy = waiting !== undefined
    waiting?.start()
  }
  const run = <A>(call: () => Promise<A>, urgent: boolean, signal?: AbortSignal): Promise<A> =>
    new Promise<A>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const lane = urgent ? lanes.urgent : lanes.other
      const abort = () => {
        const at = lane.indexOf(waiting)
        if (at >= 0) {
          lane.splice(at, 1)
          reject(signal!.reason)
        }
      }
      const waiting: Waiting = {
        start: () => {
          signal?.removeEventListener("abort", abort)
          let started: Promise<A>
          try {
            started = call()
          } catch (cause) {
            started = Promise.reject(cause)
          }
          started.then(resolve, reject).finally(next)
        }
      }
      signal?.addEventListener("abort", abort, { once: true })
      lane.push(waiting)
      if (!busy) next()
    })
  return { run }
}
