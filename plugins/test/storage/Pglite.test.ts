import { Database } from "@umo/plugins"
import { storageContract } from "./contract.js"
import { storageLayer } from "./fixtures.js"

storageContract("PGlite", storageLayer(Database.pglite()))
