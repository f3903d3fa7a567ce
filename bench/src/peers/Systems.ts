/**
 * The three systems behind one interface, so the harness feeds and times them alike: UMO through
 * its public HTTP API (the real server process, the JavaScript client), and each peer through its
 * driver process. Every adapter records what it was given (see Manifest.ts).
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { UMOClient } from "@umo/client"
import { Embedder } from "@umo/core"
import { EmbedderChoice } from "@umo/plugins"
import { Effect } from "effect"
import { buildPackages, startNpmServer } from "../memory/NpmServer.js"
import { type Manifest, Recorder, sha256, umoEmbedderManifest } from "./Manifest.js"
import { type PeerProcess, spawnPeer } from "./PeerProcess.js"

/** One memory: `key` is the harness's name for it (a LoCoMo dia_id), `date` its session's time. */
export interface Item {
  readonly key: string
  readonly text: string
  readonly date?: string
}

export interface Usage {
  /** Resident memory of the system's process (UMO: the server; a peer: its Python process), MB. */
  readonly rss_mb: number
  /** Its data on disk: the PostgreSQL database's size, plus local files, MB. */
  readonly disk_mb: number
  /** UMO only: memories whose content the server's normalization changed (receipt ≠ text sent). */
  readonly normalized_by_server?: number
}

export interface SystemUnderTest {
  readonly id: string
  readonly label: string
  readonly versions: Readonly<Record<string, string>>
  readonly config: unknown
  /** Loads models and code paths (not timed). */
  readonly warm: () => Promise<void>
  /** Stores the items, one memory each, in order; answers the system's id of each. */
  readonly add: (space: string, items: ReadonlyArray<Item>) => Promise<Array<string>>
  /**
   * Waits, untimed, until the searches of `space` are served as they will be from now on (work a
   * system does in the background after captures); how long it waited, in ms. Called after the
   * captures of each size, before its searches are timed; optional.
   */
  readonly settle?: (space: string) => Promise<number>
  /** The system's ids of the best `limit` memories of `space`, best first. */
  readonly search: (space: string, query: string, limit: number) => Promise<Array<string>>
  /** The system's embedding of each text (for the embedder agreement check). */
  readonly embed: (texts: ReadonlyArray<string>) => Promise<Array<Array<number>>>
  readonly usage: () => Promise<Usage>
  readonly manifest: () => Promise<Manifest>
  readonly close: () => Promise<void>
}

/** A fresh PostgreSQL database with pgvector (scripts/provision-postgres.sh), by name; its URL. */
export const provisionDatabase = (root: string, name: string): string =>
  execFileSync("bash", [join(root, "scripts", "provision-postgres.sh")], {
    env: { ...process.env, UMO_TEST_DATABASE: name },
    stdio: ["ignore", "pipe", "pipe"]
  })
    .toString()
    .trim()

export const dropDatabase = (url: string) => {
  const name = new URL(url).pathname.slice(1)
  const admin = new URL(url)
  admin.pathname = "/postgres"
  execFileSync("psql", [admin.toString(), "-q", "-c", `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`], {
    stdio: "ignore"
  })
}

export const databaseMb = (url: string) =>
  Math.round(
    Number(
      execFileSync("psql", [url, "-tAc", "select pg_database_size(current_database())"]).toString().trim()
    ) / 104857.6
  ) / 10

/** A peer's driver process (bench/peers/<id>_driver.py) in the peers' virtualenv. */
export const peerSystem = async (options: {
  readonly id: string
  readonly label: string
  readonly python: string
  readonly script: string
  readonly modelDir: string
  readonly workDir: string
  readonly databaseUrl?: string
  readonly env?: Readonly<Record<string, string>>
}): Promise<SystemUnderTest> => {
  const peer: PeerProcess = spawnPeer(options.python, [options.script], options.env ?? {})
  const hello = await peer.request<{ versions: Record<string, string>; config: unknown }>("init", {
    model_dir: options.modelDir,
    work_dir: options.workDir,
    ...(options.databaseUrl ? { database_url: options.databaseUrl } : {})
  })
  return {
    id: options.id,
    label: options.label,
    versions: hello.versions,
    config: hello.config,
    warm: async () => {
      await peer.request("warm")
    },
    add: async (space, items) => (await peer.request<{ ids: Array<string> }>("add", { space, items })).ids,
    search: async (space, query, limit) =>
      (await peer.request<{ ids: Array<string> }>("search", { space, query, limit })).ids,
    embed: async (texts) =>
      (await peer.request<{ vectors: Array<Array<number>> }>("embed", { texts })).vectors,
    usage: async () => {
      const stats = await peer.request<{ rss_mb: number; local_disk_mb: number }>("stats")
      const database = options.databaseUrl ? databaseMb(options.databaseUrl) : 0
      return { rss_mb: stats.rss_mb, disk_mb: Math.round((database + stats.local_disk_mb) * 10) / 10 }
    },
    manifest: async () => (await peer.request<{ manifest: Manifest }>("manifest")).manifest,
    close: () => peer.close()
  }
}

const keyOf = (space: string) => `umo_bench-peers-${space.replace(/[^A-Za-z0-9]/g, "")}-${"0".repeat(20)}`

/** The settings of UMO's embedder, for the server and for the in-process agreement check. */
export const umoEmbedderEnv = (modelsDir: string, model: string, precision: "fp32" | "int8") => ({
  UMO_EMBEDDER: "transformers",
  UMO_MODELS_DIR: modelsDir,
  UMO_EMBEDDER_MODEL: model,
  UMO_EMBEDDER_PRECISION: precision
})

