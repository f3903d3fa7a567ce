/**
 * `umo export` and `umo import`: an account's memories out to a JSON Lines file (resuming a file
 * cut short) and in from an export of UMO or of Mem0, on the memory service opened in this
 * process the way `umo mcp` opens it. Files are read and written as streams, never whole.
 * @module
 */
import { createReadStream, createWriteStream, existsSync, statSync, truncateSync } from "node:fs"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import {
  type ConfigFileError,
  configFromEnvironment,
  isMemoryError,
  Memory,
  MemoryAccount,
  type OpenMemoryOptions,
  openMemoryRuntime,
  type Transfers
} from "@umo/memory"
import { Config, Console, Context, Effect, Option, Stream } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"

const userError = (userMessage: string) =>
  new CliError.UserError({ cause: new Error(userMessage), userMessage })

const messageOf = (error: unknown) =>
  isMemoryError(error) ? error.detail : error instanceof Error ? error.message : String(error)

export const dataDirFlag = Flag.String("data-dir").pipe(
  Flag.optional,
  Flag.withDescription("where the memories are kept (default: UMO_DATA_DIR, else ./data)")
)

/** How `mcp`, `export` and `import` open the memory service: the server's environment and config. */
export const memoryOptions = (
  dataDir: Option.Option<string>
): Effect.Effect<OpenMemoryOptions, Config.ConfigError | ConfigFileError> =>
  Effect.gen(function* () {
    const configuredDir = yield* Config.String("UMO_DATA_DIR").pipe(Config.withDefault("./data"))
    const databaseUrl = Option.filter(
      yield* Config.String("DATABASE_URL").pipe(Config.option),
      (url) => url !== ""
    )
    const config = yield* configFromEnvironment
    return {
      ...config,
      dataDir: Option.getOrElse(dataDir, () => configuredDir),
      databaseUrl: Option.getOrUndefined(databaseUrl)
    }
  })

/** Runs `use` with the memory service of `account` (made on first use), closed when it is done. */
const withAccount = <A, E>(
  account: string,
  dataDir: Option.Option<string>,
  use: Effect.Effect<A, E, Memory | MemoryAccount>
) =>
  Effect.gen(function* () {
    const options = yield* memoryOptions(dataDir)
    const opened = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => openMemoryRuntime({ ...options, account }),
        catch: (error) => userError(messageOf(error))
      }),
      ({ runtime }) => Effect.promise(() => runtime.dispose())
    )
    const context = yield* opened.runtime.contextEffect
    return yield* Effect.provideContext(use, Context.add(context, MemoryAccount, opened.account))
  }).pipe(Effect.scoped)

/** What an export file already holds: its complete lines, the bytes they span, the first and last. */
const scan = async (file: string) => {
  let size = 0
  let complete = 0
  let lines = 0
  let head = ""
  let first: string | undefined
  let last: Buffer | undefined
  let parts: Array<Buffer> = []
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    if (size === 0) head = chunk.subarray(0, 32).toString("utf8")
    let start = 0
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, end))
      last = Buffer.concat(parts)
      parts = []
      if (lines === 0) first = last.toString("utf8")
      lines++
      complete = size + end + 1
      start = end + 1
    }
    if (start < chunk.length) parts.push(Buffer.from(chunk.subarray(start)))
    size += chunk.length
  }
  return { size, head, complete, lines, first, last: last?.toString("utf8") }
}

const parse = (line: string | undefined): { kind?: unknown; account?: unknown; umo_id?: unknown } => {
  try {
    const value: unknown = JSON.parse(line ?? "")
    return typeof value === "object" && value !== null ? value : {}
  } catch {
    return {}
  }
}

/** Where an export to `file` starts: afresh, after the memories it holds, or nowhere (it is whole). */
const resumePoint = (file: string, account: string) =>
  Effect.gen(function* () {
    if (!existsSync(file)) return { kind: "fresh" } as const
    if (!statSync(file).isFile()) return yield* userError(`${file} is not a file`)
    const held = yield* Effect.tryPromise({ try: () => scan(file), catch: (e) => userError(messageOf(e)) })
    const notExport = userError(`${file} is not a UMO export: give another --out, or remove it`)
    // Not even the header is whole: start again.
    if (held.lines === 0) {
      if (held.size > 0 && !'{"kind":"umo-export"'.startsWith(held.head.slice(0, 20))) return yield* notExport
      if (held.size > 0) truncateSync(file, 0)
      return { kind: "fresh" } as const
    }
    const header = parse(held.first)
    if (header.kind !== "umo-export") return yield* notExport
    if (header.account !== account)
      return yield* userError(
        `${file} is an export of account "${String(header.account)}", not "${account}": give another --out`
      )
    const last = parse(held.last)
    if (last.kind === "end") return { kind: "whole", memories: held.lines - 2 } as const
    if (held.lines > 1 && (last.kind !== "memory" || typeof last.umo_id !== "string"))
      return yield* userError(`${file} ends in a line that is no memory of an export; cannot resume it`)
    // A line cut in the middle is dropped: it is written again whole.
    if (held.complete < held.size) truncateSync(file, held.complete)
    return {
      kind: "resume",
      memories: held.lines - 1,
      afterId: held.lines > 1 ? (last.umo_id as string) : undefined
    } as const
  })

