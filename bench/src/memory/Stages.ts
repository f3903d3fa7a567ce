/**
 * The server's resident memory at a stage of its life: started with `npm start`, asked once to
 * capture (at rest), search and answer, left idle, measured over its whole process tree.
 */
import { progress } from "../support/Cli.js"
import {
  call,
  type IndexHealth,
  indexHealth,
  type NpmServer,
  startNpmServer,
  untilIndexServes
} from "./NpmServer.js"
import { mb, type ProcessFacts, sampleTree } from "./ProcessTree.js"

export interface StageRow {
  readonly stage: string
  readonly database: "PGlite" | "PostgreSQL"
  readonly memories: number
  /** How the account was filled (the API for one memory, the scale corpus's bulk load beyond). */
  readonly loaded_by: string
  readonly load_seconds: number | null
  /** The whole tree under npm: VmRSS summed, threads summed. */
  readonly tree_rss_mb: number
  readonly tree_threads: number
  /** The server's node alone: RSS, its anonymous and file-backed parts, its peak since start. */
  readonly server: {
    readonly rss_mb: number
    readonly rss_anon_mb: number
    readonly rss_file_mb: number
    readonly peak_rss_mb: number
    readonly threads: number
    readonly thread_names: Record<string, number>
  }
  readonly processes: ReadonlyArray<ProcessFacts>
  /** The tree's RSS when the index first served a search (before the search and ask after it). */
  readonly tree_rss_at_index_serving_mb: number
  readonly healthy_ms: number
  /** From spawning npm to `/health` saying the index serves the account; null: it never loaded it. */
  readonly index_serving_ms: number | null
  /** The tree's RSS as soon as a load through the API was acknowledged (stages that load so). */
  readonly tree_rss_right_after_load_mb?: number | undefined
  /** `/health`'s index figures when measured: `held_mb` is the index's own estimate of its memory. */
  readonly health_index: IndexHealth | undefined
  /** What server/dist was built from (see `sourceState` in memory.ts), and whether it was rebuilt since. */
  readonly source: SourceState & { readonly dist_rebuilt_since: boolean }
  readonly idle_seconds: number
  readonly measured: string
}

/** HEAD, whether the packages' sources differ from it, and when server/dist and plugins/dist were built. */
export interface SourceState {
  readonly commit: string
  readonly edited: boolean
  readonly dist_built: string
}

/** What a stage asks of the server: one capture (at rest only), one search, one ask. */
const memory = "We moved to Lisbon last Friday and I started at Acme as a designer."
const question = "Where did we move to?"

const isServer = (p: ProcessFacts) => p.command.includes("server/dist/main.js")

export interface StageOptions {
  readonly root: string
  readonly stage: string
  readonly database: StageRow["database"]
  readonly memories: number
  readonly loadedBy: string
  readonly loadSeconds: number | null
  readonly env: Readonly<Record<string, string>>
  /** The key an earlier start printed (a store prints one only on its first start). */
  readonly key: string | undefined
  readonly capture: boolean
  /**
   * Fills the account through the API once the server is up, answering the seconds it took (the
   * row's `load_seconds`); the RSS is sampled the moment it ends.
   */
  readonly load?: ((baseUrl: string, key: string) => Promise<number>) | undefined
  readonly idleSeconds: number
  readonly indexDeadlineMs: number
  readonly source: StageRow["source"]
}

/** Runs one stage; the row and the key the server printed or was given. */
export const measureStage = async (o: StageOptions): Promise<{ row: StageRow; key: string }> => {
  progress(`memory: ${o.stage}: npm start`)
  const server: NpmServer = await startNpmServer(o.root, o.env)
  try {
    const key = server.printedKey ?? o.key
    if (key === undefined) throw new Error(`the server printed no API key:\n${server.output()}`)
    if (o.capture) await call(server.baseUrl, key, "/v1/process", { content: memory })
    let rightAfterLoad: number | undefined
    let loadSeconds = o.loadSeconds
    if (o.load !== undefined) {
      progress(`memory: ${o.stage}: loading through the API`)
      loadSeconds = await o.load(server.baseUrl, key)
      rightAfterLoad = mb(sampleTree(server.pid).rss_kb)
    }
    progress(`memory: ${o.stage}: waiting for the index to serve`)
    const servingMs = await untilIndexServes(server, key, o.memories, o.indexDeadlineMs)
    const atServing = sampleTree(server.pid)
    await call(server.baseUrl, key, "/v1/search", { query: question })
    await call(server.baseUrl, key, "/v1/ask", { question })
    progress(`memory: ${o.stage}: idle for ${o.idleSeconds} s`)
    await new Promise((resolve) => setTimeout(resolve, o.idleSeconds * 1000))
    const tree = sampleTree(server.pid)
    const health = await indexHealth(server.baseUrl)
    const main = tree.processes.find(isServer)
    if (main === undefined) throw new Error(`no server/dist/main.js under npm (pid ${server.pid})`)
    const row: StageRow = {
      stage: o.stage,
      database: o.database,
      memories: o.memories,
      loaded_by: o.loadedBy,
      load_seconds: loadSeconds,
      tree_rss_mb: mb(tree.rss_kb),
      tree_threads: tree.threads,
      server: {
        rss_mb: mb(main.rss_kb),
        rss_anon_mb: mb(main.rss_anon_kb),
        rss_file_mb: mb(main.rss_file_kb),
        peak_rss_mb: mb(main.peak_rss_kb),
        threads: main.threads,
        thread_names: main.thread_names
      },
      processes: tree.processes,
      tree_rss_at_index_serving_mb: mb(atServing.rss_kb),
      healthy_ms: server.healthyMs,
      index_serving_ms: servingMs,
      ...(rightAfterLoad === undefined ? {} : { tree_rss_right_after_load_mb: rightAfterLoad }),
      health_index: health,
      source: o.source,
      idle_seconds: o.idleSeconds,
      measured: new Date().toISOString().slice(0, 10)
    }
    return { row, key }
  } finally {
    await server.stop()
  }
}