/**
 * UMO as a user runs it: `npm start` (the built server) as its own process on PostgreSQL (`DATABASE_URL`),
 * one account a space, the JavaScript client, ranking at the server's defaults.
 */
export const umoSystem = async (options: {
  readonly root: string
  readonly spaces: ReadonlyArray<string>
  readonly databaseUrl: string
  readonly modelsDir: string
  readonly model: string
  readonly precision: "fp32" | "int8"
  readonly signingKey: string
}): Promise<SystemUnderTest> => {
  const keys = Object.fromEntries(
    [...options.spaces, "warm-up"].map((space) => [keyOf(space), `peers-${space}`])
  )
  const embedderEnv = umoEmbedderEnv(options.modelsDir, options.model, options.precision)
  // As a user runs it: `npm start` on the built sources (server/dist, built now from these), with
  // the settings scripts/start.sh gives the process.
  buildPackages(options.root)
  const server = await startNpmServer(options.root, {
    ...embedderEnv,
    HOST: "127.0.0.1",
    DATABASE_URL: options.databaseUrl,
    UMO_SIGNING_KEY: options.signingKey,
    UMO_API_KEYS: Object.entries(keys)
      .map(([key, account]) => `${key}=${account}`)
      .join(","),
    UMO_RATE_LIMIT_PER_MINUTE: "100000000"
  })
  /** The server's own process (npm and its shell, which only wait for it, are left out as a peer's launcher is). */
  const serverRssMb = () => {
    const node = server.serverNode()
    if (node === undefined) throw new Error(`the server's process is gone:\n${server.output()}`)
    return Math.round(node.rss_kb / 1024)
  }
  const clients = new Map<string, UMOClient>()
  const client = (space: string) => {
    let c = clients.get(space)
    if (!c) {
      c = new UMOClient({ baseUrl: server.baseUrl, apiKey: keyOf(space), timeoutMs: 600_000 })
      clients.set(space, c)
    }
    return c
  }
  const recorder = new Recorder()
  /** Keys of the memories whose stored (normalized) content differs from the text sent. */
  const normalized: Array<string> = []
  const modelDir = join(options.modelsDir, options.model)
  const { version } = JSON.parse(readFileSync(join(options.root, "server", "package.json"), "utf8")) as {
    version: string
  }
  // The agreement check embeds in this process with the server's embedder settings.
  Object.assign(process.env, embedderEnv)
  return {
    id: "umo",
    label: "UMO",
    versions: { "@umo/server": version, node: process.version },
    config: {
      server:
        "npm start (server/dist/main.js, built from these sources), one process, PostgreSQL via DATABASE_URL",
      embedder: embedderEnv,
      ranking: "the server's defaults (memory/src/recall/Ranking.ts); UMO_RERANK_SEARCH off (its default)",
      api: "POST /v1/batch (100 items a call; timestamp = the session's date), POST /v1/memories/query",
      index:
        "searches are served by the in-process index, which catches up with captures when searched (in the background past 1,000 new memories, the database serving meanwhile); before the timed searches of each scale size, untimed searches wait until one is served by the index (Server-Timing sync;desc=index), the wait reported as settle_ms"
    },
    warm: async () => {
      await client("warm-up").ask("warm up", { limit: 1 })
    },
    add: async (space, items) => {
      const results = await client(space).batch(
        items.map((item) => ({
          content: item.text,
          source: `bench/${space}`,
          ...(item.date ? { timestamp: item.date } : {})
        }))
      )
      return results.map((r, i) => {
        if (!r.success || !r.umoId) throw new Error(`UMO refused ${items[i]?.key}: ${r.error?.detail}`)
        // What UMO was given is what the client sent; the server's receipt (`content_hash`, the
        // SHA-256 of the content after UMO's normalization) is counted where it differs.
        const sent = sha256(items[i]!.text)
        recorder.memoryHash(space, sent)
        if (typeof r.raw.content_hash === "string" && r.raw.content_hash !== sent)
          normalized.push(items[i]!.key)
        return r.umoId
      })
    },
    settle: async (space) => {
      const started = performance.now()
      for (;;) {
        const response = await fetch(`${server.baseUrl}/v1/memories/query`, {
          method: "POST",
          headers: { authorization: `Bearer ${keyOf(space)}`, "content-type": "application/json" },
          body: JSON.stringify({ query: "settle", limit: 1 })
        })
        await response.arrayBuffer()
        if (!response.ok) throw new Error(`UMO answered ${response.status} while settling`)
        if (/sync;dur=[\d.]+;desc=index/.test(response.headers.get("server-timing") ?? ""))
          return Math.round(performance.now() - started)
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
    },
    search: async (space, query, limit) => {
      recorder.query(space, query, limit)
      return (await client(space).ask(query, { limit })).map((m) => m.umoId)
    },
    embed: (texts) =>
      Effect.runPromise(
        Effect.gen(function* () {
          const embedder = yield* Embedder
          return (yield* embedder.embed(texts)).map((v) => Array.from(v))
        }).pipe(Effect.provide(EmbedderChoice.layerConfig))
      ),
    usage: async () => ({
      rss_mb: serverRssMb(),
      disk_mb: databaseMb(options.databaseUrl),
      normalized_by_server: normalized.length
    }),
    manifest: async () => ({
      ...recorder.digests(),
      embedder: umoEmbedderManifest(modelDir, options.precision)
    }),
    close: () => server.stop()
  }
}
