"""Export and import against a real server (PGlite) started for this module: an export's lines in
order, a round trip into another account, Mem0's JSON, and refused parameters."""

from __future__ import annotations

import io
import json
import tempfile
import unittest
import uuid
from pathlib import Path

from umo_client import (
    ExportedMemory,
    ExportEnd,
    ExportHeader,
    ImportFailure,
    UMOClient,
    ValidationError,
    verify_entry,
)

from .live_server import KEYS, LiveServer

server: LiveServer


def setUpModule() -> None:
    global server
    server = LiveServer()


def tearDownModule() -> None:
    server.stop()


def client(name: str) -> UMOClient:
    return UMOClient(api_key=KEYS[name], base_url=server.base_url)


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


class ExportTest(unittest.TestCase):
    """Alice's memories of one user: two current, one superseded."""

    user: str
    old: str
    new: str
    other: str

    @classmethod
    def setUpClass(cls) -> None:
        alice, cls.user = client("alice"), unique("ines")
        cls.old = alice.capture("Ines lives in Porto.", user_id=cls.user, timestamp="2023-03-01",
                                metadata={"topic": "home"}, infer_updates=False).umo_id
        cls.new = alice.capture("Ines moved to Lisbon.", user_id=cls.user, timestamp="2024-09-01",
                                metadata={"topic": "home"}, supersedes=[cls.old], infer_updates=False).umo_id
        cls.other = alice.capture("Ines plays the cello on Sundays.", user_id=cls.user, agent_id="coach",
                                  source="chat", infer_updates=False).umo_id

    def test_an_export_streams_its_header_first_each_memory_in_capture_order_and_its_end_last(self) -> None:
        lines = list(client("alice").export_memories(user_id=self.user))
        header, *memories, end = lines
        assert isinstance(header, ExportHeader) and isinstance(end, ExportEnd)
        self.assertEqual((header.kind, header.version, end.kind, end.memories), ("umo-export", 1, "end", 3))
        self.assertEqual(header.account, "alice")
        self.assertTrue(header.embedding_model)
        self.assertEqual(header.signing_keys, UMOClient(base_url=server.base_url).signing_keys())
        self.assertTrue(all(isinstance(m, ExportedMemory) for m in memories))
        exported = [m for m in memories if isinstance(m, ExportedMemory)]
        self.assertEqual([m.umo_id for m in exported], [self.old, self.new, self.other])
        old, new, other = exported
        self.assertEqual((old.content, old.superseded_by, new.supersedes), ("Ines lives in Porto.", self.new, [self.old]))
        self.assertEqual((dict(old.metadata), old.user_id, old.timestamp[:10]), ({"topic": "home"}, self.user, "2023-03-01"))
        self.assertEqual((other.agent_id, other.source, other.imported_from, other.embedding), ("coach", "chat", None, None))
        assert old.entry is not None and old.supersession is not None
        self.assertEqual((old.entry["kind"], old.supersession["kind"]), ("capture", "supersede"))
        self.assertTrue(verify_entry(old.entry, header.signing_keys))
        self.assertEqual(old.raw["kind"], "memory")

    def test_the_selection_narrows_an_export_and_after_id_resumes_it(self) -> None:
        alice = client("alice")
        current = [line for line in alice.export_memories(user_id=self.user, include_superseded=False)]
        self.assertEqual([m.umo_id for m in current if isinstance(m, ExportedMemory)], [self.new, self.other])
        self.assertEqual(current[-1], ExportEnd(2, {}))
        coach = [m.umo_id for m in alice.export_memories(filters={"user_id": self.user, "agent_id": "coach"}) if m.kind == "memory"]
        self.assertEqual(coach, [self.other])
        rest = [m for m in alice.export_memories(user_id=self.user, after_id=self.old) if isinstance(m, ExportedMemory)]
        self.assertEqual([m.umo_id for m in rest], [self.new, self.other])
        self.assertEqual([line.kind for line in alice.export_memories(user_id=unique("nobody"))], ["umo-export", "end"])

    def test_with_embeddings_each_memory_carries_its_chunks_vectors(self) -> None:
        header, *memories, _ = client("alice").export_memories(user_id=self.user, embeddings=True)
        assert isinstance(header, ExportHeader)
        for memory in memories:
            assert isinstance(memory, ExportedMemory) and memory.embedding is not None
            self.assertEqual(memory.embedding["model"], header.embedding_model)
            self.assertTrue(memory.embedding["chunks"] and memory.embedding["chunks"][0]["vector"])

    def test_an_export_read_in_part_lets_its_connection_go(self) -> None:
        lines = client("alice").export_memories(user_id=self.user)
        self.assertEqual(next(lines).kind, "umo-export")
        lines.close()
        self.assertEqual(client("alice").get(self.new).umo_id, self.new)

    def test_a_round_trip_to_another_account_keeps_content_scope_history_and_origin(self) -> None:
        alice, bob = client("alice"), client("bob")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "alice.jsonl"
            self.assertEqual(alice.export_to(path, user_id=self.user), 3)
            written = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            self.assertEqual([line["kind"] for line in written], ["umo-export", "memory", "memory", "memory", "end"])

            summary = bob.import_memories(path)
            self.assertEqual(
                (summary.format, summary.lines, summary.imported, summary.already_imported, summary.linked,
                 summary.verified, summary.failed, summary.failures, summary.stopped_at, summary.complete),
                ("umo", 5, 3, 0, 1, 3, 0, [], None, True),
            )
            again = bob.import_memories(path)  # run again: nothing is stored twice
            self.assertEqual((again.imported, again.already_imported, again.complete), (0, 3, True))

        copies = [m for m in bob.export_memories(user_id=self.user) if isinstance(m, ExportedMemory)]
        self.assertEqual([m.content for m in copies], ["Ines lives in Porto.", "Ines moved to Lisbon.", "Ines plays the cello on Sundays."])
        self.assertTrue({m.umo_id for m in copies}.isdisjoint({self.old, self.new, self.other}))
        old, new, other = copies
        self.assertEqual((old.superseded_by, new.supersedes), (new.umo_id, [old.umo_id]))
        self.assertEqual((dict(old.metadata), old.timestamp[:10], other.agent_id, other.source), ({"topic": "home"}, "2023-03-01", "coach", "chat"))
        self.assertEqual([i.umo_id for i in bob.list(user_id=self.user).items], [other.umo_id, new.umo_id])
        memory = bob.get(old.umo_id)
        assert memory.imported_from is not None
        self.assertEqual((memory.imported_from.format, memory.imported_from.id, memory.imported_from.verified), ("umo", self.old, True))
        self.assertEqual(memory.imported_from, old.imported_from)
        self.assertIsNone(alice.get(self.old).imported_from)

    def test_an_export_streams_straight_into_an_import_and_a_file_object_imports_too(self) -> None:
        carol = client("carol")
        piped = carol.import_memories(client("alice").export_memories(user_id=self.user, embeddings=True))
        self.assertEqual((piped.format, piped.imported, piped.linked, piped.verified, piped.complete), ("umo", 3, 1, 3, True))
        buffer = io.BytesIO()
        self.assertEqual(client("alice").export_to(buffer, user_id=self.user), 3)
        buffer.seek(0)
        self.assertEqual(carol.import_memories(buffer).already_imported, 3)
        text = buffer.getvalue().decode("utf-8")
        self.assertEqual(carol.import_memories(text).already_imported, 3)

    def test_an_export_cut_short_imports_what_it_holds_and_says_it_is_incomplete(self) -> None:
        alice, user = client("alice"), unique("cut")
        for text in ("Cut keeps a red kayak.", "Cut keeps a blue canoe."):
            alice.capture(text, user_id=user, infer_updates=False)
        lines = [json.dumps(line.raw).encode() + b"\n" for line in alice.export_memories(user_id=user)]
        cut = b"".join(lines[:2])  # the header and the first memory
        summary = client("bob").import_memories(iter([cut[:100], cut[100:]]), format="umo")
        self.assertEqual((summary.lines, summary.imported, summary.verified, summary.failed, summary.complete), (2, 1, 1, 0, False))

    def test_a_refused_parameter_is_a_validation_error(self) -> None:
        alice = client("alice")
        with self.assertRaises(ValidationError) as bad_filter:
            list(alice.export_memories(filters={"user_id": {"regex": "in.*"}}))
        self.assertEqual(bad_filter.exception.status, 422)
        self.assertIn("filters.user_id.regex", bad_filter.exception.detail or "")
        with self.assertRaises(ValidationError) as bad_id:
            list(alice.export_memories(after_id="with space"))
        self.assertIn("after_id", bad_id.exception.detail or "")
        note = b'{"id": "m-1", "memory": "A note."}\n'
        with self.assertRaises(ValidationError) as bad_format:
            alice.import_memories(note, format="csv")
        self.assertEqual(bad_format.exception.status, 422)
        self.assertIn("format", bad_format.exception.detail or "")
        with self.assertRaises(ValidationError) as bad_on_error:
            alice.import_memories(note, on_error="ignore")
        self.assertIn("on_error", bad_on_error.exception.detail or "")


