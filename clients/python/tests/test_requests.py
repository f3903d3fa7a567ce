"""What the client sends for scopes, metadata, selections and updates — field names, JSON in query
strings and forms — against the scripted local server (no UMO server needed)."""

from __future__ import annotations

import json
import tempfile
import unittest
import urllib.parse
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from umo_client import Answer, BatchItem, Captured, LaterRelated, Match, UMOClient, Uploaded, ValidationError

from .test_transport import ScriptedServer, Seen

server: ScriptedServer

WHEN = datetime(2024, 5, 1, 9, 30, tzinfo=timezone.utc)
FILTERS = {"OR": [{"metadata": {"topic": {"in": ["travel", "work"]}}}, {"NOT": {"user_id": "bob"}}]}
# The selection as each read takes it, and as the API names it on the wire.
SELECTION: dict[str, Any] = dict(
    user_id="ana", agent_id="concierge", session_id="s-1", source="chat", metadata={"topic": ["home", "car"], "stars": 4},
    after=WHEN, before="2025-01-01", include_superseded=True, filters=FILTERS,
)
WIRE = {**SELECTION, "after": "2024-05-01T09:30:00+00:00"}


def setUpModule() -> None:
    global server
    server = ScriptedServer()


def tearDownModule() -> None:
    server.stop()


def client() -> UMOClient:
    return UMOClient(api_key="umo_test", base_url=server.base_url, max_retry_delay=0.05)


def last(path: str) -> Seen:
    return [s for s in server.seen if s.path == path][-1]


def query(seen: Seen) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(seen.query, keep_blank_values=True, strict_parsing=True))


def json_valued(fields: dict[str, str]) -> dict[str, Any]:
    """A query string's fields with ``metadata`` and ``filters`` read back from their JSON."""
    return {k: json.loads(v) if k in ("metadata", "filters") else v for k, v in fields.items()}


class SelectionTest(unittest.TestCase):
    def setUp(self) -> None:
        server.reset()

    def test_list_and_iterate_send_the_selection_in_the_query_string_with_json_for_objects(self) -> None:
        client().list(limit=5, offset=10, **SELECTION)
        sent = query(last("/v1/memories"))
        self.assertEqual(json_valued(sent), {**WIRE, "limit": "5", "offset": "10", "include_superseded": "true"})
        self.assertEqual(sent["filters"], json.dumps(FILTERS, separators=(",", ":")))
        list(client().iterate(limit=3, **SELECTION))
        self.assertEqual(json_valued(query(last("/v1/memories"))), {**WIRE, "limit": "3", "offset": "0", "include_superseded": "true"})
        client().list()
        self.assertEqual(last("/v1/memories").query, "")

    def test_ask_and_answer_send_the_selection_in_the_body(self) -> None:
        umo = client()
        umo.ask("Where?", limit=3, **SELECTION)
        self.assertEqual(json.loads(last("/v1/memories/query").body), {"query": "Where?", "limit": 3, **WIRE})
        umo.answer("Where?", context_size=2, **SELECTION)
        self.assertEqual(json.loads(last("/v1/ask").body), {"question": "Where?", "context_size": 2, **WIRE})
        umo.ask("Where?", include_superseded=False)
        self.assertEqual(json.loads(last("/v1/memories/query").body), {"query": "Where?", "include_superseded": False})

    def test_forget_all_needs_a_scope_before_any_request(self) -> None:
        umo = client()
        for narrowing in ({}, {"source": "chat"}, {"metadata": {"a": 1}}, {"filters": {"user_id": "ana"}}, {"after": WHEN}):
            with self.assertRaisesRegex(ValueError, "user_id, agent_id or session_id", msg=str(narrowing)):
                umo.forget_all(**narrowing)
        self.assertEqual(server.seen, [])
        umo.forget_all(session_id="s-1", metadata={"topic": "car"}, before=WHEN)
        seen = last("/v1/memories")
        self.assertEqual(seen.method, "DELETE")
        self.assertEqual(json_valued(query(seen)), {"session_id": "s-1", "metadata": {"topic": "car"}, "before": "2024-05-01T09:30:00+00:00"})

    def test_a_naive_datetime_is_refused_before_any_request(self) -> None:
        with self.assertRaisesRegex(ValueError, "timezone-aware"):
            client().list(after=datetime(2024, 5, 1))
        self.assertEqual(server.seen, [])

    def test_history_and_chain_call_their_paths(self) -> None:
        umo = client()
        umo.history("a b/c")
        self.assertEqual(server.seen[-1].path, "/v1/memories/a%20b%2Fc/history")
        umo.chain(limit=2, before=7)
        self.assertEqual((server.seen[-1].path, query(server.seen[-1])), ("/v1/account/chain", {"limit": "2", "before": "7"}))


