"""Scopes, metadata, selections, supersessions, erasure and the hash chain, against a real server
(PGlite) started for this module."""

from __future__ import annotations

import base64
import dataclasses
import json
import tempfile
import time
import unittest
import uuid
from pathlib import Path
from typing import Any

from umo_client import NotFoundError, UMOClient, ValidationError, VerificationError, verify_entry, verify_proof, verify_receipt

from .live_server import KEYS, LiveServer

server: LiveServer


def setUpModule() -> None:
    global server
    server = LiveServer()


def tearDownModule() -> None:
    server.stop()


def client(name: str) -> UMOClient:
    return UMOClient(api_key=KEYS[name], base_url=server.base_url)


def pinned() -> dict[str, Any]:
    return UMOClient(base_url=server.base_url).signing_keys()


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


class SelectionTest(unittest.TestCase):
    """Two end users' memories, tagged; every read narrowed to one user sees only that user's."""

    maria: str
    jonas: str
    bike: str
    team: str
    car: str
    station: str
    users: dict[str, Any]

    @classmethod
    def setUpClass(cls) -> None:
        alice = client("alice")
        cls.maria, cls.jonas = unique("maria"), unique("jonas")
        cls.bike = alice.capture("Maria keeps her bike in the hallway.", user_id=cls.maria, timestamp="2024-01-10",
                                 metadata={"topic": "home", "stars": 4}, infer_updates=False).umo_id
        cls.team = alice.capture("Maria's team meets on Mondays at the office.", user_id=cls.maria, agent_id="planner",
                                 timestamp="2024-06-10", metadata={"topic": "work", "stars": 2}, infer_updates=False).umo_id
        [car] = alice.batch([{"content": "Jonas parks his car in the garage.", "user_id": cls.jonas, "timestamp": "2025-02-01",
                              "metadata": {"topic": "car", "stars": 5}, "infer_updates": False}])
        cls.car = car.umo_id or ""
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "station.txt"
            path.write_text("Jonas keeps his bike at the train station.", encoding="utf-8")
            cls.station = alice.upload(path, user_id=cls.jonas, metadata={"topic": "home"}, infer_updates=False).umo_id
        cls.users = {"user_id": {"in": [cls.maria, cls.jonas]}}

    def listed(self, **selection: Any) -> set[str]:
        return {item.umo_id for item in client("alice").list(limit=100, **selection).items}

    def test_capture_keeps_scope_and_metadata_and_reads_return_them(self) -> None:
        memory = client("alice").get(self.team)
        self.assertEqual((memory.user_id, memory.agent_id, memory.session_id), (self.maria, "planner", None))
        self.assertEqual(dict(memory.metadata), {"topic": "work", "stars": 2})
        self.assertEqual((memory.supersedes, memory.superseded_by, memory.superseded_at), ([], None, None))
        [row] = [i for i in client("alice").list(user_id=self.jonas).items if i.umo_id == self.station]
        self.assertEqual((row.user_id, dict(row.metadata), row.superseded_by), (self.jonas, {"topic": "home"}, None))

    def test_list_search_and_answer_narrowed_to_a_user_see_only_that_users_memories(self) -> None:
        alice = client("alice")
        self.assertEqual(self.listed(user_id=self.maria), {self.bike, self.team})
        self.assertEqual(self.listed(user_id=self.jonas), {self.car, self.station})
        self.assertEqual({i.user_id for i in alice.list(user_id=self.maria).items}, {self.maria})
        matches = alice.ask("Where is the bike kept?", user_id=self.maria, limit=10)
        self.assertEqual(matches[0].umo_id, self.bike)
        self.assertEqual({m.user_id for m in matches}, {self.maria})
        self.assertEqual(dict(matches[0].metadata), {"topic": "home", "stars": 4})
        jonas = alice.ask("Where is the bike kept?", user_id=self.jonas, limit=10)
        self.assertEqual(jonas[0].umo_id, self.station)
        self.assertTrue({m.umo_id for m in jonas} <= {self.car, self.station})
        answer = alice.answer("Where does Maria keep her bike?", user_id=self.maria)
        self.assertIn("hallway", answer.text)
        self.assertTrue(answer.citations)
        self.assertTrue({c.umo_id for c in answer.citations} <= {self.bike, self.team})
        elsewhere = alice.answer("Where is the bike kept?", user_id=self.jonas)
        self.assertTrue({c.umo_id for c in elsewhere.citations} <= {self.car, self.station})

    def test_a_filter_expression_selects_exactly_the_memories_it_describes(self) -> None:
        home_or_five = {"OR": [{"metadata": {"topic": "home"}}, {"metadata": {"stars": {"gte": 5}}}]}
        self.assertEqual(self.listed(filters={"AND": [self.users, home_or_five]}), {self.bike, self.car, self.station})
        self.assertEqual(self.listed(filters={"AND": [self.users, {"NOT": {"metadata": {"topic": "home"}}}]}), {self.team, self.car})
        self.assertEqual(self.listed(filters={**self.users, "timestamp": {"gte": "2024-06-10"}}), {self.team, self.car, self.station})
        self.assertEqual(self.listed(filters={**self.users, "agent_id": "*"}), {self.team})
        # The shorthand fields narrow it further (AND), and go with a filter.
        self.assertEqual(self.listed(filters=self.users, after="2024-03-01", before="2025-01-01"), {self.team})
        self.assertEqual(self.listed(filters=self.users, metadata={"topic": ["work", "car"]}), {self.team, self.car})
        self.assertEqual(self.listed(user_id=self.maria, filters={"metadata": {"stars": {"lt": 3}}}), {self.team})
        found = client("alice").ask("bike", filters={"AND": [self.users, {"NOT": {"metadata": {"topic": "home"}}}]}, limit=10)
        self.assertTrue({m.umo_id for m in found} <= {self.team, self.car})

    def test_an_unknown_filter_operator_is_a_422_naming_it(self) -> None:
        bad = {"AND": [{"user_id": {"regex": "ma.*"}}]}
        for read in (lambda: client("alice").list(filters=bad), lambda: client("alice").ask("bike", filters=bad)):
            with self.assertRaises(ValidationError) as refused:
                read()
            self.assertEqual(refused.exception.status, 422)
            self.assertRegex(refused.exception.detail or "", r"filters\.AND\.0\.user_id\.regex: unknown operator")
        with self.assertRaises(ValidationError) as shorthand:
            client("alice").list(metadata={"stars": {"gte": 4}})  # type: ignore[dict-item]
        self.assertIn("metadata", shorthand.exception.detail or "")


