/**
 * Storage and provenance adapters: one SQL store (PGlite or PostgreSQL + pgvector, with read
 * replicas and a primary found among several servers), the signed per-account hash chain, accounts
 * and keys, and the signing key.
 */
// First: refuses a Node older than 22.19 before anything else of the package is evaluated.
import "../support/NodeVersion.js"

export * as CitusDistribution from "./CitusDistribution.js"
export * as Database from "./Database.js"
export * as PgliteSqlClient from "./PgliteSqlClient.js"
export * as PostgresHosts from "./PostgresHosts.js"
export * as ReadReplicas from "./ReadReplicas.js"
export { ReadSqlClient, ReadsSince } from "./ReadReplicas.js"
export * as Reembedding from "./Reembedding.js"
export { Reembedder, ReembeddingPlan, type ReembeddingStatus } from "./Reembedding.js"
export * as SigningKey from "./SigningKey.js"
export * as SqlAccountStore from "./SqlAccountStore.js"
export * as SqlKeyRing from "./SqlKeyRing.js"
export * as SqlLedger from "./SqlLedger.js"
export * as SqlMemoryProvenance from "./SqlMemoryProvenance.js"
export * as SqlMemorySearch from "./SqlMemorySearch.js"
export * as SqlMemoryStore from "./SqlMemoryStore.js"
export * as SqlRateBuckets from "./SqlRateBuckets.js"
export * as StorageStack from "./StorageStack.js"