class UpdateAndScopesTest(unittest.TestCase):
    def setUp(self) -> None:
        server.reset()

    def test_update_sends_a_patch_with_the_fields_given_and_a_key(self) -> None:
        umo = client()
        updated = umo.update("a b/c", content="The locker is number 14.", metadata={"floor": 3, "tags": ["x"]}, timestamp=WHEN)
        seen = server.seen[-1]
        self.assertEqual((seen.method, seen.path), ("PATCH", "/v1/memories/a%20b%2Fc"))
        self.assertEqual(
            json.loads(seen.body),
            {"content": "The locker is number 14.", "metadata": {"floor": 3, "tags": ["x"]}, "timestamp": "2024-05-01T09:30:00+00:00"},
        )
        self.assertRegex(seen.key or "", r"^[0-9a-f-]{36}$")
        self.assertEqual((updated.umo_id, updated.supersedes, updated.duplicate_of), ("memory-0", ["a%20b%2Fc"], None))
        umo.update("m-1", metadata={}, idempotency_key="mine")
        self.assertEqual((json.loads(server.seen[-1].body), server.seen[-1].key), ({"metadata": {}}, "mine"))
        umo.update("m-1", content="Only the text.")
        self.assertEqual(json.loads(server.seen[-1].body), {"content": "Only the text."})
        self.assertNotEqual(server.seen[-1].key, server.seen[0].key)

    def test_scopes_sends_the_fields_given_and_reads_the_page(self) -> None:
        page = client().scopes(kind="user", prefix="an a", limit=1, offset=2)
        seen = last("/v1/scopes")
        self.assertEqual((seen.method, query(seen)), ("GET", {"kind": "user", "prefix": "an a", "limit": "1", "offset": "2"}))
        self.assertEqual((page.total_count, page.has_more, len(page.scopes)), (4, True, 1))
        scope = page.scopes[0]
        self.assertEqual((scope.kind, scope.id, scope.memories, scope.last_memory_at), ("user", "ana", 3, "2026-01-01T00:00:00.000Z"))
        self.assertEqual(scope.raw["id"], "ana")
        client().scopes()
        self.assertEqual(last("/v1/scopes").query, "")

    def test_results_read_later_related(self) -> None:
        link = {"umo_id": "n", "content_text": "Signed the lease in Lisbon", "timestamp": "2024-03-01T00:00:00.000Z", "link": "judge", "score": 0.71}
        expected = [LaterRelated("n", "Signed the lease in Lisbon", "2024-03-01T00:00:00.000Z", "judge", 0.71)]
        self.assertEqual(Match.from_raw({"umo_id": "m", "later_related": [link]}).later_related, expected)
        self.assertEqual(Match.from_raw({"umo_id": "m"}).later_related, [])
        answer = Answer.from_raw({"answer": "Lisbon [1]", "citations": [{"index": 1, "umo_id": "m", "later_related": [link]}]})
        self.assertEqual(answer.citations[0].later_related, expected)

    def test_results_read_times_said_and_duplicate_of(self) -> None:
        self.assertEqual(Match.from_raw({"umo_id": "m", "times_said": 3}).times_said, 3)
        self.assertEqual(Match.from_raw({"umo_id": "m"}).times_said, 1)
        for result in (Captured, Uploaded, BatchItem):
            self.assertEqual(result.from_raw({"umo_id": "m", "duplicate_of": "m"}).duplicate_of, "m", result)
            self.assertIsNone(result.from_raw({"umo_id": "m"}).duplicate_of, result)


