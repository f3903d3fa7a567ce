import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { it } from "@effect/vitest"
import { AccountStore, Ledger } from "@umo/core"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { storageContract } from "./contract.js"
import { storageLayer, testKeyPem } from "./fixtures.js"
import { scratchDatabase } from "./ScratchDatabase.js"

// CI provisions PostgreSQL + pgvector (scripts/provision-postgres.sh) and sets this variable.
const url = process.env["UMO_TEST_DATABASE_URL"]

describe.runIf(url)("PostgreSQL", () => {
  const scratch = scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_contract_${process.pid}`)
  const stack = storageLayer(scratch.layer)
  storageContract("PostgreSQL", stack)

  describe("two server processes on one database", () => {
    it.layer(stack, { timeout: "180 seconds" })((it) => {
      it.effect("append to one account's chain without forking it", () =>
        Effect.gen(function* () {
          const accounts = yield* AccountStore
          const ledger = yield* Ledger
          const account = (yield* accounts.ensureAccount(`two-processes-${crypto.randomUUID()}`)).account_id
          const worker = (count: number) =>
            promisify(execFile)(
              process.execPath,
              [
                "node_modules/tsx/dist/cli.mjs",
                "plugins/test/storage/append-worker.ts",
                scratch.url,
                account,
                String(count)
              ],
              { env: { ...process.env, UMO_TEST_SIGNING_KEY: testKeyPem } }
            )
          yield* Effect.promise(() => Promise.all([worker(30), worker(30)]))
          expect(yield* ledger.audit(account)).toEqual({ entries: 60, valid: true })
        })
      )
    })
  })
})
