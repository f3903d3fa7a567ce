import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

// The server serves the build at /console (server/src/http/ConsoleFiles.ts) under a CSP that allows
// only 'self': no inline script, so no module-preload polyfill (Vite would inline it otherwise).
export default defineConfig({
  root: here("."),
  base: "/console/",
  resolve: {
    // The client's TypeScript sources, so the console builds before (and without) the client's dist/.
    alias: [{ find: /^@umo\/client$/, replacement: here("../clients/js/src/index.ts") }]
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    modulePreload: { polyfill: false },
    sourcemap: false
  },
  server: {
    // `npm run dev --workspace=@umo/console` proxies the API to a server on the default port.
    proxy: Object.fromEntries(
      ["/v1", "/.well-known", "/health"].map((path) => [path, "http://127.0.0.1:8787"])
    )
  }
})
