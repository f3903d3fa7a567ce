import { Piscina } from "piscina"

/** Whether this code runs from its TypeScript sources (tests, `npm start`) or the built package. */
const fromSources = import.meta.url.endsWith(".ts")

/**
 * Where the worker module `name` (no extension) that sits beside `base` (`import.meta.url` of the
 * caller) is, and how a thread must start to run it: the TypeScript file through tsx from the
 * sources, the compiled file beside it from the built package.
 */
export const workerScript = (
  base: string,
  name: string
): { readonly filename: URL; readonly options: { execArgv?: Array<string> } } => ({
  filename: new URL(`./${name}${fromSources ? ".ts" : ".js"}`, base),
  options: fromSources ? { execArgv: ["--import", "tsx"] } : {}
})

/** A Piscina pool running the worker module `name` beside `base` (see {@link workerScript}). */
export const workerPool = (
  base: string,
  name: string,
  options: Omit<ConstructorParameters<typeof Piscina>[0] & object, "filename">
): Piscina => {
  const script = workerScript(base, name)
  return new Piscina({ ...options, filename: script.filename.href, ...script.options })
}
