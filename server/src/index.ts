/** @umo/server: the reference HTTP server over the default plugin set. */
export { UmoApi } from "./api/UmoApi.js"
export { createUmoServer, limits as httpLimits } from "./http/NodeHttp.js"
export { ApiRoutes, App, NodeServer, ServerLive, StorageConfig } from "./Server.js"
export { ensureKeys, parseApiKeys } from "./services/Bootstrap.js"
