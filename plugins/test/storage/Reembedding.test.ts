import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Database } from "@umo/plugins"
import { afterAll, describe, it } from "vitest"
import { reembeddingScenario } from "./reembedding.js"
import { scratchDatabase } from "./ScratchDatabase.js"

const dataDir = mkdtempSync(join(tmpdir(), "umo-reembed-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

// CI provisions PostgreSQL + pgvector (scripts/provision-postgres.sh) and sets this variable.
const url = process.env["UMO_TEST_DATABASE_URL"] || undefined
const scratch = scratchDatabase(url ?? "postgres://127.0.0.1/none", `umo_reembed_${process.pid}`)
const engines = [
  {
    name: "PGlite",
    database: () => Database.pglite({ dataDir: join(dataDir, "pglite") }),
    setUp: async () => {},
    tearDown: async () => {}
  },
  ...(url === undefined
    ? []
    : [
        {
          name: "PostgreSQL",
          database: () => Database.postgres(scratch.url),
          setUp: scratch.create,
          tearDown: scratch.drop
        }
      ])
]

describe.each(engines)(
  "re-embedding a store with another model on $name",
  ({ name, database, setUp, tearDown }) => {
    it("stages in the background, resumes after an interruption, switches in one step with valid proofs", {
      timeout: 240_000
    }, async () => {
      await setUp()
      // PGlite is one process's database; on PostgreSQL another process follows the switch.
      await reembeddingScenario(database, name === "PostgreSQL" ? ["memory_chunks_embedding_hnsw_12"] : [], {
        follower: name === "PostgreSQL"
      })
      await tearDown()
    })
  }
)
