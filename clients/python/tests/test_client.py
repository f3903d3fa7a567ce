"""The Python client against a real server (PGlite), started for this module."""

from __future__ import annotations

import dataclasses
import os
import tempfile
import unittest
import uuid
from datetime import datetime, timezone
from pathlib import Path

from umo_client import (
    APIError,
    AuthenticationError,
    NotFoundError,
    RateLimitError,
    UMOClient,
    UMOError,
    ValidationError,
    VerificationError,
    key_thumbprint,
    trusted_keys,
    verify_proof,
    verify_receipt,
)

from .live_server import KEYS, RATE_PER_MINUTE, LiveServer

server: LiveServer


def setUpModule() -> None:
    global server
    server = LiveServer()


def tearDownModule() -> None:
    server.stop()


def client(name: str, **options: object) -> UMOClient:
    return UMOClient(api_key=KEYS[name], base_url=server.base_url, **options)  # type: ignore[arg-type]


LUNCH = "Maria Lopez had lunch with Tom at Nopa in San Francisco on Friday. The pasta was great."
UUID = r"^[0-9a-f-]{36}$"


class OptionsTest(unittest.TestCase):
    def test_key_and_base_url_come_from_arguments_or_the_environment(self) -> None:
        given = UMOClient(api_key="umo_x", base_url="http://example.test/")
        self.assertEqual((given.api_key, given.base_url, given.max_retries), ("umo_x", "http://example.test", 2))
        saved = {k: os.environ.get(k) for k in ("UMO_API_KEY", "UMO_BASE_URL")}
        os.environ.update(UMO_API_KEY="umo_from_env", UMO_BASE_URL="http://env.test")
        try:
            from_env = UMOClient()
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        self.assertEqual((from_env.api_key, from_env.base_url), ("umo_from_env", "http://env.test"))

    def test_an_authenticated_call_without_a_key_fails_before_any_request(self) -> None:
        with self.assertRaisesRegex(UMOError, "UMO_API_KEY"):
            UMOClient(api_key="", base_url=server.base_url).account()


