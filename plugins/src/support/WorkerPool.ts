import { Piscina } from "piscina"

/** Whether this code runs from its TypeScript sources (tests, `npm start`) or the built package. */
const fromSources = import.meta.url.endsWith(".ts")

/**
 * Each thread's young generation at most (V8's, in MB: three semi-spaces of 8 MB). Left to V8, a
 * worker's may grow to 192 MB here, and grows while a bulk load allocates fast, then stays
 * resident. Capped (and the main thread alike: `scripts/start.sh`'s `--max-semi-space-size=8`),
 * the server held 1,389 MB right after 10,000 memories loaded through the API instead of 1,856,
 * loading as fast (bench/README.md, "Right after a load").
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
