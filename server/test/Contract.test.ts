import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ProviderStub, startProviderStub } from "./support/ProviderStub.js"
import { type LiveServer, startServer } from "./support/ServerProcess.js"

const root = join(import.meta.dirname, "..", "..")
// scripts/test-tools.sh (the pretest step of `npm test`) keeps Schemathesis, pinned, in the test
// tools' virtualenv.
const venv = process.env["UMO_TEST_VENV"] ?? join(root, ".cache", "test-venv")
const st = join(venv, "bin", "st")
const key = "umo_contract-test-key-000000000000000000000"

/**
 * The API document tells the truth: Schemathesis reads `/openapi.json` of a live `npm start`
 * server and runs every check it has — server errors, status codes, headers and bodies against
 * the document, schema-valid requests accepted and schema-violating ones refused, undeclared
 * methods answered 405, authentication not ignored — through the examples, coverage, fuzzing and
 * stateful phases (the stateful one follows the document's links from captures to reads, proofs,
 * explanations and deletions). Cloud models answer through a stub that speaks the providers' wire
 * formats. Any failure fails the test, with Schemathesis's report in the output.
 */
describe("the OpenAPI document against the server (Schemathesis, every check)", () => {
  let server: LiveServer
  let stub: ProviderStub

  beforeAll(async () => {
    stub = await startProviderStub(() => true)
    server = await startServer(
      root,
      { [key]: "contract" },
      {
        UMO_EMBEDDER: "use-lite",
        OPENAI_BASE_URL: stub.url,
        ANTHROPIC_BASE_URL: stub.url,
        UMO_RATE_LIMIT_PER_MINUTE: "1000000",
        // Schemathesis waits 30 s for an answer (below), and counts a 503 as a server error: the
        // local language model offered is the smallest, which answers in a second or two.
        UMO_LOCAL_ANSWER_MODELS: "smollm2-135m-instruct",
        // and fuzzed memories of rare characters read as at most 400 tokens.
        UMO_ASK_PROMPT_TOKENS: "400"
      }
    )
  }, 240_000)

  afterAll(async () => {
    await server?.stop()
    await stub?.close()
  }, 60_000)

  it("finds no failure", async () => {
    expect(existsSync(st), `${st} is missing: run \`bash scripts/test-tools.sh\``).toBe(true)
    // One seed, so CI generates the same cases each run: with some seeds Schemathesis 4.32.5 cannot
    // generate a fuzzing case for POST /v1/ask at all ("does not support a `not` whose complement
    // is not spelled out") and reports that as an error of the run. Another seed, or a random one:
    // UMO_CONTRACT_SEED=123 or UMO_CONTRACT_SEED=random.
    const chosenSeed = process.env["UMO_CONTRACT_SEED"] ?? "45015316"
    const seed = chosenSeed === "random" ? String(Math.floor(Math.random() * 2 ** 31)) : chosenSeed
    const args = [
      "--config-file",
      join(root, "server", "test", "contract", "schemathesis.toml"),
      "run",
      `${server.baseUrl}/openapi.json`,
      "--checks",
      "all",
      "--phases",
      "examples,coverage,fuzzing,stateful",
      // Examples per operation in the fuzzing and stateful phases: 50 keeps CI under its time
      // (the coverage phase is complete whatever this is); a deeper run:
      // UMO_CONTRACT_MAX_EXAMPLES=500 npx vitest run server/test/Contract.test.ts
      "--max-examples",
      process.env["UMO_CONTRACT_MAX_EXAMPLES"] ?? "50",
      // One worker: Hypothesis's caches are not thread-safe (two workers met a spurious KeyError in
      // its lambda-source cache once in six runs).
      "--workers",
      "1",
      // `--checks all` holds every answer to 10 s too (max_response_time). Beside the other files'
      // two workers on two cores, the first capture after start took 10.5 s in CI (2026-11-30): it
      // embedded the default categories and the slot sense's examples, 4 to 6 s alone, which the
      // server now does while it starts (memoryLayer's warmUp). A slow answer under that load is
      // no breach of the contract (speed is measured in bench/, not here); a failure or a hang is.
      "--request-timeout",
      "30",
      "--max-response-time",
      "30",
      "--seed",
      seed,
      "--header",
      `Authorization: Bearer ${key}`,
      "--no-color"
    ]
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      let output = ""
      const child = spawn(st, args, {
        cwd: root,
        env: {
          ...process.env,
          NO_COLOR: "1",
          SCHEMATHESIS_HOOKS: join(root, "server", "test", "contract", "hooks.py")
        }
      })
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.on("close", (code) => resolve({ code, output }))
    })
    const summary = output.match(/(\d+) generated(?:, (\d+) found)?[^\n]*/)?.[0] ?? "no summary"
    // The summary at the end names each phase once, without its duration.
    const phases = [...output.matchAll(/^\s*(?:✅|❌|⏭)\s+(?:Examples|Coverage|Fuzzing|Stateful)\s*$/gm)].map(
      (m) => m[0].trim().replace(/\s+/g, " ")
    )
    console.log(`schemathesis (seed ${seed}): ${summary}; ${phases.join("; ")}`)
    // The server's own last words too: a run that ends with "server stopped responding" needs them.
    expect(code, `${output.slice(-20_000)}\n--- the server printed last ---\n${server.output()}`).toBe(0)
    // Alone it takes 8 to 12 minutes; beside the other files' two workers (scripts/test-unit.sh)
    // it shares two cores with them.
  }, 1_800_000)
})
