/**
 * The thread that holds the process's vector graphs (see `GraphThread`). It takes requests in the
 * order they were posted, answers a blocking one on the reply port and any other on its parent
 * port, and after each request stores the request's number in the shared cell and wakes the
 * main thread, which may be waiting on it.
 */
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { type MessagePort, parentPort, workerData } from "node:worker_threads"
import usearch from "usearch"
import { addTookCell, doneCell, type GraphConfig, type GraphRequest } from "./GraphThread.js"

const { cells, replies } = workerData as { readonly cells: Int32Array; readonly replies: MessagePort }
const graphs = new Map<number, InstanceType<typeof usearch.Index>>()

/** A full collection of this thread's heap, where V8 lets it be had. */
const collect = (() => {
  setFlagsFromString("--expose-gc")
  const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : undefined")
  return typeof gc === "function" ? (gc as () => void) : undefined
})()
/** Each graph's staging buffer (see `Graph.stage`). */
const stagings = new Map<number, SharedArrayBuffer>()

const graphOf = (id: number) => {
  const graph = graphs.get(id)
  if (graph === undefined) throw new Error(`no graph ${id} in the graph thread`)
  return graph
}

const newGraph = (config: GraphConfig) =>
  new usearch.Index({
    dimensions: config.dims,
    metric: usearch.MetricKind.Cos,
    quantization: usearch.ScalarKind.I8,
    connectivity: config.connectivity,
    expansion_add: config.expansionAdd,
    expansion_search: config.expansionSearch,
    multi: false
  })

/** What a request answers (nothing for most). */
const handle = (request: GraphRequest): unknown => {
  switch (request.op) {
    case "create":
      graphs.set(request.id, newGraph(request.config))
      stagings.set(request.id, request.staging)
      return undefined
    case "add": {
      const started = performance.now()
      const graph = graphOf(request.id)
      const dims = graph.dimensions()
      graph.add(
        request.keys,
        new Float32Array(stagings.get(request.id)!, 0, request.keys.length * dims),
        request.threads
      )
      Atomics.store(cells, addTookCell, Math.round((performance.now() - started) * 1_000))
      return undefined
    }
    case "remove":
      graphOf(request.id).remove(request.keys)
      return undefined
    case "search": {
      const graph = graphOf(request.id)
      return graph.search(request.query, Math.min(request.k, graph.size()), 1).keys
    }
    case "save":
      graphOf(request.id).save(request.path)
      return undefined
    case "load": {
      // Read into a graph of its own: a file that does not load leaves the id without one.
      const graph = newGraph(request.config)
      graph.load(request.path)
      if (request.stale.length > 0) {
        const held = graph.contains(request.stale) as Array<boolean>
        const gone = request.stale.filter((_, i) => held[i])
        if (gone.length > 0) graph.remove(BigUint64Array.from(gone))
      }
      graphs.set(request.id, graph)
      return graph.size()
    }
    case "drop":
      graphs.delete(request.id)
      stagings.delete(request.id)
      // usearch frees a graph's memory only when its object is collected, and tells V8 nothing of
      // it: this thread's small heap would not be collected for a long time.
      collect?.()
      return undefined
  }
}

parentPort!.on("message", (request: GraphRequest) => {
  let answer: { readonly seq: number; readonly value?: unknown; readonly error?: string }
  try {
    answer = { seq: request.seq, value: handle(request) }
  } catch (error) {
    answer = { seq: request.seq, error: error instanceof Error ? error.message : String(error) }
  }
  // A blocking caller reads its answer as soon as the cell says done: the answer goes first. An
  // answer through the event loop goes after: its promise resolved, the request must read as done
  // (the caller then checks `busy`).
  if (request.blocking) replies.postMessage(answer)
  Atomics.store(cells, doneCell, request.seq)
  Atomics.notify(cells, doneCell)
  if (!request.blocking && (request.answered || answer.error !== undefined)) parentPort!.postMessage(answer)
})
