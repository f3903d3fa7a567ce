import { Piscina } from "piscina"

/** Whether this code runs from its TypeScript sources (tests, `npm start`) or the built package. */
const fromSources = import.meta.url.endsWith(".ts")

/**
 * A Piscina pool running the worker module `name` (no extension) that sits beside `base`
 * (`import.meta.url` of the caller): the TypeScript file through tsx from the sources, the compiled
 * file beside it from the built package.
 */
export const workerPool = (
  base: string,
  name: string,
  options: Omit<ConstructorParameters<typeof Piscina>[0] & object, "filename">
): Piscina =>
  new Piscina({
    ...options,
    filename: new URL(`./${name}${fromSources ? ".ts" : ".js"}`, base).href,
    ...(fromSources ? { execArgv: ["--import", "tsx"] } : {})
  })
