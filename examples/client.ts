/**
 * The JavaScript client against a running server: capture, search, prove offline, forget.
 *
 *   npm start                                   # in another terminal; note the key it prints
 *   UMO_API_KEY=umo_… npx tsx examples/client.ts
 *
 * UMO_BASE_URL defaults to http://127.0.0.1:8787. Prints one JSON object.
 */
import { UMOClient, verifyProof, verifyReceipt } from "@umo/client"

const umo = new UMOClient() // reads UMO_API_KEY and UMO_BASE_URL
// Pin the service's signing key once; later checks need no call to the service.
const signingKeys = await umo.signingKeys()

const text = "Ana recommended the ramen place on Valencia Street; we are going there on Saturday."
const captured = await umo.capture(text, { source: "examples/client.ts" })
const [best] = await umo.ask("Where are we going on Saturday?", { limit: 3 })
const memory = await umo.get(captured.umoId)
const proof = await umo.verify(captured.umoId)
const provenOffline = await verifyProof(proof, signingKeys, text)
const receipt = await umo.forget(captured.umoId)
const deletion = await verifyReceipt(receipt.receipt, signingKeys)

console.log(
  JSON.stringify(
    {
      captured: captured.umoId,
      best_match: best && { umo_id: best.umoId, score: Number(best.score.toFixed(3)) },
      entities: memory.entities.map((e) => `${e.text}/${e.type}`),
      proof_valid: proof.valid,
      proven_offline: provenOffline,
      forgotten: receipt.forgotten,
      receipt_verified: deletion.umo_id === captured.umoId
    },
    null,
    2
  )
)