class CaptureFieldsTest(unittest.TestCase):
    FIELDS: dict[str, Any] = dict(
        user_id="ana", agent_id="concierge", session_id="s-1", metadata={"topic": "home", "tags": ["a", "b"], "n": None},
        supersedes=("m-1", "m-2"), infer_updates=False,
    )
    WIRE = {**FIELDS, "supersedes": ["m-1", "m-2"]}

    def setUp(self) -> None:
        server.reset()

    def test_capture_and_batch_send_scope_metadata_and_updates(self) -> None:
        umo = client()
        umo.capture("A note.", source="chat", timestamp=WHEN, **self.FIELDS)
        sent = json.loads(last("/v1/process").body)
        self.assertEqual(sent, {"content": "A note.", "source": "chat", "timestamp": "2024-05-01T09:30:00+00:00", **self.WIRE})
        umo.batch(["Plain.", {"content": "Scoped.", "timestamp": WHEN, **self.FIELDS}])
        items = json.loads(last("/v1/batch").body)["items"]
        self.assertEqual(items, [{"content": "Plain."}, {"content": "Scoped.", "timestamp": "2024-05-01T09:30:00+00:00", **self.WIRE}])

    def test_capture_batch_and_upload_send_dedupe(self) -> None:
        umo = client()
        umo.capture("A note.", dedupe=False)
        self.assertEqual(json.loads(last("/v1/process").body), {"content": "A note.", "dedupe": False})
        umo.batch([{"content": "Again.", "dedupe": False}, {"content": "Once.", "dedupe": True}, "Plain."])
        items = json.loads(last("/v1/batch").body)["items"]
        self.assertEqual(items, [{"content": "Again.", "dedupe": False}, {"content": "Once.", "dedupe": True}, {"content": "Plain."}])
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "note.txt"
            path.write_text("hello", encoding="utf-8")
            client().upload(path, dedupe=False)
        self.assertIn('Content-Disposition: form-data; name="dedupe"\r\n\r\nfalse\r\n', last("/v1/upload").body.decode("utf-8"))
        umo.capture("Left to the service.")
        self.assertNotIn("dedupe", json.loads(last("/v1/process").body))

    def test_an_unknown_batch_item_key_or_a_lone_supersedes_id_is_refused_before_any_request(self) -> None:
        for key, hint in (("user_idd", ""), ("userId", " (did you mean user_id?)"), ("inferUpdates", " (did you mean infer_updates?)")):
            with self.assertRaises(ValidationError, msg=key) as refused:
                client().batch(["Fine.", {"content": "A note.", key: "ana"}])
            self.assertEqual(refused.exception.status, 422)
            detail = refused.exception.detail or ""
            self.assertTrue(detail.startswith(f"invalid options: {key}: not an option of batch item{hint}; it takes content, "), detail)
            self.assertIn("user_id", detail)
            self.assertIn("dedupe", detail)
            self.assertEqual(str(refused.exception), f"422: {detail}")
        with self.assertRaisesRegex(TypeError, "list of memory ids"):
            client().capture("A note.", supersedes="m-1")
        self.assertEqual(server.seen, [])

    def test_upload_sends_them_as_form_fields_with_json_for_metadata_and_supersedes(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "note.txt"
            path.write_text("hello", encoding="utf-8")
            client().upload(path, source="notes", **self.FIELDS)
        body = last("/v1/upload").body.decode("utf-8")
        expected = {"source": "notes", "user_id": "ana", "agent_id": "concierge", "session_id": "s-1",
                    "metadata": '{"topic":"home","tags":["a","b"],"n":null}', "supersedes": '["m-1","m-2"]',
                    "infer_updates": "false"}
        for name, value in expected.items():
            self.assertIn(f'Content-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n', body)


if __name__ == "__main__":
    unittest.main()
