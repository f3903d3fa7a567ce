"""The Python client against a running server: capture, search, prove offline, forget.

    npm start                                         # in another terminal; note the key it prints
    pip install ./clients/python                      # or: export PYTHONPATH=clients/python
    UMO_API_KEY=umo_… python3 examples/client.py

UMO_BASE_URL defaults to http://127.0.0.1:8787. Prints one JSON object.
"""

import json

from umo_client import UMOClient, verify_proof, verify_receipt

umo = UMOClient()  # reads UMO_API_KEY and UMO_BASE_URL
# Pin the service's signing key once; later checks need no call to the service.
signing_keys = umo.signing_keys()

text = "Ana recommended the ramen place on Valencia Street; we are going there on Saturday."
captured = umo.capture(text, source="examples/client.py")
matches = umo.ask("Where are we going on Saturday?", limit=3)
memory = umo.get(captured.umo_id)
proof = umo.verify(captured.umo_id)
proven_offline = verify_proof(proof, signing_keys, text)
receipt = umo.forget(captured.umo_id)
deletion = verify_receipt(receipt.receipt, signing_keys)

print(
    json.dumps(
        {
            "captured": captured.umo_id,
            "best_match": matches and {"umo_id": matches[0].umo_id, "score": round(matches[0].score, 3)},
            "entities": [f"{e.text}/{e.type}" for e in memory.entities],
            "proof_valid": proof.valid,
            "proven_offline": proven_offline,
            "forgotten": receipt.forgotten,
            "receipt_verified": deletion["umo_id"] == captured.umo_id,
        },
        indent=2,
    )
)
