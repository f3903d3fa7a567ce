"""Starts the real UMO server (PGlite in a temporary data directory) for the test run."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

KEYS = {
    "alice": "umo_py-test-alice-000000000000000000000",
    "bob": "umo_py-test-bob-0000000000000000000000",
    # Only the rate-limit test calls with carol, so the other tests never meet her limit.
    "carol": "umo_py-test-carol-000000000000000000000",
}
RATE_PER_MINUTE = 120


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _node() -> str:
    # Under `npm test` npm names the Node it runs on; otherwise the first `node` on PATH.
    node = os.environ.get("npm_node_execpath") or shutil.which("node")
    if not node:
        raise RuntimeError("no node on PATH: run `export PATH=\"$(scripts/ensure-node.sh):$PATH\"` first")
    return node


class LiveServer:
    def __init__(self) -> None:
        self.data_dir = tempfile.mkdtemp(prefix="umo-py-client-")
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(self.data_dir, "server.log"), "w+b")
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "UMO_SIGNING_KEY")}
        env.update(
            PORT=str(self.port),
            HOST="127.0.0.1",
            UMO_DATA_DIR=self.data_dir,
            UMO_API_KEYS=",".join(f"{key}={name}" for name, key in KEYS.items()),
            UMO_RATE_LIMIT_PER_MINUTE=str(RATE_PER_MINUTE),
            # A closed port: a cloud answer fails the way a provider outage would (502).
            OPENAI_BASE_URL="http://127.0.0.1:9",
            # These tests are about the client: the embedder that needs no model files will do.
            UMO_EMBEDDER="use-lite",
        )
        tsx = ROOT / "node_modules" / "tsx" / "dist" / "cli.mjs"
        self.process = subprocess.Popen(
            [_node(), str(tsx), "server/src/main.ts"], cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        self._wait_until_healthy(timeout=180)

    def _wait_until_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.output()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"the server did not become healthy in {timeout} s:\n{self.output()}")

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")[-4000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