export const exportCommand = Command.make(
  "export",
  {
    account: Flag.String("account").pipe(Flag.withDescription("the account whose memories to export")),
    out: Flag.String("out").pipe(
      Flag.optional,
      Flag.withDescription("the file to write (default: stdout); a file cut short is resumed")
    ),
    userId: Flag.String("user-id").pipe(Flag.optional, Flag.withDescription("only this end user's memories")),
    includeSuperseded: Flag.Boolean("include-superseded").pipe(
      Flag.withDefault(true),
      Flag.withDescription("also memories a newer one superseded (default true)")
    ),
    embeddings: Flag.Boolean("embeddings").pipe(
      Flag.withDefault(false),
      Flag.withDescription("also each memory's vectors, so an import with the same embedder embeds nothing")
    ),
    dataDir: dataDirFlag
  },
  ({ account, out, userId, includeSuperseded, embeddings, dataDir }) =>
    Effect.gen(function* () {
      const start = Option.isSome(out) ? yield* resumePoint(out.value, account) : ({ kind: "fresh" } as const)
      if (start.kind === "whole")
        return yield* Console.error(
          `${Option.getOrThrow(out)} is a whole export (${start.memories} memories).`
        )
      const before = start.kind === "resume" ? start.memories : 0
      const request: typeof Transfers.ExportRequest.Encoded = {
        include_superseded: includeSuperseded,
        embeddings,
        ...(Option.isSome(userId) ? { user_id: userId.value } : {}),
        ...(start.kind === "resume" && start.afterId !== undefined ? { after_id: start.afterId } : {})
      }
      let written = 0
      yield* withAccount(
        account,
        dataDir,
        Effect.gen(function* () {
          const lines = yield* (yield* Effect.service(Memory)).exportMemories(request)
          yield* lines.pipe(
            // A resumed file has its header: the end line counts the memories it held too.
            Stream.drop(start.kind === "resume" ? 1 : 0),
            Stream.map((line) => {
              if (line.kind === "memory") written++
              const counted = line.kind === "end" ? { kind: "end", memories: before + line.memories } : line
              return `${JSON.stringify(counted)}\n`
            }),
            Stream.run(
              NodeSink.fromWritable({
                evaluate: () =>
                  Option.isSome(out) ? createWriteStream(out.value, { flags: "a" }) : process.stdout,
                onError: (error) => userError(`could not write the export: ${messageOf(error)}`),
                endOnDone: Option.isSome(out)
              })
            )
          )
        })
      ).pipe(Effect.mapError((error) => (isMemoryError(error) ? userError(error.detail) : error)))
      if (Option.isSome(out))
        yield* Console.error(
          start.kind === "resume"
            ? `Resumed ${out.value}: ${written} memories added to the ${before} it held.`
            : `Exported ${written} memories to ${out.value}.`
        )
    })
).pipe(Command.withDescription("write an account's memories as JSON Lines, to a file or stdout"))

/** The progress line of an import, rewritten in place on a terminal. */
const progress = (startedAt: number) => (summary: Transfers.ImportSummary) => {
  const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001)
  process.stderr.write(
    `\r\x1b[K${summary.lines} lines read, ${summary.imported} imported, ${summary.already_imported} already in, ` +
      `${summary.failed} failed, ${(summary.imported / seconds).toFixed(1)} memories/s`
  )
}

export const importCommand = Command.make(
  "import",
  {
    file: Argument.String("file").pipe(Argument.withDescription("the export to read (- for stdin)")),
    account: Flag.String("account").pipe(Flag.withDescription("the account to import into; made when new")),
    format: Flag.Literals("format", ["auto", "umo", "mem0"]).pipe(
      Flag.withDefault("auto"),
      Flag.withDescription("umo (an export of UMO), mem0 (Mem0's JSON, or a memory a line), or auto")
    ),
    onError: Flag.Literals("on-error", ["skip", "stop"]).pipe(
      Flag.withDefault("skip"),
      Flag.withDescription("a bad line is reported and skipped, or the import stops there")
    ),
    inferUpdates: Flag.Boolean("infer-updates").pipe(
      Flag.withDefault(false),
      Flag.withDescription("let imported memories supersede the ones their facts outdate")
    ),
    dataDir: dataDirFlag
  },
  ({ file, account, format, onError, inferUpdates, dataDir }) =>
    Effect.gen(function* () {
      if (file !== "-" && !existsSync(file)) return yield* userError(`no such file: ${file}`)
      const input = NodeStream.fromReadable<Uint8Array, unknown>({
        evaluate: () => (file === "-" ? process.stdin : createReadStream(file))
      })
      const onTerminal = process.stderr.isTTY === true
      const summary = yield* withAccount(
        account,
        dataDir,
        Effect.flatMap(Effect.service(Memory), (memory) =>
          memory.importMemories(
            input,
            { format, on_error: onError, infer_updates: inferUpdates },
            onTerminal ? progress(Date.now()) : undefined
          )
        )
      ).pipe(Effect.mapError((error) => (isMemoryError(error) ? userError(error.detail) : error)))
      if (onTerminal) process.stderr.write("\n")
      yield* Console.log(JSON.stringify(summary, null, 2))
      if (summary.stopped_at !== null || (onError === "stop" && summary.failed > 0)) {
        const at = summary.stopped_at ?? summary.failures[0]
        return yield* userError(
          `the import stopped${at === undefined ? "" : ` at line ${at.line}: ${at.detail}`}`
        )
      }
    })
).pipe(Command.withDescription("import an export of UMO or of Mem0 into an account, as it is read"))
