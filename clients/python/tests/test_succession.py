"""Offline checks of supersessions and erasures, without a server: a superseded memory's proof and
its signed ``supersede`` entry, and erasure receipts — with the service's (and the JS client's)
hash and consistency rules, so that what verifies there verifies here and tampering is caught."""

from __future__ import annotations

import json
import unittest
from typing import Any, Optional

from umo_client import Proof, VerificationError
from umo_client.verify import entry_hash, verify_entry, verify_proof, verify_receipt

from .signing import Key, b64url

K, X = Key("succession"), Key("intruder")
OLD, NEW = "01a21082-434e-73d6-a74f-1928b7308174", "01a21082-4900-7316-8f9a-c2e1e177aefb"


def entry(key: Key, seq: int, kind: str, umo_id: str, superseded_by: Optional[str] = None) -> dict[str, Any]:
    """A chain entry as the service writes it, signed by ``key``."""
    made: dict[str, Any] = {
        "account_id": "acct",
        "seq": seq,
        "kind": kind,
        "umo_id": umo_id,
        "content_hash": "c" * 64,
        "semantic_hash": "s" * 64,
        "record_hash": "r" * 64,
        **({} if superseded_by is None else {"superseded_by": superseded_by}),
        "recorded_at": "2026-01-01T00:00:00.000Z",
        "prev_hash": "0" * 64,
        "key_id": key.kid,
    }
    return sign_entry(key, made)


def sign_entry(key: Key, made: dict[str, Any]) -> dict[str, Any]:
    made = {**made, "entry_hash": entry_hash(made)}
    return {**made, "signature": key.sign(made["entry_hash"])}


def jws(key: Key, claims: dict[str, Any]) -> str:
    signing_input = f"{b64url(json.dumps({'alg': 'EdDSA', 'kid': key.kid}).encode())}.{b64url(json.dumps(claims).encode())}"
    return f"{signing_input}.{key.sign(signing_input)}"


def erasure(ids: list[str], start: int, signer: Key = K, **changes: Any) -> dict[str, Any]:
    """Erasure claims for ``ids`` (deletion entries from seq ``start``), with ``changes`` applied."""
    last = entry(signer, start + len(ids) - 1, "delete", ids[-1])
    claims = {"type": "umo-erasure-receipt", "count": len(ids), "umo_ids": ids,
              "deleted_at": last["recorded_at"], "first_seq": start, "entry": last}
    return {**claims, **changes}


def superseded_proof(supersession: Optional[dict[str, Any]], superseded_by: Optional[str] = NEW) -> Proof:
    capture = entry(K, 1, "capture", OLD)
    return Proof.from_raw(
        {
            "valid": True,
            "umo_id": OLD,
            "audit_proof": {"content_hash": capture["content_hash"], "semantic_hash": capture["semantic_hash"]},
            "chain": capture,
            "superseded_by": superseded_by,
            "supersession": supersession,
            "public_key": K.jwk,
            "rotations": [],
        }
    )


class SupersessionEntryTest(unittest.TestCase):
    def test_the_successor_is_hashed_only_in_supersede_entries_and_as_the_service_hashes_it(self) -> None:
        plain = {"account_id": "a", "seq": 2, "kind": "supersede", "umo_id": "u", "content_hash": "c",
                 "semantic_hash": "s", "record_hash": "r", "recorded_at": "2026-01-01T00:00:00.000Z",
                 "prev_hash": "0" * 64}
        # As @umo/core's entryHash (and the JS client's) computes them.
        self.assertEqual(entry_hash({**plain, "superseded_by": "v"}), "e178fd0700e3fa267d8ef9c3f1458a3971b795bbc70949753913a8b94ae03b35")
        self.assertEqual(entry_hash(plain), "4ea3b777f6edda3d3183501ad3d7cf77925799db2a64c5cf048eb2e59e8a7683")
        # A successor that is not text is not hashed (as in JS): the entry hashes as one without it.
        self.assertEqual(entry_hash({**plain, "superseded_by": None}), entry_hash(plain))
        self.assertNotEqual(entry_hash({**plain, "superseded_by": "w"}), entry_hash({**plain, "superseded_by": "v"}))

    def test_a_signed_supersede_entry_verifies_and_a_changed_successor_does_not(self) -> None:
        signed = entry(K, 2, "supersede", OLD, superseded_by=NEW)
        self.assertTrue(verify_entry(signed, K.jwk))
        self.assertFalse(verify_entry({**signed, "superseded_by": OLD}, K.jwk))
        without = {k: v for k, v in signed.items() if k != "superseded_by"}
        self.assertFalse(verify_entry(without, K.jwk))
        self.assertFalse(verify_entry(signed, X.jwk))


