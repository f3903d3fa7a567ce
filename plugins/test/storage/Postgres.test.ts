import { Database } from "@umo/plugins"
import { describe } from "vitest"
import { storageContract } from "./contract.js"
import { storageLayer } from "./fixtures.js"

// CI provisions PostgreSQL + pgvector (scripts/provision-postgres.sh) and sets this variable.
const url = process.env["UMO_TEST_DATABASE_URL"]

describe.runIf(url)("PostgreSQL", () => {
  storageContract("PostgreSQL", storageLayer(Database.postgres(url!)))
})