class SupersessionTest(unittest.TestCase):
    def test_a_superseded_memory_leaves_default_reads_stays_provable_and_keeps_its_history(self) -> None:
        alice, user = client("alice"), unique("priya")
        old = alice.capture("Priya's desk is on the third floor.", user_id=user, timestamp="2024-01-01", infer_updates=False)
        new = alice.capture("Priya's desk moved to the fifth floor.", user_id=user, timestamp="2024-09-01",
                            supersedes=[old.umo_id], infer_updates=False)
        self.assertEqual((new.supersedes, new.superseded_by), ([old.umo_id], None))

        self.assertEqual([i.umo_id for i in alice.list(user_id=user).items], [new.umo_id])
        self.assertNotIn(old.umo_id, [m.umo_id for m in alice.ask("Which floor is Priya's desk on?", user_id=user)])
        every = {i.umo_id: i for i in alice.list(user_id=user, include_superseded=True).items}
        self.assertEqual(set(every), {old.umo_id, new.umo_id})
        self.assertEqual((every[old.umo_id].superseded_by, every[new.umo_id].superseded_by), (new.umo_id, None))
        found = {m.umo_id: m for m in alice.ask("Which floor is Priya's desk on?", user_id=user, include_superseded=True)}
        self.assertEqual(found[old.umo_id].superseded_by, new.umo_id)

        memory = alice.get(old.umo_id)
        self.assertEqual(memory.superseded_by, new.umo_id)
        self.assertTrue(memory.superseded_at)
        self.assertEqual(alice.get(new.umo_id).supersedes, [old.umo_id])
        for asked in (old.umo_id, new.umo_id):
            history = alice.history(asked)
            self.assertEqual(history.umo_id, asked)
            self.assertEqual([v.umo_id for v in history.versions], [old.umo_id, new.umo_id])
            self.assertEqual(history.current and history.current.umo_id, new.umo_id)
        with self.assertRaises(NotFoundError):
            alice.history(str(uuid.uuid4()))

        keys = pinned()
        proof = alice.verify(old.umo_id)
        self.assertEqual((proof.valid, proof.superseded_by), (True, new.umo_id))
        assert proof.supersession is not None
        self.assertEqual((proof.supersession["kind"], proof.supersession["superseded_by"]), ("supersede", new.umo_id))
        self.assertTrue(verify_proof(proof, keys, memory.content_text))
        self.assertTrue(verify_proof(alice.verify(new.umo_id), keys))
        forged = {**proof.supersession, "superseded_by": old.umo_id}
        self.assertFalse(verify_proof(dataclasses.replace(proof, supersession=forged, superseded_by=old.umo_id), keys))
        self.assertFalse(verify_proof(dataclasses.replace(proof, supersession=None), keys))
        self.assertFalse(verify_proof(dataclasses.replace(proof, superseded_by=str(uuid.uuid4())), keys))


