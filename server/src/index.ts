/** @umo/server: the reference HTTP server over the default plugin set. */
export { UmoApi } from "./api/UmoApi.js"
export { createUmoServer, limits as httpLimits } from "./http/NodeHttp.js"
export { ensureKeys, parseApiKeys } from "./keys/Bootstrap.js"
export { ApiRoutes, App, NodeServer, ServerLive, StorageConfig } from "./Server.js"
