"""Retries and idempotency keys, against a scripted local HTTP server (no UMO server needed)."""

from __future__ import annotations

import http.server
import json
import tempfile
import threading
import time
import unittest
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from umo_client import APIError, UMOClient, ValidationError

UUID4 = r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"

# What the scripted server does with a request, in the order the requests come (per path):
OK = "ok"  # answers 200 with an envelope like the service's
UNAVAILABLE = "503"  # answers 503 with Retry-After: 0
DROP = "drop"  # reads the request and closes the connection without a word
SLOW = "slow"  # answers only after the client's timeout has passed
CUT = "cut"  # answers 200 but closes the connection halfway through the body
INVALID = "422"  # answers 422, e.g. a key used with another request


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    key: Optional[str]
    body: bytes
    query: str = ""


class ScriptedServer:
    """An HTTP server in a thread that follows a script per path and records what it was sent."""

    SLOW_SECONDS = 1.0

    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self.scripts: dict[str, deque[str]] = {}
        self.lock = threading.Lock()
        scripted = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.respond()

            def do_POST(self) -> None:
                self.respond()

            def do_DELETE(self) -> None:
                self.respond()

            def do_PATCH(self) -> None:
                self.respond()

            def respond(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                path, _, query = self.path.partition("?")
                with scripted.lock:
                    n = len(scripted.seen)
                    scripted.seen.append(Seen(self.command, path, self.headers.get("Idempotency-Key"), body, query))
                    script = scripted.scripts.get(path)
                    action = script.popleft() if script else OK
                self.close_connection = True
                if action == DROP:
                    return
                if action == SLOW:
                    time.sleep(ScriptedServer.SLOW_SECONDS)
                if action == UNAVAILABLE:
                    self.send_json(503, {"detail": "the database is unavailable"}, {"Retry-After": "0"})
                elif action == INVALID:
                    self.send_json(422, {"detail": "this Idempotency-Key was used with another request"})
                else:
                    self.send_json(200, {"status": "success", "data": _answer(path, n)}, cut=action == CUT)

            def send_json(self, status: int, payload: Any, headers: Optional[dict[str, str]] = None, cut: bool = False) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data[: len(data) // 2] if cut else data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up on a slow answer: nothing to report

        self.server = Server(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def script(self, path: str, *actions: str) -> None:
        with self.lock:
            self.scripts[path] = deque(actions)

    def keys(self, path: str) -> list[Optional[str]]:
        with self.lock:
            return [s.key for s in self.seen if s.path == path]

    def reset(self) -> None:
        with self.lock:
            self.seen.clear()
            self.scripts.clear()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _answer(path: str, n: int) -> dict[str, Any]:
    """A plausible ``data`` for each call; ids carry the request's number."""
    captured = {"umo_id": f"memory-{n}", "quality_score": 0.5, "created_at": "2026-01-01T00:00:00.000Z",
                "content_hash": "h", "receipt": "r"}
    if path == "/v1/process":
        return captured
    if path == "/v1/upload":
        return {**captured, "format": "text", "characters": 5}
    if path == "/v1/batch":
        return {"results": [{"index": 0, "success": True, "umo_id": f"memory-{n}"}]}
    if path == "/v1/memories":
        return {"items": [], "total_count": 0, "has_more": False}
    if path == "/v1/scopes":
        return {"scopes": [{"kind": "user", "id": "ana", "memories": 3, "last_memory_at": "2026-01-01T00:00:00.000Z"}],
                "total_count": 4, "has_more": True}
    if path.startswith("/v1/memories/"):
        return {**captured, "supersedes": [path.rsplit("/", 1)[1]]}
    if path == "/v1/ask":
        return {"answer": "Lisbon", "method": "extractive", "citations": []}
    return {}


server: ScriptedServer


def setUpModule() -> None:
    global server
    server = ScriptedServer()


def tearDownModule() -> None:
    server.stop()


def client(**options: Any) -> UMOClient:
    options.setdefault("max_retry_delay", 0.05)  # backoff of at most 50 ms: the tests stay quick
    return UMOClient(api_key="umo_test", base_url=server.base_url, **options)


class IdempotencyKeyTest(unittest.TestCase):
    def setUp(self) -> None:
        server.reset()

    def test_a_capture_sends_the_same_key_on_each_attempt_and_a_new_key_per_call(self) -> None:
        server.script("/v1/process", UNAVAILABLE, OK, UNAVAILABLE, OK)
        first = client().capture("Lunch with Ana on Friday.")
        second = client().capture("Lunch with Ana on Friday.")
        self.assertEqual((first.umo_id, second.umo_id), ("memory-1", "memory-3"))
        keys = server.keys("/v1/process")
        self.assertEqual(len(keys), 4)
        self.assertEqual(keys[0], keys[1])
        self.assertEqual(keys[2], keys[3])
        self.assertNotEqual(keys[0], keys[2])
        for key in keys:
            self.assertRegex(key or "", UUID4)
        bodies = [s.body for s in server.seen]
        self.assertEqual(bodies[0], bodies[1])  # the retry is the same request

    def test_the_callers_own_key_is_sent_on_every_attempt_of_capture_batch_and_upload(self) -> None:
        server.script("/v1/process", UNAVAILABLE, OK)
        server.script("/v1/batch", UNAVAILABLE, OK)
        server.script("/v1/upload", UNAVAILABLE, OK)
        umo = client()
        umo.capture("Lunch with Ana on Friday.", idempotency_key="import-2026-01-05/line-17")
        self.assertEqual(umo.batch(["A note."], idempotency_key='"quoted-key"')[0].umo_id, "memory-3")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "note.txt"
            path.write_text("hello", encoding="utf-8")
            self.assertEqual(umo.upload(path, idempotency_key="x" * 255).format, "text")
        self.assertEqual(server.keys("/v1/process"), ["import-2026-01-05/line-17"] * 2)
        self.assertEqual(server.keys("/v1/batch"), ['"quoted-key"'] * 2)
        self.assertEqual(server.keys("/v1/upload"), ["x" * 255] * 2)
        uploads = [s.body for s in server.seen if s.path == "/v1/upload"]
        self.assertEqual(uploads[0], uploads[1])  # the same multipart body, boundary and all

    def test_batch_and_upload_make_a_key_of_their_own_and_other_calls_send_none(self) -> None:
        umo = client()
        umo.batch(["A note."])
        umo.batch(["A note."])
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "note.txt"
            path.write_text("hello", encoding="utf-8")
            umo.upload(path)
        umo.answer("Where?")
        umo.list()
        batch_keys = server.keys("/v1/batch")
        self.assertNotEqual(batch_keys[0], batch_keys[1])
        for key in batch_keys + server.keys("/v1/upload"):
            self.assertRegex(key or "", UUID4)
        self.assertEqual(server.keys("/v1/ask") + server.keys("/v1/memories"), [None, None])

    def test_a_key_the_service_would_refuse_fails_before_any_request(self) -> None:
        umo = client()
        for bad in ("", "with space", "naïve", "x" * 256, "tab\there", "line\nbreak"):
            with self.assertRaises(ValueError, msg=repr(bad)):
                umo.capture("A note.", idempotency_key=bad)
            with self.assertRaises(ValueError, msg=repr(bad)):
                umo.batch(["A note."], idempotency_key=bad)
        self.assertEqual(server.seen, [])

    def test_a_key_used_with_another_request_is_a_validation_error_and_not_retried(self) -> None:
        server.script("/v1/process", INVALID, OK)
        with self.assertRaises(ValidationError) as refused:
            client().capture("Another note.", idempotency_key="used-before")
        self.assertEqual(refused.exception.status, 422)
        self.assertEqual(server.keys("/v1/process"), ["used-before"])


class ConnectionFailureTest(unittest.TestCase):
    def setUp(self) -> None:
        server.reset()

    def test_a_capture_is_retried_with_the_same_key_when_the_connection_drops(self) -> None:
        server.script("/v1/process", DROP, OK)
        self.assertEqual(client().capture("Lunch with Ana on Friday.").umo_id, "memory-1")
        keys = server.keys("/v1/process")
        self.assertEqual(len(keys), 2)
        self.assertEqual(keys[0], keys[1])

    def test_batch_and_upload_are_retried_too(self) -> None:
        server.script("/v1/batch", DROP, OK)
        server.script("/v1/upload", DROP, OK)
        umo = client()
        self.assertEqual(umo.batch(["A note."])[0].umo_id, "memory-1")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "note.txt"
            path.write_text("hello", encoding="utf-8")
            self.assertEqual(umo.upload(path).umo_id, "memory-3")
        for called in ("/v1/batch", "/v1/upload"):
            keys = server.keys(called)
            self.assertEqual(len(keys), 2)
            self.assertEqual(keys[0], keys[1])

    def test_an_update_is_retried_with_its_key_when_unavailable_or_the_connection_drops(self) -> None:
        server.script("/v1/memories/m-1", UNAVAILABLE, DROP, OK)
        updated = client().update("m-1", content="The locker is number 14.", idempotency_key="update-m-1")
        self.assertEqual((updated.umo_id, updated.supersedes), ("memory-2", ["m-1"]))
        self.assertEqual(server.keys("/v1/memories/m-1"), ["update-m-1"] * 3)
        self.assertEqual({s.method for s in server.seen}, {"PATCH"})

    def test_a_capture_whose_answer_was_cut_short_is_retried_with_the_same_key(self) -> None:
        # The service stored it and the answer was lost: the retry gets the first answer again.
        server.script("/v1/process", CUT, OK)
        self.assertEqual(client().capture("Lunch with Ana on Friday.").umo_id, "memory-1")
        keys = server.keys("/v1/process")
        self.assertEqual(len(keys), 2)
        self.assertEqual(keys[0], keys[1])

    def test_a_post_without_a_key_is_not_retried_when_the_connection_drops(self) -> None:
        server.script("/v1/ask", DROP, OK)
        with self.assertRaises(APIError) as lost:
            client().answer("Where did Priya move?")
        self.assertIsNone(lost.exception.status)
        self.assertEqual(server.keys("/v1/ask"), [None])

    def test_a_delete_is_not_retried_when_the_connection_drops(self) -> None:
        server.script("/v1/memories/m-1", DROP, OK)
        with self.assertRaises(APIError) as lost:
            client().forget("m-1")
        self.assertIsNone(lost.exception.status)
        self.assertEqual(len(server.keys("/v1/memories/m-1")), 1)

    def test_a_get_is_retried_when_the_connection_drops(self) -> None:
        server.script("/v1/memories", DROP, DROP, OK)
        self.assertEqual(client().list().total_count, 0)
        self.assertEqual(server.keys("/v1/memories"), [None, None, None])

    def test_a_capture_that_times_out_is_retried_with_the_same_key_and_a_post_without_one_is_not(self) -> None:
        server.script("/v1/process", SLOW, OK)
        umo = client(timeout=0.3)
        self.assertEqual(umo.capture("Lunch with Ana on Friday.").umo_id, "memory-1")
        keys = server.keys("/v1/process")
        self.assertEqual(len(keys), 2)
        self.assertEqual(keys[0], keys[1])

        server.script("/v1/ask", SLOW, OK)
        with self.assertRaisesRegex(APIError, "timed out") as slow:
            umo.answer("Where did Priya move?")
        self.assertIsNone(slow.exception.status)
        self.assertEqual(len(server.keys("/v1/ask")), 1)

    def test_retries_after_connection_failures_stop_at_max_retries(self) -> None:
        server.script("/v1/process", DROP, DROP, DROP, DROP, OK)
        with self.assertRaisesRegex(APIError, "closed the connection without answering") as lost:
            client(max_retries=2).capture("A note.")
        self.assertIsNone(lost.exception.status)
        keys = server.keys("/v1/process")
        self.assertEqual(len(keys), 3)
        self.assertEqual(len(set(keys)), 1)

        server.reset()
        server.script("/v1/process", DROP, OK)
        with self.assertRaises(APIError):
            client(max_retries=0).capture("A note.")
        self.assertEqual(len(server.keys("/v1/process")), 1)

    def test_503s_and_connection_failures_share_one_retry_budget(self) -> None:
        server.script("/v1/process", UNAVAILABLE, DROP, OK)
        self.assertEqual(client(max_retries=2).capture("A note.").umo_id, "memory-2")
        self.assertEqual(len(set(server.keys("/v1/process"))), 1)

        server.reset()
        server.script("/v1/process", UNAVAILABLE, DROP, OK)
        with self.assertRaises(APIError) as lost:
            client(max_retries=1).capture("A note.")
        self.assertIsNone(lost.exception.status)
        self.assertEqual(len(server.keys("/v1/process")), 2)

        server.reset()
        server.script("/v1/process", DROP, UNAVAILABLE, OK)
        with self.assertRaises(APIError) as unavailable:
            client(max_retries=1).capture("A note.")
        self.assertEqual(unavailable.exception.status, 503)

    def test_an_unreachable_server_is_an_api_error_without_status_after_the_retries(self) -> None:
        started = time.monotonic()
        with self.assertRaisesRegex(APIError, "could not reach") as unreachable:
            UMOClient(api_key="k", base_url="http://127.0.0.1:1", max_retries=2, max_retry_delay=0.05).capture("A note.")
        self.assertIsNone(unreachable.exception.status)
        self.assertLess(time.monotonic() - started, 5)
        self.assertIn("127.0.0.1:1", str(unreachable.exception))


if __name__ == "__main__":
    unittest.main()
