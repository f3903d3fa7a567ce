import { cpus, totalmem } from "node:os"

/** What a figure was measured on. */
export const machine = () => ({
  cores: cpus().length,
  cpu: cpus()[0]?.model ?? "unknown",
  memory_gb: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  date: new Date().toISOString().slice(0, 10)
})
