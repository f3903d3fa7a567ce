/**
 * Serves the hashtag plugin from the reference server, without forking it:
 *
 *   UMO_CONFIG=examples/served-plugin/umo.config.ts npm start
 *
 * (or copy this file to `umo.config.ts` in the directory you start the server in). Every capture
 * then runs the default plugins and `hashtags`; `GET /v1/memories/{id}` returns its findings under
 * `extensions.hashtags`, and `GET /v1/memories/{id}/explain` mentions them.
 */
import { defineConfig } from "@umo/memory"
import { defaultPlugins } from "@umo/plugins"
import { hashtags } from "./hashtags.js"

export default defineConfig({
  plugins: [...defaultPlugins(), hashtags({ lowercase: true })]
})