class SupersededProofTest(unittest.TestCase):
    def test_a_superseded_memorys_proof_verifies_with_its_signed_supersession(self) -> None:
        self.assertTrue(verify_proof(superseded_proof(entry(K, 2, "supersede", OLD, superseded_by=NEW)), K.jwk))
        # A current memory's proof needs none.
        self.assertTrue(verify_proof(superseded_proof(None, superseded_by=None), K.jwk))

    def test_a_missing_or_altered_supersession_fails(self) -> None:
        good = entry(K, 2, "supersede", OLD, superseded_by=NEW)
        cases = {
            "missing": None,
            "another kind": entry(K, 2, "delete", OLD, superseded_by=NEW),
            "another memory": entry(K, 2, "supersede", NEW, superseded_by=NEW),
            "another successor": entry(K, 2, "supersede", OLD, superseded_by=OLD),
            "no successor": entry(K, 2, "supersede", OLD),
            "successor edited after signing": {**good, "superseded_by": OLD},
            "signed by an untrusted key": entry(X, 2, "supersede", OLD, superseded_by=NEW),
        }
        for name, supersession in cases.items():
            proof = superseded_proof(supersession, superseded_by=OLD if name == "successor edited after signing" else NEW)
            self.assertFalse(verify_proof(proof, K.jwk), name)
        # The proof's own claim of a successor must be the signed one.
        self.assertFalse(verify_proof(superseded_proof(good, superseded_by=OLD), K.jwk))


class ErasureReceiptTest(unittest.TestCase):
    IDS = ["01a-first", "01b-second", "01c-third"]

    def test_an_erasure_receipt_verifies_and_returns_its_claims(self) -> None:
        claims = verify_receipt(jws(K, erasure(self.IDS, 5)), K.jwk)
        self.assertEqual((claims["type"], claims["count"], claims["umo_ids"]), ("umo-erasure-receipt", 3, self.IDS))
        self.assertEqual((claims["first_seq"], claims["entry"]["seq"], claims["entry"]["umo_id"]), (5, 7, self.IDS[-1]))
        self.assertEqual(verify_receipt(jws(K, erasure(self.IDS[:1], 1)), K.jwk)["count"], 1)

    def test_claims_that_do_not_fit_their_entry_fail_even_when_signed(self) -> None:
        capture = entry(K, 7, "capture", self.IDS[-1])
        cases = {
            "count too high": erasure(self.IDS, 5, count=4),
            "count as text": erasure(self.IDS, 5, count="3"),
            "count as a boolean": erasure(self.IDS[:1], 1, count=True),
            "first_seq off by one": erasure(self.IDS, 5, first_seq=4),
            "an id left out": erasure(self.IDS, 5, umo_ids=self.IDS[1:], count=2),
            "ids in another order": erasure(self.IDS, 5, umo_ids=list(reversed(self.IDS))),
            "no ids": erasure(self.IDS, 5, umo_ids=[], count=0, first_seq=8),
            "ids not a list": erasure(self.IDS, 5, umo_ids="01a-first"),
            "a capture entry": erasure(self.IDS, 5, entry=capture),
            "no entry": erasure(self.IDS, 5, entry=None),
            "an unknown type": erasure(self.IDS, 5, type="umo-purge-receipt"),
            "a deletion receipt of many": erasure(self.IDS, 5, type="umo-deletion-receipt"),
        }
        for name, claims in cases.items():
            with self.assertRaisesRegex(VerificationError, "not a UMO capture, deletion or erasure receipt", msg=name):
                verify_receipt(jws(K, claims), K.jwk)

    def test_a_tampered_or_foreign_erasure_receipt_fails(self) -> None:
        good = jws(K, erasure(self.IDS, 5))
        header, payload, signature = good.split(".")
        forged = b64url(json.dumps(erasure(self.IDS[:2], 5, entry=entry(K, 6, "delete", self.IDS[1]))).encode())
        with self.assertRaisesRegex(VerificationError, "signature"):
            verify_receipt(f"{header}.{forged}.{signature}", K.jwk)
        with self.assertRaisesRegex(VerificationError, "signature"):
            verify_receipt(good, X.jwk)
        # Signed by the trusted key, but over an entry the intruder signed.
        with self.assertRaisesRegex(VerificationError, "entry"):
            verify_receipt(jws(K, erasure(self.IDS, 5, signer=X)), K.jwk)


if __name__ == "__main__":
    unittest.main()