class UpdateTest(unittest.TestCase):
    def test_an_update_is_a_new_version_the_history_keeps_both_and_the_old_one_is_refused_after(self) -> None:
        alice, user = client("alice"), unique("locker")
        old = alice.capture("Ana's locker is number 12.", user_id=user, agent_id="desk", metadata={"floor": 2},
                            timestamp="2024-02-01", infer_updates=False)
        new = alice.update(old.umo_id, content="Ana's locker is number 14.")
        self.assertNotEqual(new.umo_id, old.umo_id)
        self.assertEqual((new.supersedes, new.superseded_by, new.duplicate_of), ([old.umo_id], None, None))
        self.assertTrue(new.receipt)
        # The new version keeps the scope and the metadata; the old one stays readable, superseded.
        memory = alice.get(new.umo_id)
        self.assertEqual(memory.content_text, "Ana's locker is number 14.")
        self.assertEqual((memory.user_id, memory.agent_id, dict(memory.metadata)), (user, "desk", {"floor": 2}))
        self.assertEqual(memory.supersedes, [old.umo_id])
        self.assertEqual(alice.get(old.umo_id).superseded_by, new.umo_id)
        self.assertEqual([i.umo_id for i in alice.list(user_id=user).items], [new.umo_id])
        history = alice.history(old.umo_id)
        self.assertEqual([v.umo_id for v in history.versions], [old.umo_id, new.umo_id])
        self.assertEqual([v.content_text for v in history.versions], ["Ana's locker is number 12.", "Ana's locker is number 14."])
        self.assertEqual(history.current and history.current.umo_id, new.umo_id)
        self.assertTrue(verify_proof(alice.verify(new.umo_id), pinned()))

        # A superseded memory is refused: change the current one.
        with self.assertRaises(ValidationError) as superseded:
            alice.update(old.umo_id, content="Ana's locker is number 16.")
        self.assertEqual(superseded.exception.status, 422)
        # Metadata alone: replaced whole, the time kept.
        tagged = alice.update(new.umo_id, metadata={"floor": 3}, idempotency_key=f"py-client-test/{user}")
        self.assertEqual(alice.update(new.umo_id, metadata={"floor": 3}, idempotency_key=f"py-client-test/{user}").umo_id, tagged.umo_id)
        retagged = alice.get(tagged.umo_id)
        self.assertEqual((retagged.content_text, dict(retagged.metadata)), ("Ana's locker is number 14.", {"floor": 3}))
        self.assertEqual(retagged.timestamp, memory.timestamp)
        self.assertEqual([v.umo_id for v in alice.history(tagged.umo_id).versions], [old.umo_id, new.umo_id, tagged.umo_id])
        # A change that changes nothing, or no change at all, is refused; an unknown id is not found.
        for unchanged in ({"metadata": {"floor": 3}}, {"content": "Ana's locker is number 14."}, {}):
            with self.assertRaises(ValidationError, msg=str(unchanged)) as refused:
                alice.update(tagged.umo_id, **unchanged)
            self.assertEqual(refused.exception.status, 422)
        with self.assertRaises(NotFoundError):
            alice.update(str(uuid.uuid4()), content="Nobody's locker.")
        self.assertEqual([i.umo_id for i in alice.list(user_id=user).items], [tagged.umo_id])


