/**
 * The whole memory service in this process: no server, no API key. `openMemory` answers the same
 * verbs as `UMOClient` (swap one line to use a server instead), on PGlite in `./data` by default.
 *
 *   npx tsx examples/in-process.ts [data directory]
 *
 * Prints what each step returned, as JSON.
 */
// First, before the packages load: on a Node older than 22.19, run again on a newer one.
import "./on-newer-node.js"
import { verifyProof, verifyReceipt } from "@umo/client"
import { openMemory } from "@umo/memory"

const umo = await openMemory({ dataDir: process.argv[2] ?? "./data", account: "in-process-example" })
// const umo = new UMOClient() — the same calls, against a running server.
try {
  const text = "Ada Lovelace wrote the first program for Charles Babbage's Analytical Engine in 1843."
  const captured = await umo.capture(text, { source: "example" })
  const answer = await umo.answer("Who wrote the first program?")
  // Offline verification: pin the service's keys once, then check without trusting the service.
  const keys = await umo.signingKeys()
  const proof = await umo.verify(captured.umoId)
  const proven = await verifyProof(proof, keys, text)
  const forgotten = await umo.forget(captured.umoId)
  const deletion = await verifyReceipt(forgotten.receipt, keys)
  console.log(
    JSON.stringify(
      {
        captured: { umo_id: captured.umoId, quality: captured.qualityScore },
        answer: { text: answer.text, cited: answer.citations.map((c) => c.umoId) },
        verified: { valid: proof.valid, offline: proven },
        forgotten: { forgotten: forgotten.forgotten, receipt_of: deletion.umo_id }
      },
      null,
      2
    )
  )
} finally {
  await umo.close()
}
