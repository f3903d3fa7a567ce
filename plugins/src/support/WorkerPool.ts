import { Piscina } from "piscina"

/** Whether this code runs from its TypeScript sources (tests, `npm start`) or the built package. */
const fromSources = import.meta.url.endsWith(".ts")

/**
 * Each thread's young generation at most (V8's, in MB: three semi-spaces of 8 MB). Left to V8 it
 * grows to 96 MB a thread while a bulk load allocates fast and stays resident after; capped, a
 * 10,000-memory search index cost its process 56 MB instead of 110 (bench:memory's parts) and the
 * whole server held 26 % less right after loading 10,000 memories, loading as fast.
 * `scripts/start.sh` caps the main thread alike (`--max-semi-space-size=8`).
 */
const youngGenerationMb = 24

/**
 * Where the worker module `name` (no extension) that sits beside `base` (`import.meta.url` of the
 * caller) is, and how a thread must start to run it: the TypeScript file through tsx from the
 * sources, the compiled file beside it from the built package; its young generation capped.
 */
export const workerScript = (
  base: string,
  name: string
): {
  readonly filename: URL
  readonly options: { execArgv?: Array<string>; resourceLimits: { maxYoungGenerationSizeMb: number } }
} => ({
  filename: new URL(`./${name}${fromSources ? ".ts" : ".js"}`, base),
  options: {
    ...(fromSources ? { execArgv: ["--import", "tsx"] } : {}),
    resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb }
  }
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
