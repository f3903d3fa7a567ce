/**
 * @umo/memory: the UMO memory service as a library. The Effect service is `Memory` (its contract
 * is the JSDoc of `Memory.ts`), made by `MemoryLive.layer` on the ports of `@umo/core`; apps that
 * do not use Effect call `openMemory`, whose object has the verbs of `@umo/client`'s `UMOClient`.
 * @module
 */

export * from "./Config.js"
export * as Categorizer from "./capture/Categorizer.js"
export * from "./Errors.js"
export * from "./Fields.js"
export * from "./Filters.js"
export * from "./Memory.js"
export * as MemoryLive from "./MemoryLive.js"
export * from "./openMemory.js"
export * from "./Requests.js"
export * as Results from "./Results.js"
export * as Ranking from "./recall/Ranking.js"
export * from "./StageTimings.js"
export * as Transfers from "./Transfers.js"
