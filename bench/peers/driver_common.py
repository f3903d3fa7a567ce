"""What the peer drivers share: the JSON-lines loop and the manifest of what a peer was given.

The TypeScript harness (bench/src/peers/PeerProcess.ts) writes one request a line on stdin,
`{"id": n, "cmd": ..., ...}`, and reads one answer a line, `{"id": n, "ok": true, ...}` or
`{"id": n, "ok": false, "error": "..."}`. Requests come one at a time, so the harness times each
call the same way for every system. Everything the libraries print goes to stderr: the protocol
owns the real stdout.

The manifest records what the driver itself handed to its library: SHA-256 of every memory text
(in order, per space), of every query (with its space and limit), and of every embedder file the
library loads. The harness compares it with UMO's and with what it meant to send, and refuses to
report when they differ.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Dict

# The files of a sentence-transformers checkpoint that SentenceTransformer(path) reads.
EMBEDDER_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    "1_Pooling/config.json",
    "model.safetensors",
)


def offline() -> None:
    """Nothing may download: the hub and every library's telemetry are off."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ["ANONYMIZED_TELEMETRY"] = "False"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def embedder_manifest(model_dir: str) -> Dict[str, Any]:
    root = Path(model_dir)
    files = {name: sha256_file(root / name) for name in EMBEDDER_FILES if (root / name).exists()}
    source = None
    stamp = root / "peers-export.json"
    if stamp.exists():
        source = json.loads(stamp.read_text()).get("source")
    return {"model_dir": str(root), "files": files, "weights_source": source}


class Recorder:
    """Running digests of the memories and queries handed to the library (see the module doc)."""

    def __init__(self) -> None:
        self.memories = hashlib.sha256()
        self.memory_count = 0
        self.queries = hashlib.sha256()
        self.query_count = 0

    def memory(self, space: str, text: str) -> None:
        self.memories.update(f"{space}\t{sha256_text(text)}\n".encode())
        self.memory_count += 1

    def query(self, space: str, query: str, limit: int) -> None:
        self.queries.update(f"{space}\t{limit}\t{sha256_text(query)}\n".encode())
        self.query_count += 1

    def manifest(self) -> Dict[str, Any]:
        return {
            "memories": {"count": self.memory_count, "sha256": self.memories.hexdigest()},
            "queries": {"count": self.query_count, "sha256": self.queries.hexdigest()},
        }


def rss_mb() -> Dict[str, float]:
    """Resident memory now and at its peak (Linux /proc), in MB."""
    values = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, amount = line.split(":")
                values[key] = round(int(amount.split()[0]) / 1024, 1)
    return {"rss_mb": values.get("VmRSS", 0.0), "peak_rss_mb": values.get("VmHWM", 0.0)}


def dir_mb(path: str) -> float:
    total = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            try:
                total += os.path.getsize(os.path.join(dirpath, name))
            except OSError:
                pass
    return round(total / 2**20, 1)


def serve(handlers: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]]) -> None:
    """Answers requests until stdin closes or a `close` request comes."""
    protocol = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    # Whatever the libraries print (notices, progress bars) must not reach the protocol stream.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        answer: Dict[str, Any]
        try:
            if request["cmd"] == "close":
                protocol.write(json.dumps({"id": request.get("id"), "ok": True}) + "\n")
                break
            handler = handlers.get(request["cmd"])
            if handler is None:
                raise ValueError(f"unknown command {request['cmd']!r}")
            answer = {"id": request.get("id"), "ok": True, **handler(request)}
        except Exception as error:  # noqa: BLE001 - every failure goes back to the harness
            traceback.print_exc(file=sys.stderr)
            answer = {"id": request.get("id"), "ok": False, "error": f"{type(error).__name__}: {error}"}
        protocol.write(json.dumps(answer) + "\n")
    protocol.close()


COMMANDS = ("init", "warm", "add", "search", "embed", "stats", "manifest")


def serve_driver(driver: Any) -> None:
    """Serves a driver object: each command of the protocol is the driver's method of that name."""
    serve({name: getattr(driver, name) for name in COMMANDS})
