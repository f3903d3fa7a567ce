"""Starts the real UMO server (PGlite in a temporary data directory) for the test run."""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[3]
TSX = ROOT / "node_modules" / "tsx" / "dist" / "cli.mjs"

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


def _new_enough(node: str) -> bool:
    try:
        version = subprocess.run([node, "-p", "process.versions.node"], capture_output=True, text=True, timeout=30)
    except OSError:
        return False
    if version.returncode != 0:
        return False
    major, minor = version.stdout.strip().split(".")[:2]
    return (int(major), int(minor)) >= (22, 19)


@functools.cache
def _node() -> str:
    # Under `npm test` scripts/with-node.sh names the Node >= 22.19 it put first on PATH; otherwise
    # the first `node` on PATH if it is new enough, else the one scripts/ensure-node.sh provides.
    for node in (os.environ.get("npm_node_execpath"), shutil.which("node")):
        if node and _new_enough(node):
            return node
    found = subprocess.run(
        ["bash", str(ROOT / "scripts" / "ensure-node.sh")], capture_output=True, text=True, check=False
    )
    if found.returncode != 0:
        raise RuntimeError(f"no Node >= 22.19: scripts/ensure-node.sh failed:\n{found.stderr}")
    return str(Path(found.stdout.strip()) / "node")


class LiveServer:
    """The server on a fresh data directory. ``restart`` stops it and starts it again on the same
    directory and port; ``stop`` ends it and deletes the directory."""

    def __init__(self) -> None:
        self.data_dir = tempfile.mkdtemp(prefix="umo-py-client-")
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(self.data_dir, "server.log"), "w+b")
        self.process: Optional[subprocess.Popen[bytes]] = None
        self._start()

    def _env(self) -> dict[str, str]:
        """The environment of the server and the CLI: PGlite in the data directory, its own key file."""
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "UMO_SIGNING_KEY")}
        env["UMO_DATA_DIR"] = self.data_dir
        return env

    def _start(self) -> None:
        env = self._env()
        env.update(
            PORT=str(self.port),
            HOST="127.0.0.1",
            UMO_API_KEYS=",".join(f"{key}={name}" for name, key in KEYS.items()),
            UMO_RATE_LIMIT_PER_MINUTE=str(RATE_PER_MINUTE),
            # A closed port: a cloud answer fails the way a provider outage would (502).
            OPENAI_BASE_URL="http://127.0.0.1:9",
            # These tests are about the client: the embedder that needs no model files will do.
            UMO_EMBEDDER="use-lite",
        )
        self.process = subprocess.Popen(
            [_node(), str(TSX), "server/src/main.ts"], cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        self._wait_until_healthy(timeout=180)

    def _terminate(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def restart(self, between: Optional[Callable[[], None]] = None) -> None:
        """Stops the server, keeping its data directory, calls ``between`` (e.g. the CLI on that
        directory, which must not be open in a running server), and starts it again."""
        self._terminate()
        if between is not None:
            between()
        self._start()

    def cli(self, *args: str) -> str:
        """Runs the operator's CLI (``npm run umo -- ARGS``) on the data directory; its output.
        Call it inside ``restart(between=...)``: PGlite admits one process at a time."""
        done = subprocess.run(
            [_node(), str(TSX), "server/src/cli.ts", *args],
            cwd=ROOT,
            env=self._env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=180,
        )
        output = done.stdout.decode("utf-8", "replace")
        if done.returncode != 0:
            raise RuntimeError(f"`umo {' '.join(args)}` exited with {done.returncode}:\n{output}")
        return output

    def _wait_until_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                code = None if self.process is None else self.process.returncode
                raise RuntimeError(f"the server exited with {code}:\n{self.output()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.25)
        output = self.output()
        self.stop()
        raise RuntimeError(f"the server did not become healthy in {timeout} s:\n{output}")

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")[-4000:]

    def stop(self) -> None:
        self._terminate()
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