class ScopeListTest(unittest.TestCase):
    def test_scopes_lists_users_agents_and_sessions_newest_first_by_kind_and_prefix_in_pages(self) -> None:
        alice, p = client("alice"), unique("roster") + "-"
        alice.capture("Ana books the meeting room.", user_id=p + "ana", agent_id=p + "bot", timestamp="2024-03-01", infer_updates=False)
        newest = alice.capture("Ana orders the coffee beans.", user_id=p + "ana", timestamp="2024-05-01", infer_updates=False)
        alice.capture("Ben waters the plants.", user_id=p + "ben", session_id=p + "chat", timestamp="2024-04-01", infer_updates=False)
        cy = alice.capture("Cy fixes the printer.", user_id=p + "cy", timestamp="2024-02-01", infer_updates=False)
        alice.update(cy.umo_id, content="Cy fixes the scanner.", timestamp="2024-02-02")  # still one current memory
        client("bob").capture("Bob's own user.", user_id=p + "bob")

        page = alice.scopes(prefix=p)
        listed = [(s.kind, s.id, s.memories) for s in page.scopes]
        self.assertEqual(listed, [("user", p + "ana", 2), ("session", p + "chat", 1), ("user", p + "ben", 1),
                                  ("agent", p + "bot", 1), ("user", p + "cy", 1)])
        self.assertEqual((page.total_count, page.has_more), (5, False))
        self.assertEqual(page.scopes[0].last_memory_at, alice.get(newest.umo_id).timestamp)
        self.assertEqual(page.scopes[-1].last_memory_at, "2024-02-02T00:00:00.000Z")

        users = alice.scopes(kind="user", prefix=p)
        self.assertEqual([(s.kind, s.id) for s in users.scopes], [("user", p + "ana"), ("user", p + "ben"), ("user", p + "cy")])
        self.assertEqual([s.id for s in alice.scopes(kind="agent", prefix=p).scopes], [p + "bot"])
        self.assertEqual([s.id for s in alice.scopes(kind="session", prefix=p).scopes], [p + "chat"])
        self.assertEqual([s.id for s in alice.scopes(prefix=p + "b").scopes], [p + "ben", p + "bot"])

        pages = [alice.scopes(prefix=p, limit=2, offset=offset) for offset in (0, 2, 4)]
        self.assertEqual([(len(q.scopes), q.total_count, q.has_more) for q in pages], [(2, 5, True), (2, 5, True), (1, 5, False)])
        self.assertEqual([(s.kind, s.id, s.memories) for q in pages for s in q.scopes], listed)
        self.assertEqual((alice.scopes(prefix=p, offset=5).scopes, alice.scopes(prefix=p + "zz").total_count), ([], 0))
        self.assertEqual([s.id for s in client("bob").scopes(prefix=p).scopes], [p + "bob"])

        with self.assertRaises(ValidationError) as refused:
            alice.scopes(kind="team")
        self.assertEqual(refused.exception.status, 422)
        self.assertIn("kind", refused.exception.detail or "")

    def test_a_scope_id_with_whitespace_at_either_end_is_refused_naming_the_field(self) -> None:
        alice, user = client("alice"), unique("spaced")
        for spaced in (f" {user}", f"{user} ", f"{user}\t"):
            with self.assertRaises(ValidationError, msg=repr(spaced)) as refused:
                alice.capture("A note with a padded user.", user_id=spaced)
            self.assertEqual(refused.exception.status, 422)
            self.assertIn("user_id", refused.exception.detail or "")
        [item] = alice.batch([{"content": "A note with a padded agent.", "agent_id": f"{user} "}])
        self.assertEqual((item.success, item.error_status), (False, 422))
        self.assertIn("agent_id", item.error_detail or "")
        # Inside the id, a space is fine.
        self.assertEqual(alice.get(alice.capture("A note with a spaced user.", user_id=f"{user} x").umo_id).user_id, f"{user} x")
        self.assertEqual(alice.list(user_id=user).total_count, 0)


