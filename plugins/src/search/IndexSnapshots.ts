import { createHash } from "node:crypto"
import {
  createReadStream,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { join } from "node:path"
import { setImmediate as nextTurn } from "node:timers/promises"
import { type StoreError, sha256Hex } from "@umo/core"
import { Effect } from "effect"
import { type AccountIndex, type GraphChunk, keysAtOnce } from "./AccountIndex.js"
import type { IndexRows } from "./IndexRows.js"

/**
 * Snapshots of accounts' vector graphs on disk, so that a restart does not build them again:
 * building the HNSW graph is most of an index's load (a million chunks take the better part of an
 * hour on two cores), while the rest — the memories read from the database, their int8 vectors,
 * postings and maps — is read at disk and network speed.
 *
 * A snapshot is three files per account in the directory: `<account>.graph` (usearch's format),
 * `<account>.keys` (the chunk each graph key holds: memory id, chunk number, a fingerprint of its
 * vector) and `<account>.json`, written last, which names the chain position the graph reflects,
 * the hash of the chain's entry there, and the other two files' sizes and SHA-256. A snapshot is
 * taken only if all of it checks: its files are whole and unchanged, and **the account's chain
 * still has that entry at that position** — a snapshot of another database, of a chain that was
 * rewritten or restored from an older backup, is removed and the graph built from the database.
 * Even then it is not trusted for content: the index is loaded from the database as always, and a
 * graph key is kept only for a chunk the index holds with the same fingerprint; what the snapshot
 * lacks (captures after it) is built, what it holds that is gone is removed. Search scores are
 * always computed from the database's vectors, so a graph can only change which candidates are
 * found, never how they score.
 *
 * A memory's deletion removes the account's snapshot at once in the process that indexes the
 * account (a graph holds int8 copies of vectors: nothing erased may stay on disk); one deleted
 * while no process indexed the account is found at its next load, which then removes the
 * snapshot. A new one is taken when the graph is whole again.
 */
export interface IndexSnapshots {
  /** Adopts the account's snapshot into `index` (loaded, its graph not built); keys kept, 0 if none was usable. */
  readonly restore: (accountId: string, index: AccountIndex) => Effect.Effect<number, StoreError>
  /** Whether a snapshot of the account's graph is due: whole, and new, grown or changed since the last. */
  readonly due: (accountId: string, index: AccountIndex) => boolean
  /**
   * Writes the graph's files while the caller holds the account (the index reflects chain
   * position `seq`): the second step, `commit`, then hashes and names them without it. Nothing
   * when the last snapshot is recent enough.
   */
  readonly capture: (
    accountId: string,
    index: AccountIndex,
    seq: number
  ) => Effect.Effect<Effect.Effect<void> | undefined, StoreError>
  /** Removes the account's snapshot (a memory of it was deleted). */
  readonly forget: (accountId: string) => void
  /** Removes the snapshots of accounts not in `accounts`, and files left by a save that died. */
  readonly prune: (accounts: ReadonlySet<string>) => void
}

interface Header {
  readonly version: 1
  readonly account_id: string
  readonly dims: number
  readonly seq: number
  readonly entry_hash: string
  readonly keys: number
  readonly keys_sha256: string
  readonly graph_bytes: number
  readonly graph_sha256: string
  readonly saved_at: string
}

/** Bytes a key takes in `<account>.keys`: the memory id (16), chunk number (4), fingerprint (8). */
const keyBytes = 28
const absent = 0xffffffff

/** A new snapshot after the graph grew by this many keys (2 %, 500 at least), or after a deletion. */
const grownEnough = (saved: number, now: number) => now - saved >= Math.max(500, saved * 0.02)

/** A file's SHA-256, read as a stream (a graph of a million chunks is about a gigabyte). */
const fileSha256 = (path: string) =>
  Effect.tryPromise(
    () =>
      new Promise<string>((resolve, reject) => {
        const hash = createHash("sha256")
        createReadStream(path)
          .on("data", (chunk) => hash.update(chunk))
          .on("error", reject)
          .on("end", () => resolve(hash.digest("hex")))
      })
  )

/** The keys file of `chunks` (`AccountIndex.graphChunks`), `keysAtOnce` keys between two turns of the event loop. */
export const encodeKeys = async (chunks: ReturnType<AccountIndex["graphChunks"]>): Promise<Buffer> => {
  const out = Buffer.alloc(chunks.keys * keyBytes)
  let at = 0
  for (let key = 0; key < chunks.keys; key++) {
    if (key % keysAtOnce === keysAtOnce - 1) await nextTurn()
    const chunk = chunks.at(key)
    if (chunk === undefined) out.writeUInt32LE(absent, at + 16)
    else {
      Buffer.from(chunk.umo_id.replaceAll("-", ""), "hex").copy(out, at)
      out.writeUInt32LE(chunk.chunk, at + 16)
      chunk.fingerprint.copy(out, at + 20)
    }
    at += keyBytes
  }
  return out
}

export const decodeKey = (keys: Buffer, key: number): GraphChunk | undefined => {
  const at = key * keyBytes
  const chunk = keys.readUInt32LE(at + 16)
  if (chunk === absent) return undefined
  const hex = keys.toString("hex", at, at + 16)
  return {
    umo_id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    chunk,
    fingerprint: keys.subarray(at + 20, at + keyBytes)
  }
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Snapshots in `dir` (made if missing) of indexes of `dims`-dimension vectors, checked against `rows`' chains. */
export const makeIndexSnapshots = (dir: string, rows: IndexRows, dims: number): IndexSnapshots => {
  mkdirSync(dir, { recursive: true })
  const paths = (accountId: string) => ({
    header: join(dir, `${accountId}.json`),
    graph: join(dir, `${accountId}.graph`),
    keys: join(dir, `${accountId}.keys`)
  })
  /** Graph keys at the account's last snapshot taken or adopted by this process. */
  const saved = new Map<string, number>()

  const forget = (accountId: string) => {
    for (const path of Object.values(paths(accountId))) rmSync(path, { force: true })
    saved.delete(accountId)
  }

  /** The snapshot's header, if there is one of this account and these dimensions. */
  const headerOf = (accountId: string) =>
    Effect.map(
      Effect.try(() => JSON.parse(readFileSync(paths(accountId).header, "utf8")) as Header).pipe(
        Effect.orElseSucceed(() => undefined)
      ),
      (header) =>
        header?.version === 1 && header.account_id === accountId && header.dims === dims ? header : undefined
    )

  /** The keys file and the graph's path, if the files are as the header says (sizes, SHA-256). */
  const whole = (accountId: string, header: Header) =>
    Effect.gen(function* () {
      const at = paths(accountId)
      const keys = yield* Effect.try(() => readFileSync(at.keys)).pipe(Effect.orElseSucceed(() => undefined))
      if (keys?.length !== header.keys * keyBytes || sha256Hex(keys) !== header.keys_sha256) return undefined
      const graphBytes = yield* Effect.try(() => statSync(at.graph).size).pipe(Effect.orElseSucceed(() => -1))
      if (graphBytes !== header.graph_bytes) return undefined
      const graphHash = yield* fileSha256(at.graph).pipe(Effect.orElseSucceed(() => undefined))
      return graphHash === header.graph_sha256 ? { keys, graph: at.graph } : undefined
    })

  const restore = (accountId: string, index: AccountIndex) =>
    Effect.gen(function* () {
      const header = yield* headerOf(accountId)
      if (header === undefined) return 0
      // The chain first (one query): a snapshot it rules out is not read through.
      if ((yield* rows.entryHash(accountId, header.seq)) !== header.entry_hash) {
        yield* Effect.logWarning(
          `search index: the snapshot of account ${accountId} does not match its chain at position ${header.seq}; removed, the graph is built from the database`
        )
        forget(accountId)
        return 0
      }
      const files = yield* whole(accountId, header)
      if (files === undefined) return 0
      // Keys the snapshot names a chunk for: more than are kept, and it holds chunks the account
      // no longer has (deleted, or changed since).
      let named = 0
      const kept = yield* Effect.tryPromise(() =>
        index.adoptGraph(files.graph, header.keys, (key) => {
          const chunk = decodeKey(files.keys, key)
          if (chunk !== undefined) named++
          return chunk
        })
      ).pipe(
        Effect.catch((error) =>
          Effect.as(
            Effect.logWarning(`search index: the snapshot of account ${accountId} could not be read`, error),
            -1
          )
        )
      )
      if (kept < 0) return 0
      // Its files still hold those chunks' vectors, so they go now; a new snapshot follows once
      // the graph is whole.
      if (kept < named) forget(accountId)
      else saved.set(accountId, header.keys)
      yield* Effect.logInfo(
        `search index: account ${accountId}'s graph from its snapshot at chain position ${header.seq}: ${kept} of ${header.keys} keys kept`
      )
      return kept
    })

  const due = (accountId: string, index: AccountIndex) => {
    const last = saved.get(accountId)
    return (
      index.graphKeys > 0 && !index.graphBehind && (last === undefined || grownEnough(last, index.graphKeys))
    )
  }

  const capture = (accountId: string, index: AccountIndex, seq: number) =>
    Effect.gen(function* () {
      if (!due(accountId, index)) return undefined
      const keys = index.graphKeys
      const entryHash = yield* rows.entryHash(accountId, seq)
      if (entryHash === undefined) return undefined
      const at = paths(accountId)
      const temporary = (path: string) => `${path}.${process.pid}.tmp`
      // The graph thread writes the graph as it is now (requests run in order), while this thread
      // goes on: the account is free meanwhile.
      const graphSaved = index.saveGraph(temporary(at.graph)).then(
        () => undefined,
        (error: unknown) => error ?? new Error("the graph was not saved")
      )
      const chunks = index.graphChunks()
      saved.set(accountId, keys)
      // The rest reads what was taken now, and the files written from it, not the index.
      return Effect.gen(function* () {
        const keyFile = yield* Effect.promise(() => encodeKeys(chunks))
        writeFileSync(temporary(at.keys), keyFile)
        const unsaved = yield* Effect.promise(() => graphSaved)
        if (unsaved !== undefined) return yield* Effect.fail(unsaved)
        const header: Header = {
          version: 1,
          account_id: accountId,
          dims,
          seq,
          entry_hash: entryHash,
          keys,
          keys_sha256: sha256Hex(keyFile),
          graph_bytes: statSync(temporary(at.graph)).size,
          graph_sha256: yield* fileSha256(temporary(at.graph)),
          saved_at: new Date().toISOString()
        }
        // A deletion meanwhile removed the snapshot: this one holds what was deleted.
        if (saved.get(accountId) !== keys) {
          rmSync(temporary(at.graph), { force: true })
          rmSync(temporary(at.keys), { force: true })
          return
        }
        renameSync(temporary(at.graph), at.graph)
        renameSync(temporary(at.keys), at.keys)
        writeFileSync(temporary(at.header), JSON.stringify(header, null, 1))
        renameSync(temporary(at.header), at.header)
      }).pipe(
        Effect.catch((error) =>
          Effect.logWarning(`search index: a snapshot of account ${accountId} failed`, error)
        )
      )
    })

  const prune = (accounts: ReadonlySet<string>) => {
    for (const name of readdirSync(dir)) {
      const temporary = /\.(\d+)\.tmp$/.exec(name)
      const account = /^([0-9a-f-]{36})\.(json|graph|keys)$/.exec(name)?.[1]
      if (
        temporary !== null
          ? !isRunning(Number(temporary[1]))
          : account !== undefined && !accounts.has(account)
      )
        rmSync(join(dir, name), { force: true })
    }
  }

  return { restore, due, capture, forget, prune }
}
