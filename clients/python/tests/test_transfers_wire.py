"""Export and import on the wire — lines read as they arrive, an export cut short, bodies sent as
they are read, retries — against a scripted local HTTP server (no UMO server needed)."""

from __future__ import annotations

import http.server
import io
import json
import tempfile
import threading
import unittest
import urllib.parse
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

from umo_client import APIError, AuthenticationError, ExportedMemory, ExportHeader, IncompleteExportError, UMOClient

HEADER = {"kind": "umo-export", "version": 1, "exported_at": "2026-01-01T00:00:00.000Z", "account": "ana",
          "embedding_model": "use-lite", "signing_keys": {"keys": [], "rotations": []}}


def memory(n: int) -> dict[str, Any]:
    return {"kind": "memory", "umo_id": f"m-{n}", "content": f"Note {n}.", "source": None, "user_id": "ana", "agent_id": None,
            "session_id": None, "metadata": {}, "timestamp": "2026-01-01T00:00:00.000Z", "created_at": "2026-01-01T00:00:00.000Z",
            "supersedes": [], "superseded_by": None, "content_hash": "c", "semantic_hash": "s", "record_hash": "r",
            "imported_from": {"format": "mem0", "id": f"x-{n}", "created_at": None, "verified": None},
            "entry": None, "supersession": None}


SUMMARY = {"format": "umo", "lines": 4, "imported": 2, "already_imported": 0, "linked": 0, "verified": 2, "failed": 1,
           "failures": [{"line": 3, "detail": "not a memory"}], "stopped_at": None, "complete": True}

# What the scripted server does with a request to a path, in order:
WHOLE = "whole"  # /v1/export: the header, two memories and the end
HELD = "held"  # /v1/export: the header, then the rest once `release` is set
CUT = "cut"  # /v1/export: the header and one memory, then the connection closes mid-stream
MISCOUNTED = "miscounted"  # /v1/export: an end line counting more memories than were sent
HEADLESS = "headless"  # /v1/export: a memory first
OK = "ok"  # /v1/import: reads the body, answers the summary
UNAVAILABLE = "503"  # reads the body, answers 503 with Retry-After: 0
EARLY = "401"  # answers 401 at once, without reading the body, and closes


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes


