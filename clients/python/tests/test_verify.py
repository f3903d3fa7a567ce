"""Offline verification primitives, without a server."""

from __future__ import annotations

import base64
import json
import random
import unittest
from typing import Any, Optional

from umo_client import Proof, TrustedKeys, VerificationError, _ed25519, key_thumbprint, trusted_keys
from umo_client.errors import (
    APIError,
    AuthenticationError,
    NotFoundError,
    RateLimitError,
    ValidationError,
    error_for,
    parse_retry_after,
)
from umo_client.verify import _b64url, entry_hash, verify_entry, verify_proof, verify_receipt

from .signing import Key, b64url, key_record, recode_last_character, sign

# RFC 8032, section 7.1, tests 1 and 2.
VECTORS = [
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
]


class Ed25519Test(unittest.TestCase):
    def test_rfc_8032_vectors_verify(self) -> None:
        for public, message, signature in VECTORS:
            self.assertTrue(_ed25519.verify(bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)))

    def test_any_flipped_bit_of_key_message_or_signature_fails(self) -> None:
        rng = random.Random(8032)
        public, message, signature = (bytearray.fromhex(x) for x in VECTORS[1])
        for _ in range(200):
            parts = [bytearray(public), bytearray(message), bytearray(signature)]
            part = parts[rng.randrange(3)]
            bit = rng.randrange(len(part) * 8)
            part[bit // 8] ^= 1 << (bit % 8)
            self.assertFalse(_ed25519.verify(bytes(parts[0]), bytes(parts[1]), bytes(parts[2])))

    def test_wrong_lengths_are_refused(self) -> None:
        public, message, signature = (bytes.fromhex(x) for x in VECTORS[0])
        self.assertFalse(_ed25519.verify(public[:31], message, signature))
        self.assertFalse(_ed25519.verify(public, message, signature[:63]))


    def test_the_test_signer_reproduces_the_rfc_8032_vectors(self) -> None:
        secrets = ["9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"]
        for secret, (_, message, signature) in zip(secrets, VECTORS):
            self.assertEqual(sign(bytes.fromhex(secret), bytes.fromhex(message)).hex(), signature)


class Base64UrlTest(unittest.TestCase):
    def test_only_the_canonical_form_decodes(self) -> None:
        self.assertEqual(_b64url(""), b"")
        self.assertEqual(_b64url("AA"), b"\0")
        self.assertEqual(_b64url("_-8"), bytes([0xFF, 0xEF]))
        # Padding, the standard alphabet, whitespace, a dangling character, non-zero unused bits.
        for text in ("AA==", "+/8", "AA\n", " AA", "A", "AB", "AAB", "_-9", "ÄA"):
            self.assertIsNone(_b64url(text), text)
        self.assertIsNone(_b64url(None))

    def test_a_signature_recoded_in_its_last_character_is_refused(self) -> None:
        signature = b64url(bytes(range(64)))
        recoded = recode_last_character(signature)
        self.assertNotEqual(recoded, signature)
        # A lenient decoder reads both as the same bytes.
        lenient = base64.urlsafe_b64decode(recoded + "==")
        self.assertEqual(lenient, bytes(range(64)))
        self.assertIsNotNone(_b64url(signature))
        self.assertIsNone(_b64url(recoded))


class ThumbprintTest(unittest.TestCase):
    def test_rfc_8037_appendix_a_3(self) -> None:
        jwk = {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}
        self.assertEqual(key_thumbprint(jwk), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
        # Other members, a declared kid among them, play no part.
        self.assertEqual(key_thumbprint({**jwk, "kid": "mine", "use": "sig", "alg": "EdDSA"}), key_thumbprint(jwk))


# A key ring as the service keeps it: A, rotated to B, rotated to C. X is an intruder's key.
A, B, C, X = Key("a"), Key("b"), Key("c"), Key("x")
RING = [
    key_record(A, None, [A], seq=1),
    key_record(B, A, [A, B], seq=2),
    key_record(C, B, [B, C], seq=3),
]


def signed_entry(key: Key, kind: str = "capture", umo_id: str = "u-1") -> dict[str, Any]:
    entry: dict[str, Any] = {
        "account_id": "acct",
        "seq": 1,
        "kind": kind,
        "umo_id": umo_id,
        "content_hash": "c" * 64,
        "semantic_hash": "s" * 64,
        "record_hash": "r" * 64,
        "recorded_at": "2026-01-01T00:00:00.000Z",
        "prev_hash": "0" * 64,
        "key_id": key.kid,
    }
    entry["entry_hash"] = entry_hash(entry)
    entry["signature"] = key.sign(entry["entry_hash"])
    return entry


def receipt(key: Key, entry: dict[str, Any], kid: Optional[str] = "own") -> str:
    header = {"alg": "EdDSA"} if kid is None else {"alg": "EdDSA", "kid": key.kid if kid == "own" else kid}
    claims = {"type": "umo-capture-receipt", "umo_id": entry["umo_id"], "entry": entry}
    signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
    return f"{signing_input}.{key.sign(signing_input)}"


class TrustTest(unittest.TestCase):
    def assertTrusts(self, trusted: dict[str, dict[str, Any]], *keys: Key) -> None:
        self.assertEqual(set(trusted), {k.kid for k in keys})
        for k in keys:
            self.assertEqual(trusted[k.kid]["x"], k.jwk["x"])

    def test_pinned_keys_are_known_by_their_thumbprint_whatever_kid_they_declare(self) -> None:
        self.assertTrusts(trusted_keys({**A.jwk, "kid": "something-else"}), A)
        self.assertTrusts(trusted_keys({"keys": [B.jwk, {**A.jwk, "kid": None}, {"kty": "RSA", "n": "x"}]}), A, B)
        self.assertIsInstance(trusted_keys(A.jwk), dict)

    def test_trust_passes_from_the_first_key_to_its_successors(self) -> None:
        self.assertTrusts(trusted_keys(A.jwk, RING), A, B, C)
        # In any order of the records.
        self.assertTrusts(trusted_keys(A.jwk, list(reversed(RING))), A, B, C)
        # And from a pinned JWK Set's own records.
        self.assertTrusts(trusted_keys({"keys": [A.jwk], "rotations": RING}), A, B, C)
        self.assertTrusts(trusted_keys({"keys": [A.jwk], "rotations": RING[:2]}, RING[2:]), A, B, C)

    def test_trust_passes_from_the_last_key_back_to_its_predecessors(self) -> None:
        self.assertTrusts(trusted_keys(C.jwk, RING), A, B, C)
        self.assertTrusts(trusted_keys(B.jwk, RING[1:2]), A, B)

    def test_without_records_or_with_a_gap_trust_stops(self) -> None:
        self.assertTrusts(trusted_keys(A.jwk), A)
        self.assertTrusts(trusted_keys(A.jwk, [RING[0], RING[2]]), A)
        self.assertTrusts(trusted_keys(C.jwk, [RING[1]]), C)

    def test_a_record_signed_by_only_one_of_its_two_keys_links_nothing(self) -> None:
        only_old, only_new = key_record(B, A, [A], seq=2), key_record(B, A, [B], seq=2)
        self.assertTrusts(trusted_keys(A.jwk, [only_old]), A)
        self.assertTrusts(trusted_keys(B.jwk, [only_new]), B)
        self.assertTrusts(trusted_keys(A.jwk, [only_new]), A)
        # Both signatures by one key, under the two kids, are still one key's.
        self.assertTrusts(trusted_keys(A.jwk, [key_record(B, A, [A, A], seq=2, kids=[A.kid, B.kid])]), A)
        self.assertTrusts(trusted_keys(A.jwk, [key_record(B, A, [B, B], seq=2, kids=[A.kid, B.kid])]), A)

    def test_a_record_whose_keys_declare_another_kid_links_nothing(self) -> None:
        record = key_record(B, A, [A, B], seq=2)
        payload = json.loads(base64.urlsafe_b64decode(record["payload"] + "=="))
        payload["key"]["kid"] = "other"
        altered = b64url(json.dumps(payload).encode())
        resigned = {
            "payload": altered,
            "signatures": [{"protected": s["protected"], "signature": k.sign(f"{s['protected']}.{altered}")} for s, k in zip(record["signatures"], [A, B])],
        }
        self.assertTrusts(trusted_keys(A.jwk, [resigned]), A)

    def test_an_intruder_never_becomes_trusted(self) -> None:
        forged = [
            key_record(X, None, [X], seq=1),
            # Claims to succeed C, and to precede A, signed by the intruder only (under all kids).
            key_record(X, C, [X], seq=4),
            key_record(X, C, [X, X], seq=4, kids=[X.kid, C.kid]),
            key_record(A, X, [X], seq=1),
            key_record(A, X, [X, X], seq=1, kids=[X.kid, A.kid]),
            # C's real signature over another record, pasted onto this one.
            {"payload": key_record(X, C, [X], seq=4)["payload"], "signatures": [*key_record(X, C, [X], seq=4)["signatures"], RING[2]["signatures"][1]]},
        ]
        for pinned in (A.jwk, C.jwk, {"keys": [C.jwk, B.jwk, A.jwk], "rotations": RING}):
            trusted = trusted_keys(pinned, RING + forged)
            self.assertTrusts(trusted, A, B, C)
            self.assertTrusts(trusted_keys(pinned, forged + RING), A, B, C)

    def test_a_key_endorsing_two_successors_links_neither(self) -> None:
        # A leaked retired key (A) endorses a second successor (X); both sign, as a record must.
        fork = key_record(X, A, [A, X], seq=2)
        self.assertTrusts(trusted_keys({"keys": [A.jwk], "rotations": RING}, [fork]), A)
        self.assertTrusts(trusted_keys(C.jwk, [*RING, fork]), B, C)
        # A verifier that pinned before the rotation, shown only the fork, cannot tell.
        self.assertTrusts(trusted_keys(A.jwk, [fork]), A, X)

    def test_a_record_with_a_recoded_signature_links_nothing(self) -> None:
        record = key_record(B, A, [A, B], seq=2)
        for i in range(2):
            signatures = [dict(s) for s in record["signatures"]]
            signatures[i]["signature"] = recode_last_character(signatures[i]["signature"])
            self.assertTrusts(trusted_keys(A.jwk, [{**record, "signatures": signatures}]), A)
        self.assertTrusts(trusted_keys(A.jwk, [{**record, "payload": record["payload"] + "="}]), A)
        self.assertTrusts(trusted_keys(A.jwk, [record]), A, B)

    def test_malformed_records_are_skipped(self) -> None:
        for junk in ({}, {"payload": 1, "signatures": []}, {"payload": "e30", "signatures": "no"}, {"payload": "!!", "signatures": []}):
            self.assertTrusts(trusted_keys(A.jwk, [junk, RING[1]]), A, B)


class RotatedVerificationTest(unittest.TestCase):
    def test_an_entry_verifies_with_the_key_its_key_id_names_among_the_trusted(self) -> None:
        entry = signed_entry(C)
        self.assertTrue(verify_entry(entry, C.jwk))
        self.assertTrue(verify_entry(entry, A.jwk, RING))
        self.assertTrue(verify_entry(entry, trusted_keys(A.jwk, RING)))
        self.assertTrue(verify_entry(entry, {"keys": [A.jwk], "rotations": RING}))
        self.assertFalse(verify_entry(entry, A.jwk))
        self.assertFalse(verify_entry(entry, trusted_keys(A.jwk)))
        # TrustedKeys are extended by further records.
        self.assertTrue(verify_entry(entry, trusted_keys(A.jwk), RING))
        # The key the entry names, not any trusted key.
        self.assertFalse(verify_entry({**entry, "key_id": B.kid}, A.jwk, RING))
        self.assertFalse(verify_entry({**entry, "key_id": None}, A.jwk, RING))
        self.assertFalse(verify_entry({**entry, "seq": 2}, A.jwk, RING))
        self.assertFalse(verify_entry({**entry, "signature": recode_last_character(entry["signature"])}, A.jwk, RING))
        self.assertFalse(verify_entry(signed_entry(X), A.jwk, RING))

    def test_a_proof_follows_its_own_rotations(self) -> None:
        entry = signed_entry(C)
        raw = {
            "valid": True,
            "umo_id": entry["umo_id"],
            "audit_proof": {"content_hash": entry["content_hash"], "semantic_hash": entry["semantic_hash"]},
            "chain": entry,
            "public_key": C.jwk,
            "rotations": RING,
        }
        self.assertTrue(verify_proof(Proof.from_raw(raw), A.jwk))
        self.assertTrue(verify_proof(Proof.from_raw(raw), TrustedKeys({A.kid: A.jwk})))
        self.assertFalse(verify_proof(Proof.from_raw({**raw, "rotations": RING[:2]}), A.jwk))
        self.assertFalse(verify_proof(Proof.from_raw({**raw, "rotations": []}), A.jwk))
        self.assertFalse(verify_proof(Proof.from_raw(raw), X.jwk))
        self.assertEqual(Proof.from_raw({**raw, "rotations": None}).rotations, [])

    def test_a_receipt_is_checked_with_the_key_its_header_names(self) -> None:
        entry = signed_entry(C)
        good = receipt(C, entry)
        self.assertEqual(verify_receipt(good, A.jwk, RING)["umo_id"], entry["umo_id"])
        self.assertEqual(verify_receipt(good, {"keys": [B.jwk], "rotations": RING})["entry"], entry)
        with self.assertRaisesRegex(VerificationError, "signature"):
            verify_receipt(good, A.jwk)
        # Without a kid every trusted key is tried.
        self.assertEqual(verify_receipt(receipt(C, entry, kid=None), A.jwk, RING)["umo_id"], entry["umo_id"])
        # A kid naming another trusted key, or no trusted key, is not looked past.
        for kid in (A.kid, X.kid, ""):
            with self.assertRaisesRegex(VerificationError, "signature"):
                verify_receipt(receipt(C, entry, kid=kid), A.jwk, RING)
        header, payload, signature = good.split(".")
        with self.assertRaisesRegex(VerificationError, "signature"):
            verify_receipt(f"{header}.{payload}.{recode_last_character(signature)}", A.jwk, RING)
        with self.assertRaisesRegex(VerificationError, "base64url"):
            verify_receipt(f"{header}.{payload}=.{signature}", A.jwk, RING)
        # Signed by a trusted key, but the entry inside by the intruder.
        with self.assertRaisesRegex(VerificationError, "entry"):
            verify_receipt(receipt(C, signed_entry(X)), A.jwk, RING)


class EntryHashTest(unittest.TestCase):
    def test_matches_the_canonical_json_the_service_hashes(self) -> None:
        # The hash of this entry as computed by @umo/core's entryHash (RFC 8785 canonical JSON).
        entry = {
            "account_id": "a",
            "seq": 1,
            "kind": "capture",
            "umo_id": "u",
            "content_hash": "c",
            "semantic_hash": "s",
            "record_hash": "r",
            "recorded_at": "2026-01-01T00:00:00.000Z",
            "prev_hash": "0" * 64,
            "entry_hash": "ignored",
        }
        self.assertEqual(entry_hash(entry), "47cb7073f32e5f5e71d6f807e542f671e847c08616fad33d16c740df5a16deed")


class ErrorMappingTest(unittest.TestCase):
    def test_every_status_gets_one_class_keeping_status_detail_and_request_id(self) -> None:
        for status in range(400, 600):
            error = error_for(status, "why", "req-1", 2.0)
            expected = (
                AuthenticationError
                if status in (401, 403)
                else NotFoundError
                if status == 404
                else RateLimitError
                if status == 429
                else ValidationError
                if status in (400, 413, 415, 422)
                else APIError
            )
            self.assertIs(type(error), expected)
            self.assertEqual((error.status, error.detail, error.request_id), (status, "why", "req-1"))

    def test_retry_after_reads_seconds_and_http_dates(self) -> None:
        now = 1_795_000_000.0
        self.assertEqual(parse_retry_after("3"), 3.0)
        self.assertEqual(parse_retry_after("Sun, 22 Nov 2026 10:00:05 GMT", now=1_795_341_600.0), 5.0)
        self.assertEqual(parse_retry_after("Sun, 22 Nov 2026 09:00:00 GMT", now=now + 10_000_000), 0.0)
        for header in (None, "", "soon"):
            self.assertIsNone(parse_retry_after(header))


if __name__ == "__main__":
    unittest.main()