class ErasureTest(unittest.TestCase):
    def test_forget_all_erases_exactly_one_users_memories_with_a_receipt_that_verifies(self) -> None:
        alice, user, other = client("alice"), unique("erased"), unique("kept")
        first = alice.capture("A note about the garden.", user_id=user, infer_updates=False)
        second = alice.capture("A note about the kitchen.", user_id=user, supersedes=[first.umo_id], infer_updates=False)
        kept = alice.capture("Someone else's note about the garden.", user_id=other, infer_updates=False)
        bobs = client("bob").capture("Bob's note about his own user.", user_id=user)

        with self.assertRaisesRegex(ValueError, "user_id, agent_id or session_id"):
            alice.forget_all()
        erased = alice.forget_all(user_id=user)
        self.assertEqual((erased.forgotten, erased.umo_ids), (2, sorted([first.umo_id, second.umo_id])))
        claims = verify_receipt(erased.receipt, pinned())
        self.assertEqual((claims["type"], claims["count"], claims["umo_ids"]), ("umo-erasure-receipt", 2, erased.umo_ids))
        self.assertEqual((claims["deleted_at"], claims["entry"]["kind"]), (erased.deleted_at, "delete"))

        self.assertEqual(alice.list(user_id=user, include_superseded=True).total_count, 0)
        for gone in (first, second):
            with self.assertRaises(NotFoundError):
                alice.get(gone.umo_id)
        self.assertEqual(alice.get(kept.umo_id).user_id, other)
        self.assertEqual([i.umo_id for i in client("bob").list(user_id=user).items], [bobs.umo_id])
        again = alice.forget_all(user_id=user)
        self.assertEqual((again.forgotten, again.umo_ids, again.deleted_at, again.receipt), (0, [], None, ""))

        # A receipt whose claims were changed after signing does not verify.
        header, payload, signature = erased.receipt.split(".")
        altered = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        altered["umo_ids"] = altered["umo_ids"][1:]
        altered["count"] = 1
        forged = base64.urlsafe_b64encode(json.dumps(altered).encode()).rstrip(b"=").decode()
        with self.assertRaisesRegex(VerificationError, "signature"):
            verify_receipt(f"{header}.{forged}.{signature}", pinned())


class ChainTest(unittest.TestCase):
    def test_the_chain_pages_newest_first_and_every_entry_verifies_and_links(self) -> None:
        carol, user, other = client("carol"), unique("chain"), unique("other")
        x = carol.capture("The first draft is due in May.", user_id=user, infer_updates=False).umo_id
        y = carol.capture("The first draft is due in June.", user_id=user, supersedes=[x], infer_updates=False).umo_id
        z = carol.capture("The printer is on the second floor.", user_id=other, infer_updates=False)
        erased = carol.forget_all(user_id=other)
        keys = pinned()

        pages, before = [], None
        while True:
            page = carol.chain(limit=2, before=before)
            pages.append(page)
            if page.next_before is None:
                break
            before = page.next_before
        self.assertEqual([(len(p.entries), p.has_more, p.next_before) for p in pages], [(2, True, 4), (2, True, 2), (1, False, None)])
        entries = [e for p in pages for e in p.entries]
        self.assertEqual(
            [(e["seq"], e["kind"], e["umo_id"]) for e in entries],
            [(5, "delete", z.umo_id), (4, "capture", z.umo_id), (3, "supersede", x), (2, "capture", y), (1, "capture", x)],
        )
        self.assertEqual(entries[2]["superseded_by"], y)
        self.assertNotIn("superseded_by", entries[0])
        for i, entry in enumerate(entries):
            self.assertTrue(verify_entry(entry, keys), entry["seq"])
            self.assertEqual(entry["prev_hash"], entries[i + 1]["entry_hash"] if i + 1 < len(entries) else "0" * 64)
        self.assertEqual(verify_receipt(erased.receipt, keys)["entry"], entries[0])
        # A supersession entry naming another successor, or any changed field, does not verify.
        self.assertFalse(verify_entry({**entries[2], "superseded_by": x}, keys))
        self.assertFalse(verify_entry({k: v for k, v in entries[2].items() if k != "superseded_by"}, keys))
        self.assertFalse(verify_entry({**entries[1], "umo_id": x}, keys))
        with self.assertRaises(ValidationError) as refused:
            carol.chain(limit=0)
        self.assertEqual(refused.exception.status, 422)


