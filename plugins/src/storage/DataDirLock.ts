import { resolve } from "node:path"
import { Effect } from "effect"
import { ConnectionError, SqlError } from "effect/sql/SqlError"
import * as lockfile from "proper-lockfile"

/** How long a lock may go unrefreshed before it counts as left behind by a process that died. */
const staleMs = 10_000

/**
 * Holds `<dataDir>.lock` while PGlite has `dataDir` open. PGlite runs inside one process and
 * keeps no lock of its own: two servers started on the same directory both open it, and each
 * overwrites what the other wrote. The lock is a directory whose time the holder refreshes; one
 * left by a killed process goes stale after 10 s, and a start waits up to 15 s for that. A second
 * server on a directory in use fails to start, saying so.
 */
export const holdDataDir = (dataDir: string) =>
  Effect.gen(function* () {
    const context = yield* Effect.context()
    const directory = resolve(dataDir)
    const lockPath = `${directory}.lock`
    return yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          lockfile.lock(directory, {
            lockfilePath: lockPath,
            realpath: false,
            stale: staleMs,
            retries: { retries: 15, factor: 1, minTimeout: 1_000, maxTimeout: 1_000 },
            // The refresh came too late (the process was busy for over 10 s): say so, rather than
            // crash in a timer, since no other process may have taken the directory.
            onCompromised: (error) =>
              Effect.runForkWith(context)(
                Effect.logError(`the lock on ${dataDir} could not be kept: ${error.message}`)
              )
          }),
        catch: (cause) =>
          new SqlError({
            reason: new ConnectionError({
              cause,
              message:
                (cause as { code?: string }).code === "ELOCKED"
                  ? `the PGlite database in ${dataDir} is in use by another UMO process (lock ${lockPath}); ` +
                    `stop that process, or give this one another UMO_DATA_DIR`
                  : `could not lock the PGlite database in ${dataDir}: ${String(cause)}`,
              operation: "connect"
            })
          })
      }),
      (release) => Effect.promise(() => release().catch(() => undefined))
    )
  })
