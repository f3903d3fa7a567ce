/** @umo/server: the reference HTTP server over the default plugin set. */
export { UmoApi } from "./api/UmoApi.js"
export { ApiRoutes, NodeServer, ServerLive } from "./Server.js"