class NineVerbsTest(unittest.TestCase):
    def test_capture_get_ask_list_explain_verify_and_forget(self) -> None:
        alice = client("alice")
        when = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
        captured = alice.capture(LUNCH, source="journal", timestamp=when)
        self.assertRegex(captured.umo_id, UUID)
        self.assertEqual(captured.raw["umo_id"], captured.umo_id)

        memory = alice.get(captured.umo_id)
        self.assertEqual((memory.umo_id, memory.source), (captured.umo_id, "journal"))
        self.assertEqual(memory.timestamp, "2026-11-20T12:00:00.000Z")
        self.assertTrue({"Maria Lopez", "San Francisco"} <= {e.text for e in memory.entities})
        self.assertGreater(len(memory.svo_triples), 0)
        self.assertEqual(memory.content_hash, captured.content_hash)

        best = alice.ask("Where did Maria have lunch?", limit=3)[0]
        self.assertEqual((best.umo_id, best.content), (captured.umo_id, LUNCH))
        self.assertGreater(best.score, 0)

        page = alice.list(source="journal")
        self.assertIn(captured.umo_id, [item.umo_id for item in page.items])
        self.assertGreaterEqual(page.total_count, 1)

        explanation = alice.explain(captured.umo_id)
        self.assertTrue(explanation.summary)
        self.assertTrue(explanation.key_reasons)
        self.assertTrue(explanation.reproducible)
        why = alice.explain(captured.umo_id, query="lunch in San Francisco")
        self.assertTrue(why.key_reasons[0].startswith("Semantic similarity to the query"))
        self.assertEqual(alice.get(captured.umo_id).extensions, {})

        proof = alice.verify(captured.umo_id)
        self.assertEqual((proof.valid, proof.hash_chain_valid, proof.chain_tampered), (True, True, False))
        self.assertEqual(proof.entry and proof.entry["umo_id"], captured.umo_id)

        receipt = alice.forget(captured.umo_id)
        self.assertEqual((receipt.forgotten, receipt.umo_id), (True, captured.umo_id))
        with self.assertRaises(NotFoundError):
            alice.get(captured.umo_id)

    def test_upload_takes_a_file_path(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "trip.md"
            path.write_text("# Trip\n\nWe hiked Mount Tamalpais with Priya in October.\n", encoding="utf-8")
            uploaded = client("alice").upload(path, source="notes")
        self.assertEqual(uploaded.format, "markdown")
        self.assertGreater(uploaded.characters, 20)
        self.assertEqual(client("alice").get(uploaded.umo_id).source, "notes")

    def test_batch_reports_a_bad_item_without_losing_the_others(self) -> None:
        results = client("alice").batch(
            [
                "The team retro is on Tuesday at 10am.",
                {"content": "Invoice 4411 was paid in full.", "source": "billing", "timestamp": "2026-01-05T09:00:00Z"},
                {"content": ""},
            ]
        )
        self.assertEqual([(r.index, r.success) for r in results], [(0, True), (1, True), (2, False)])
        self.assertEqual(results[2].error_status, 422)
        self.assertEqual(client("alice").get(results[1].umo_id or "").source, "billing")

    def test_iterate_walks_every_page(self) -> None:
        results = client("alice").batch([{"content": f"Paging note {i}.", "source": "paging"} for i in range(7)])
        seen = [item.umo_id for item in client("alice").iterate(source="paging", limit=3)]
        self.assertEqual(sorted(seen), sorted(r.umo_id for r in results))


class IdempotencyTest(unittest.TestCase):
    def test_a_capture_repeated_with_its_key_is_answered_again_and_stored_once(self) -> None:
        alice = client("alice")
        text = "The boiler was serviced on 3 March by Dana from Northside Heating."
        key = "py-client-test/boiler-1"
        before = alice.list(source="idempotent").total_count
        first = alice.capture(text, source="idempotent", idempotency_key=key)
        again = alice.capture(text, source="idempotent", idempotency_key=key)
        self.assertEqual((again.umo_id, again.receipt, again.content_hash), (first.umo_id, first.receipt, first.content_hash))
        self.assertEqual(alice.list(source="idempotent").total_count, before + 1)

        with self.assertRaises(ValidationError) as reused:
            alice.capture("Another note altogether.", source="idempotent", idempotency_key=key)
        self.assertEqual(reused.exception.status, 422)
        self.assertIn("Idempotency-Key", reused.exception.detail or "")
        self.assertEqual(alice.list(source="idempotent").total_count, before + 1)

        # Keys are per account: Bob's same key is a key of his own.
        bobs = client("bob").capture("Another note altogether.", source="idempotent", idempotency_key=key)
        self.assertNotEqual(bobs.umo_id, first.umo_id)
        # Without a key of one's own, each call is a capture of its own: a repeat of a current memory
        # is answered with it (dedupe) unless dedupe=False stores it again.
        self.assertEqual(alice.capture(text, source="idempotent").duplicate_of, first.umo_id)
        self.assertNotEqual(alice.capture(text, source="idempotent", dedupe=False).umo_id, first.umo_id)
        self.assertEqual(alice.list(source="idempotent").total_count, before + 2)

    def test_batch_and_upload_repeated_with_their_keys_store_nothing_more(self) -> None:
        alice = client("alice")
        before = alice.list(source="idempotent-batch").total_count
        items = [{"content": f"Shelf {i} holds the winter coats.", "source": "idempotent-batch"} for i in range(3)]
        first = alice.batch(items, idempotency_key="py-client-test/batch-1")
        again = alice.batch(items, idempotency_key="py-client-test/batch-1")
        self.assertEqual([r.umo_id for r in again], [r.umo_id for r in first])
        self.assertTrue(all(r.success for r in first))
        self.assertEqual(alice.list(source="idempotent-batch").total_count, before + 3)
        with self.assertRaises(ValidationError):
            alice.batch(items[:2], idempotency_key="py-client-test/batch-1")

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "coats.md"
            path.write_text("# Coats\n\nThe winter coats went to the cellar in April.\n", encoding="utf-8")
            uploaded = alice.upload(path, source="idempotent-batch", idempotency_key="py-client-test/upload-1")
            repeated = alice.upload(path, source="idempotent-batch", idempotency_key="py-client-test/upload-1")
        self.assertEqual((repeated.umo_id, repeated.format), (uploaded.umo_id, "markdown"))
        self.assertEqual(alice.list(source="idempotent-batch").total_count, before + 4)


class DedupeTest(unittest.TestCase):
    def test_a_repeated_capture_answers_the_current_memory_with_duplicate_of_and_stores_nothing(self) -> None:
        alice, user = client("alice"), f"dedupe-{uuid.uuid4().hex[:8]}"
        text = "The spare key to the shed hangs behind the kitchen door."
        first = alice.capture(
            text, source="notes", user_id=user, metadata={"room": "kitchen"}, timestamp="2025-03-01", infer_updates=False
        )
        self.assertIsNone(first.duplicate_of)
        # The same text, source, scope and metadata, with the same time or none: that memory again.
        for again in (
            alice.capture(text, source="notes", user_id=user, metadata={"room": "kitchen"}),
            alice.capture(
                text, source="notes", user_id=user, metadata={"room": "kitchen"}, timestamp="2025-03-01T00:00:00Z"
            ),
        ):
            self.assertEqual((again.umo_id, again.duplicate_of), (first.umo_id, first.umo_id))
            self.assertEqual((again.content_hash, again.created_at), (first.content_hash, first.created_at))
        [item] = alice.batch([{"content": text, "source": "notes", "user_id": user, "metadata": {"room": "kitchen"}}])
        self.assertEqual((item.success, item.umo_id, item.duplicate_of), (True, first.umo_id, first.umo_id))
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "shed.txt"
            path.write_text(text, encoding="utf-8")
            uploaded = alice.upload(path, source="notes", user_id=user, metadata={"room": "kitchen"})
        self.assertEqual((uploaded.umo_id, uploaded.duplicate_of), (first.umo_id, first.umo_id))
        self.assertEqual([i.umo_id for i in alice.list(user_id=user).items], [first.umo_id])

        # Other metadata, another user, dedupe=False or another source: a memory of its own.
        tagged = alice.capture(text, source="notes", user_id=user, metadata={"room": "hall"}, infer_updates=False)
        elsewhere = alice.capture(
            text, source="notes", user_id=f"{user}-b", metadata={"room": "kitchen"}, infer_updates=False
        )
        kept = alice.capture(
            text, source="notes", user_id=user, metadata={"room": "kitchen"}, dedupe=False, infer_updates=False
        )
        sourced = alice.capture(text, source="diary", user_id=user, metadata={"room": "kitchen"}, infer_updates=False)
        for own in (tagged, elsewhere, kept, sourced):
            self.assertIsNone(own.duplicate_of)
            self.assertNotEqual(own.umo_id, first.umo_id)
        self.assertEqual(alice.list(user_id=user).total_count, 4)
        # Search shows the text once for each metadata it was said with, counting them: three times
        # with the kitchen's (two sources, one kept apart), once with the hall's.
        matches = [m for m in alice.ask("Where is the spare key to the shed?", user_id=user, limit=10) if m.content == text]
        self.assertEqual(sorted((m.metadata["room"], m.times_said) for m in matches), [("hall", 1), ("kitchen", 3)])


class OtherCallsTest(unittest.TestCase):
    def test_answer_compare_account_models_health_and_signing_keys(self) -> None:
        alice = client("alice")
        first = alice.capture("Priya moved to Lisbon in March 2024 to join a robotics startup.")
        second = alice.capture("In March 2024 Priya relocated to Lisbon for a job at a robotics company.")

        answer = alice.answer("Which city did Priya move to for the robotics startup?")
        self.assertEqual((answer.method, answer.question_type), ("extractive", "location"))
        self.assertIn("Lisbon", answer.text)
        self.assertRegex(answer.citations[0].umo_id, UUID)

        comparison = alice.compare(first.umo_id, second.umo_id, explain=True)
        self.assertNotEqual(comparison.relationship, "unrelated")
        self.assertGreater(comparison.similarity, 0.5)
        self.assertIsNotNone(comparison.breakdown)

        account = alice.account()
        self.assertEqual((account.name, account.key_status), ("alice", "active"))
        models = alice.models()
        self.assertEqual(models.default_model, "umo-extractive")
        self.assertTrue(all(m.requires_key for m in models.cloud))
        health = alice.health()
        self.assertEqual(health["status"], "healthy")
        self.assertEqual((health["index"]["budget_mb"], health["index"]["shard"]), (1024, None))
        self.assertEqual(alice.signing_keys()["keys"][0]["crv"], "Ed25519")


class OfflineVerificationTest(unittest.TestCase):
    OTHER_KEY = {"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}

    def test_proofs_and_receipts_check_out_with_the_pinned_key_and_forgeries_do_not(self) -> None:
        alice = client("alice")
        pinned = UMOClient(base_url=server.base_url).signing_keys()
        text = "The lab notebook for experiment 12 is in the top drawer."
        captured = alice.capture(text)
        proof = alice.verify(captured.umo_id)
        self.assertTrue(verify_proof(proof, pinned, text))
        self.assertFalse(verify_proof(proof, pinned, text + " "))
        assert proof.entry is not None
        forged = dataclasses.replace(proof, entry={**proof.entry, "recorded_at": "2020-01-01T00:00:00.000Z"})
        self.assertFalse(verify_proof(forged, pinned))
        self.assertFalse(verify_proof(proof, self.OTHER_KEY))

        self.assertEqual(verify_receipt(captured.receipt, pinned)["entry"]["kind"], "capture")
        deletion = alice.forget(captured.umo_id)
        claims = verify_receipt(deletion.receipt, pinned)
        self.assertEqual((claims["umo_id"], claims["entry"]["kind"]), (captured.umo_id, "delete"))
        header, payload, signature = deletion.receipt.split(".")
        with self.assertRaises(VerificationError):
            verify_receipt(f"{header}.{payload[:-2]}AA.{signature}", pinned)
        with self.assertRaisesRegex(VerificationError, "signature"):
            verify_receipt(deletion.receipt, self.OTHER_KEY)


class KeyRotationTest(unittest.TestCase):
    """On a server of its own: the rotation changes the key every later signature is made with."""

    rotated: LiveServer

    @classmethod
    def setUpClass(cls) -> None:
        cls.rotated = LiveServer()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.rotated.stop()

    def test_keys_pinned_before_a_rotation_verify_what_either_key_signed(self) -> None:
        alice = UMOClient(api_key=KEYS["alice"], base_url=self.rotated.base_url)
        text_a, text_c = "The spare key is under the blue flowerpot.", "The new spare key is with the neighbour."
        a = alice.capture(text_a)
        b = alice.capture("The wifi password is on the fridge.")
        deleted = alice.forget(b.umo_id)
        pinned = alice.signing_keys()
        self.assertEqual(len(pinned["keys"]), 1)
        old_kid = pinned["keys"][0]["kid"]
        self.assertEqual(key_thumbprint(pinned["keys"][0]), old_kid)

        said: list[str] = []
        self.rotated.restart(between=lambda: said.append(self.rotated.cli("signing-key", "rotate")))
        self.assertIn("Rotated the signing key", said[0])

        c = alice.capture(text_c)
        fresh = alice.signing_keys()
        self.assertEqual(len(fresh["keys"]), 2)
        new_kid = fresh["keys"][0]["kid"]
        self.assertEqual([k["kid"] for k in fresh["keys"]], [new_kid, old_kid])
        self.assertNotEqual(new_kid, old_kid)
        self.assertEqual(set(trusted_keys(pinned, fresh["rotations"])), {old_kid, new_kid})
        self.assertEqual(set(trusted_keys(pinned)), {old_kid})

        proof_a, proof_c = alice.verify(a.umo_id), alice.verify(c.umo_id)
        self.assertEqual((proof_a.entry or {}).get("key_id"), old_kid)
        self.assertEqual((proof_c.entry or {}).get("key_id"), new_kid)
        self.assertEqual((proof_a.public_key.get("kid"), proof_c.public_key.get("kid")), (old_kid, new_kid))
        self.assertTrue(verify_proof(proof_a, pinned, text_a))
        self.assertTrue(verify_proof(proof_c, pinned, text_c))
        # The proof's own key records carry the trust over; without them the new key is a stranger.
        self.assertFalse(verify_proof(dataclasses.replace(proof_c, rotations=[]), pinned))
        self.assertFalse(verify_proof(proof_c, OfflineVerificationTest.OTHER_KEY))

        for rotations in (None, fresh["rotations"]):
            claims = verify_receipt(deleted.receipt, pinned, rotations=rotations)
            self.assertEqual((claims["umo_id"], claims["entry"]["kind"]), (b.umo_id, "delete"))
        self.assertEqual(verify_receipt(c.receipt, pinned, rotations=fresh["rotations"])["umo_id"], c.umo_id)
        with self.assertRaisesRegex(VerificationError, "signature"):
            verify_receipt(c.receipt, pinned)
        # The new set vouches for both keys on its own too.
        self.assertEqual(verify_receipt(c.receipt, fresh)["entry"]["key_id"], new_kid)
        self.assertEqual(verify_receipt(deleted.receipt, fresh)["entry"]["key_id"], old_kid)


class ErrorsTest(unittest.TestCase):
    def test_each_failure_has_its_class_status_detail_and_request_id(self) -> None:
        with self.assertRaises(AuthenticationError) as unauthorized:
            UMOClient(api_key="umo_not-a-key", base_url=server.base_url).list()
        self.assertEqual(unauthorized.exception.status, 401)
        self.assertTrue(unauthorized.exception.detail)
        self.assertTrue(unauthorized.exception.request_id)

        mine = client("alice").capture("Only Alice may read this note about the garden.")
        with self.assertRaises(NotFoundError) as hidden:
            client("bob").get(mine.umo_id)
        self.assertEqual(hidden.exception.status, 404)
        with self.assertRaises(NotFoundError):
            client("bob").forget(mine.umo_id)

        with self.assertRaises(ValidationError) as invalid:
            client("alice").capture("")
        self.assertEqual(invalid.exception.status, 422)
        self.assertIn("content", invalid.exception.detail or "")
        with tempfile.TemporaryDirectory() as folder:
            binary = Path(folder) / "x.bin"
            binary.write_bytes(bytes([0, 1, 2, 3, 255]))
            with self.assertRaises(ValidationError) as unsupported:
                client("alice").upload(binary)
        self.assertEqual(unsupported.exception.status, 415)

        with self.assertRaises(APIError) as provider:
            client("alice").answer("Where is the garden?", model="openai:gpt-4o-mini", provider_key="sk-x")
        self.assertEqual(provider.exception.status, 502)

        with self.assertRaises(APIError) as unreachable:
            UMOClient(api_key="k", base_url="http://127.0.0.1:1").list()
        self.assertIsNone(unreachable.exception.status)

        for error in (unauthorized, hidden, invalid, unsupported, provider, unreachable):
            self.assertIsInstance(error.exception, UMOError)


class RateLimitTest(unittest.TestCase):
    def test_rate_limit_error_without_retries_and_success_with_them(self) -> None:
        impatient = client("carol", max_retries=0)
        failure = None
        for _ in range(RATE_PER_MINUTE + 20):
            try:
                impatient.account()
            except RateLimitError as error:
                failure = error
                break
        self.assertIsNotNone(failure)
        assert failure is not None
        self.assertEqual(failure.status, 429)
        self.assertGreaterEqual(failure.retry_after or 0, 1)

        # The bucket is empty now, so this call meets a 429 first and succeeds after Retry-After.
        self.assertEqual(client("carol", max_retries=3).account().name, "carol")


if __name__ == "__main__":
    unittest.main()