class Mem0ImportTest(unittest.TestCase):
    def test_mem0s_get_all_json_imports_with_scope_metadata_and_origin(self) -> None:
        bob, user = client("bob"), unique("sam")
        document = {"results": [
            {"id": "mem0-1", "memory": "Sam is allergic to peanuts.", "user_id": user, "metadata": {"source_app": "chat"},
             "categories": ["health"], "created_at": "2024-02-03T10:00:00Z"},
            {"id": "mem0-2", "memory": "Sam prefers window seats.", "user_id": user, "agent_id": "travel", "run_id": "trip-1"},
            {"memory": "No id, so it cannot be imported once."},
        ]}
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "mem0.json"
            # One element a line: a failure names the line its element starts on.
            elements = ",\n".join(json.dumps(m) for m in document["results"])
            path.write_text(f'{{"results": [\n{elements}\n]}}\n', encoding="utf-8")
            summary = bob.import_memories(path)
        self.assertEqual((summary.format, summary.lines, summary.imported, summary.failed, summary.complete), ("mem0", 3, 2, 1, True))
        self.assertEqual(summary.failures[0].line, 4)
        self.assertIn("id", summary.failures[0].detail)

        items = bob.list(user_id=user).items
        self.assertEqual(len(items), 2)
        peanuts = bob.get(next(i.umo_id for i in items if i.agent_id is None))
        self.assertEqual(dict(peanuts.metadata), {"source_app": "chat", "categories": ["health"]})
        self.assertEqual(peanuts.timestamp[:10], "2024-02-03")
        assert peanuts.imported_from is not None
        self.assertEqual(
            (peanuts.imported_from.format, peanuts.imported_from.id, peanuts.imported_from.created_at, peanuts.imported_from.verified),
            ("mem0", "mem0-1", "2024-02-03T10:00:00Z", None),
        )
        seats = next(i for i in items if i.agent_id == "travel")
        self.assertEqual(seats.session_id, "trip-1")
        again = bob.import_memories(json.dumps(document).encode("utf-8"), format="mem0")
        self.assertEqual((again.imported, again.already_imported), (0, 2))

    def test_mem0_lines_and_on_error_stop(self) -> None:
        bob, user = client("bob"), unique("lea")
        lines = [
            {"id": "m-a", "memory": "Lea runs on Tuesdays.", "user_id": user},
            {"id": "m-b"},
            {"id": "m-c", "memory": "Lea swims on Fridays.", "user_id": user},
        ]
        stopped = bob.import_memories(lines, format="mem0", on_error="stop")
        self.assertEqual((stopped.imported, stopped.failed), (1, 1))
        assert stopped.stopped_at is not None
        self.assertEqual(stopped.stopped_at.line, 2)
        self.assertEqual(stopped.failures, [stopped.stopped_at])
        self.assertIsInstance(stopped.stopped_at, ImportFailure)
        skipped = bob.import_memories(lines, format="mem0")
        self.assertEqual((skipped.imported, skipped.already_imported, skipped.failed, skipped.stopped_at), (1, 1, 1, None))
        self.assertEqual(bob.list(user_id=user).total_count, 2)


if __name__ == "__main__":
    unittest.main()