if __name__ == "__main__":
    unittest.main()


class LifetimeTest(unittest.TestCase):
    """Expiry and immutability, as the client sends and reads them."""

    def test_an_expiring_memory_shows_its_expiry_leaves_reads_when_it_passes_and_can_be_moved(self) -> None:
        alice, user = client("alice"), unique("lifetime")
        kept = alice.capture("The spare key is under the blue pot.", user_id=user, ttl=3600)
        memory = alice.get(kept.umo_id)
        self.assertIsNotNone(memory.expires_at)
        self.assertFalse(memory.immutable)
        [row] = alice.list(user_id=user).items
        self.assertEqual(row.expires_at, memory.expires_at)
        moved = alice.update(kept.umo_id, expires_at="2999-01-01")
        self.assertEqual(moved.umo_id, kept.umo_id)
        self.assertEqual(alice.get(kept.umo_id).expires_at, "2999-01-01T00:00:00.000Z")
        alice.update(kept.umo_id, never_expires=True)
        self.assertIsNone(alice.get(kept.umo_id).expires_at)
        brief = alice.capture("The guest wifi password is tulip-42 today.", user_id=user, ttl=1)
        time.sleep(1.2)
        with self.assertRaises(NotFoundError):
            alice.get(brief.umo_id)
        self.assertEqual([i.umo_id for i in alice.list(user_id=user).items], [kept.umo_id])

    def test_an_expiry_in_the_past_or_given_twice_is_a_422_naming_the_field(self) -> None:
        with self.assertRaises(ValidationError) as past:
            client("alice").capture("Yesterday's news.", expires_at="2001-01-01")
        self.assertIn("expires_at", past.exception.detail or "")
        with self.assertRaises(ValidationError) as both:
            client("alice").capture("Twice.", expires_at="2999-01-01", ttl=5)
        self.assertIn("expires_at, ttl", both.exception.detail or "")
        with self.assertRaises(ValueError):
            client("alice").update(str(uuid.uuid4()), ttl=5, never_expires=True)

    def test_an_immutable_memory_refuses_an_update(self) -> None:
        alice = client("alice")
        fixed = alice.capture("The contract number is 88-1201.", user_id=unique("fixed"), immutable=True)
        self.assertTrue(alice.get(fixed.umo_id).immutable)
        with self.assertRaises(ValidationError) as refused:
            alice.update(fixed.umo_id, content="The contract number is 99-0000.")
        self.assertIn("immutable", refused.exception.detail or "")


