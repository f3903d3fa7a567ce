/**
 * A separate process that opens a PGlite client, asks one question and never closes the client,
 * for the test that the PGlite thread neither lets the process exit before the answer nor keeps it
 * alive after. Usage: node --import tsx pglite-left-open.ts (prints 42, then should exit by itself)
 */
import { Effect, Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { make } from "../../src/storage/PgliteSqlClient.js"

const program = Effect.gen(function* () {
  const scope = yield* Scope.make()
  const sql = yield* make().pipe(Scope.provide(scope))
  const [row] = yield* sql<{ n: number }>`SELECT 41 + 1 AS n`
  console.log(row!.n)
})

Effect.runFork(program.pipe(Effect.provide(Reactivity.layer)))
