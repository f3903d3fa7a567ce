import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

// Tests run against the sources of the workspace packages, not their built dist/.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@umo\/core$/, replacement: here("./core/src/index.ts") },
      { find: /^@umo\/plugins$/, replacement: here("./plugins/src/index.ts") },
      { find: /^@umo\/plugins\/(.*)$/, replacement: here("./plugins/src/$1/index.ts") },
      { find: /^@umo\/memory$/, replacement: here("./memory/src/index.ts") },
      { find: /^@umo\/mcp$/, replacement: here("./mcp/src/index.ts") },
      { find: /^@umo\/server$/, replacement: here("./server/src/index.ts") },
      { find: /^@umo\/client$/, replacement: here("./clients/js/src/index.ts") }
    ]
  },
  test: {
    include: [
      "core/test/**/*.test.ts",
      "plugins/test/**/*.test.ts",
      "memory/test/**/*.test.ts",
      "mcp/test/**/*.test.ts",
      "server/test/**/*.test.ts",
      "clients/js/test/**/*.test.ts",
      "examples/test/**/*.test.ts",
      "bench/test/**/*.test.ts",
      "console/test/**/*.test.ts",
      "integrations/*/test/**/*.test.ts"
    ],
    testTimeout: 120_000,
    hookTimeout: 120_000
  }
})