class ScriptedServer:
    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self.scripts: dict[str, deque[str]] = {}
        self.lock = threading.Lock()
        self.release = threading.Event()
        scripted = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self.respond()

            def do_POST(self) -> None:
                self.respond()

            def respond(self) -> None:
                path, _, query = self.path.partition("?")
                with scripted.lock:
                    script = scripted.scripts.get(path)
                    action = script.popleft() if script else (WHOLE if path == "/v1/export" else OK)
                self.close_connection = True
                body = b"" if action == EARLY else self.read_body()
                with scripted.lock:
                    scripted.seen.append(Seen(self.command, path, dict(urllib.parse.parse_qsl(query)), dict(self.headers), body))
                if action == EARLY:
                    self.send_json(401, {"detail": "invalid or revoked API key"})
                elif action == UNAVAILABLE:
                    self.send_json(503, {"detail": "the database is unavailable"}, {"Retry-After": "0"})
                elif path == "/v1/import":
                    self.send_json(200, {"status": "success", "data": SUMMARY})
                else:
                    self.export(action)

            def read_body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
                    return self.rfile.read(int(self.headers.get("Content-Length") or 0))
                chunks = []
                while True:
                    size = int(self.rfile.readline().strip(), 16)
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                    if size == 0:
                        return b"".join(chunks)

            def export(self, action: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("X-Request-Id", "req-export")
                self.end_headers()
                lines = [memory(1)] if action == HEADLESS else [HEADER, memory(1), memory(2)]
                for n, line in enumerate(lines):
                    self.chunk(json.dumps(line).encode() + b"\n")
                    if n == 0 and action == HELD:
                        scripted.release.wait(5)
                    if n == 1 and action == CUT:
                        return  # no more chunks, and no last one: the connection closes
                self.chunk(json.dumps({"kind": "end", "memories": 5 if action == MISCOUNTED else 2}).encode() + b"\n")
                self.chunk(b"")

            def chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def send_json(self, status: int, payload: Any, headers: Optional[dict[str, str]] = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def script(self, path: str, *actions: str) -> None:
        with self.lock:
            self.scripts[path] = deque(actions)

    def requests(self, path: str) -> list[Seen]:
        with self.lock:
            return [s for s in self.seen if s.path == path]

    def reset(self) -> None:
        with self.lock:
            self.seen.clear()
            self.scripts.clear()
        self.release.clear()

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


server: ScriptedServer


def setUpModule() -> None:
    global server
    server = ScriptedServer()


def tearDownModule() -> None:
    server.stop()


def client() -> UMOClient:
    return UMOClient(api_key="umo_test", base_url=server.base_url, max_retry_delay=0.05, timeout=10)


class ExportWireTest(unittest.TestCase):
    def setUp(self) -> None:
        server.reset()

    def test_lines_are_read_as_they_arrive_and_the_selection_travels_in_the_query_string(self) -> None:
        server.script("/v1/export", HELD)
        lines = client().export_memories(user_id="ana", metadata={"topic": ["home", "car"]}, filters={"NOT": {"agent_id": "*"}},
                                         after="2024-01-01", after_id="m-0")
        header = next(lines)  # the server holds the rest back until this line has come
        assert isinstance(header, ExportHeader)
        self.assertEqual((header.account, header.embedding_model, header.signing_keys), ("ana", "use-lite", {"keys": [], "rotations": []}))
        server.release.set()
        rest = list(lines)
        self.assertEqual([line.kind for line in rest], ["memory", "memory", "end"])
        first = rest[0]
        assert isinstance(first, ExportedMemory) and first.imported_from is not None
        self.assertEqual((first.umo_id, first.imported_from.format, first.imported_from.id), ("m-1", "mem0", "x-1"))
        [seen] = server.requests("/v1/export")
        self.assertEqual(seen.query, {"user_id": "ana", "metadata": '{"topic":["home","car"]}', "filters": '{"NOT":{"agent_id":"*"}}',
                                      "after": "2024-01-01", "include_superseded": "true", "embeddings": "false", "after_id": "m-0"})
        self.assertIn("application/x-ndjson", seen.headers["Accept"])
        list(client().export_memories(include_superseded=False, embeddings=True))
        self.assertEqual(server.requests("/v1/export")[-1].query, {"include_superseded": "false", "embeddings": "true"})

    def test_an_export_cut_short_raises_with_where_to_resume_and_export_to_keeps_what_came(self) -> None:
        server.script("/v1/export", CUT, CUT)
        lines = client().export_memories()
        self.assertEqual([next(lines).kind, next(lines).kind], ["umo-export", "memory"])
        with self.assertRaises(IncompleteExportError) as cut:
            next(lines)
        self.assertEqual((cut.exception.after_id, cut.exception.memories, cut.exception.status), ("m-1", 1, None))
        self.assertEqual(cut.exception.request_id, "req-export")
        self.assertIsInstance(cut.exception, APIError)
        self.assertIn("after_id=m-1", str(cut.exception))
        file = io.BytesIO()
        with self.assertRaises(IncompleteExportError):
            client().export_to(file)
        self.assertEqual([json.loads(line) for line in file.getvalue().splitlines()], [HEADER, memory(1)])

    def test_an_export_whose_end_miscounts_or_without_its_header_is_refused(self) -> None:
        server.script("/v1/export", MISCOUNTED, HEADLESS)
        with self.assertRaisesRegex(IncompleteExportError, "counted 5"):
            list(client().export_memories())
        with self.assertRaisesRegex(APIError, "does not open with its header"):
            list(client().export_memories())

    def test_export_to_writes_the_lines_as_sent_to_a_path_and_returns_the_count(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "export.jsonl"
            self.assertEqual(client().export_to(path, user_id="ana"), 2)
            self.assertEqual(path.read_bytes().splitlines()[1], json.dumps(memory(1)).encode())
            self.assertEqual(json.loads(path.read_bytes().splitlines()[-1]), {"kind": "end", "memories": 2})

    def test_an_export_refused_with_503_is_asked_again(self) -> None:
        server.script("/v1/export", UNAVAILABLE, WHOLE)
        self.assertEqual(len(list(client().export_memories())), 4)
        self.assertEqual(len(server.requests("/v1/export")), 2)


def one_by_one(*chunks: bytes) -> Iterator[bytes]:
    yield from chunks


class ImportWireTest(unittest.TestCase):
    def setUp(self) -> None:
        server.reset()

    def test_an_iterable_is_sent_chunked_as_it_is_read_with_the_options_in_the_query_string(self) -> None:
        summary = client().import_memories(one_by_one(b'{"id": "a", "mem', b'ory": "A."}\n'), format="mem0", on_error="stop",
                                           infer_updates=True)
        self.assertEqual((summary.format, summary.imported, summary.verified, summary.complete), ("umo", 2, 2, True))
        self.assertEqual((summary.failures[0].line, summary.failures[0].detail, summary.stopped_at), (3, "not a memory", None))
        [seen] = server.requests("/v1/import")
        self.assertEqual((seen.method, seen.body), ("POST", b'{"id": "a", "memory": "A."}\n'))
        self.assertEqual(seen.headers["Transfer-Encoding"], "chunked")
        self.assertEqual(seen.headers["Content-Type"], "application/x-ndjson")
        self.assertEqual(seen.query, {"format": "mem0", "on_error": "stop", "infer_updates": "true"})
        client().import_memories("")
        self.assertEqual(server.requests("/v1/import")[-1].query, {"format": "auto", "on_error": "skip", "infer_updates": "false"})

    def test_export_lines_and_json_objects_are_sent_one_a_line(self) -> None:
        header = ExportHeader.from_raw(HEADER)
        client().import_memories([header, ExportedMemory.from_raw(memory(1)), {"kind": "end", "memories": 1}])
        lines = [json.loads(line) for line in server.requests("/v1/import")[-1].body.splitlines()]
        self.assertEqual(lines, [HEADER, memory(1), {"kind": "end", "memories": 1}])
        with self.assertRaisesRegex(TypeError, "not int"):
            client().import_memories([1, 2])  # type: ignore[list-item]

    def test_a_path_or_a_seekable_file_is_sent_again_whole_after_a_503_and_a_one_shot_iterable_is_not(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "mem0.json"
            path.write_text('{"results": []}', encoding="utf-8")
            server.script("/v1/import", UNAVAILABLE, OK)
            client().import_memories(path)
            sent = server.requests("/v1/import")
            self.assertEqual([s.body for s in sent], [b'{"results": []}'] * 2)
            self.assertEqual(sent[0].headers["Content-Type"], "application/json")
            with self.assertRaises(FileNotFoundError):
                client().import_memories(Path(folder) / "missing.jsonl")

        server.reset()
        server.script("/v1/import", UNAVAILABLE, OK)
        file = io.BytesIO(b"skipped\n{}\n")
        file.readline()
        client().import_memories(file)
        self.assertEqual([s.body for s in server.requests("/v1/import")], [b"{}\n"] * 2)

        server.reset()
        server.script("/v1/import", UNAVAILABLE, OK)
        with self.assertRaises(APIError) as unavailable:
            client().import_memories(one_by_one(b"{}\n"))
        self.assertEqual(unavailable.exception.status, 503)
        self.assertEqual(len(server.requests("/v1/import")), 1)

    def test_an_answer_that_comes_before_the_whole_body_was_read_is_the_error_raised(self) -> None:
        server.script("/v1/import", EARLY)
        big = (b'{"id": "x", "memory": "' + b"a" * 1000 + b'"}\n' for _ in range(50_000))
        with self.assertRaises(AuthenticationError) as refused:
            client().import_memories(big)
        self.assertEqual(refused.exception.status, 401)


if __name__ == "__main__":
    unittest.main()
