import { Migrator } from "effect/sql"
import initial from "./0001_initial.js"
import timeline from "./0002_timeline.js"
import searchStats from "./0003_search_stats.js"
import signingKeys from "./0004_signing_keys.js"
import idempotency from "./0005_idempotency.js"
import rateBuckets from "./0006_rate_buckets.js"
import searchPostings from "./0007_search_postings.js"
import scopesAndUpdates from "./0008_scopes_and_updates.js"
import statementForget from "./0009_statement_forget.js"
import imports from "./0010_imports.js"
import newestAndRepeats from "./0011_newest_and_repeats.js"
import expiry from "./0012_expiry.js"
import categories from "./0013_categories.js"
import webhooks from "./0014_webhooks.js"
import forgetByAccount from "./0015_forget_by_account.js"
import reembedding from "./0016_reembedding.js"

/** The schema migrations, the same for PGlite and PostgreSQL, applied in id order at start-up. */
export const migrations = Migrator.fromRecord({
  "0001_initial": initial,
  "0002_timeline": timeline,
  "0003_search_stats": searchStats,
  "0004_signing_keys": signingKeys,
  "0005_idempotency": idempotency,
  "0006_rate_buckets": rateBuckets,
  "0007_search_postings": searchPostings,
  "0008_scopes_and_updates": scopesAndUpdates,
  "0009_statement_forget": statementForget,
  "0010_imports": imports,
  "0011_newest_and_repeats": newestAndRepeats,
  "0012_expiry": expiry,
  "0013_categories": categories,
  "0014_webhooks": webhooks,
  "0015_forget_by_account": forgetByAccount,
  "0016_reembedding": reembedding
})

export const migrate = Migrator.make({})({ loader: migrations, table: "umo_migrations" })