class CategoriesTest(unittest.TestCase):
    """Categories: chosen at capture from the account's list, named by the caller, and filtered on."""

    def test_memories_are_filed_under_categories_that_filters_find(self) -> None:
        alice, user = client("alice"), unique("filed")
        flight = alice.capture("Flying to Tokyo on the 3rd for two weeks of holiday.", user_id=user)
        named = alice.capture("Renewed the parking permit.", user_id=user, categories=["errands"])
        self.assertIn("travel", alice.get(flight.umo_id).categories)
        self.assertEqual(alice.get(named.umo_id).categories, ["errands"])
        found = {m.umo_id for m in alice.list(user_id=user, filters={"categories": {"in": ["errands"]}}).items}
        self.assertEqual(found, {named.umo_id})
        [hit] = [m for m in alice.ask("Tokyo", user_id=user) if m.umo_id == flight.umo_id]
        self.assertIn("travel", hit.categories)
        with self.assertRaises(ValidationError):
            alice.capture("x", categories=["a"], custom_categories=[{"name": "b", "description": "bee"}])

    def test_an_account_sets_its_own_list_and_goes_back_to_the_default(self) -> None:
        bob = client("bob")
        self.assertEqual(bob.categories().origin, "default")
        mine = [{"name": "recipes", "description": "dishes and how to cook them"},
                {"name": "gear", "description": "kitchen equipment: pans, knives, ovens, blenders"}]
        self.assertEqual(bob.set_categories(mine).categories, mine)
        captured = bob.capture("Bought a cast iron pan and a chef's knife.", user_id=unique("cook"))
        self.assertEqual(bob.get(captured.umo_id).categories[0], "gear")
        # Text is made storable, as a capture's is: U+0000 dropped, not a database error.
        stored = bob.set_categories([{"name": "misc", "description": "odds\u0000 and ends"}])
        self.assertEqual(stored.categories, [{"name": "misc", "description": "odds and ends"}])
        self.assertEqual(bob.set_categories(None).origin, "default")


class ManyTest(unittest.TestCase):
    """Changes and deletions of many memories: all of them, or none."""

    def test_update_many_and_forget_many_are_whole_or_nothing(self) -> None:
        alice, user = client("alice"), unique("many")
        first = alice.capture("Locker 1 holds the tent.", user_id=user, infer_updates=False)
        second = alice.capture("Locker 2 holds the stove.", user_id=user, infer_updates=False)
        with self.assertRaises(NotFoundError):
            alice.update_many([{"umo_id": str(uuid.uuid4()), "content": "x"}, {"umo_id": first.umo_id, "content": "y"}])
        self.assertIsNone(alice.get(first.umo_id).superseded_by)
        changed = alice.update_many([{"umo_id": first.umo_id, "content": "Locker 1 holds the tarp."},
                                     {"umo_id": second.umo_id, "metadata": {"checked": True}}])
        self.assertEqual([c.supersedes for c in changed], [[first.umo_id], [second.umo_id]])
        with self.assertRaises(ValidationError):
            alice.update_many([{"umo_id": first.umo_id, "contents": "typo"}])
        with self.assertRaises(NotFoundError):
            alice.forget_many([first.umo_id, str(uuid.uuid4())])
        erased = alice.forget_many([first.umo_id, second.umo_id])
        self.assertEqual(erased.forgotten, 2)
        verify_receipt(erased.receipt, pinned())


class WebhookTest(unittest.TestCase):
    """A webhook against a local receiver: the capture's event arrives, signed with the secret."""

    def test_a_capture_is_posted_signed_to_the_webhook(self) -> None:
        import hashlib
        import hmac
        import threading
        from http.server import BaseHTTPRequestHandler, HTTPServer

        got: list[tuple[str, bytes]] = []

        class Receiver(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the standard library's name
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                got.append((self.headers.get("umo-signature", ""), body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        receiver = HTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=receiver.serve_forever, daemon=True).start()
        try:
            carol = client("carol")
            hook = carol.create_webhook(f"http://127.0.0.1:{receiver.server_address[1]}/hook", events=["memory.added"])
            assert hook.secret is not None
            captured = carol.capture("The recycling goes out on Tuesdays.", user_id=unique("hooked"))
            for _ in range(100):
                if got:
                    break
                time.sleep(0.1)
            signature, body = got[0]
            event = json.loads(body)
            self.assertEqual((event["type"], event["data"]["umo_id"]), ("memory.added", captured.umo_id))
            stamp, digest = (part.split("=", 1)[1] for part in signature.split(","))
            expected = hmac.new(hook.secret.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
            self.assertEqual(digest, expected)
            self.assertEqual([w.webhook_id for w in carol.webhooks()], [hook.webhook_id])
            carol.delete_webhook(hook.webhook_id)
            self.assertEqual(carol.webhooks(), [])
        finally:
            receiver.shutdown()
            receiver.server_close()
