"""Offline verification primitives, without a server."""

from __future__ import annotations

import random
import unittest

from umo_client import _ed25519
from umo_client.errors import (
    APIError,
    AuthenticationError,
    NotFoundError,
    RateLimitError,
    ValidationError,
    error_for,
    parse_retry_after,
)
from umo_client.verify import entry_hash

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
