"""What LangGraph's own store suites (the vendored ``test_*.py`` beside this file) construct, made a
``UMOStore`` on a live UMO server: with ``conftest.py``, the only part of ``peer_tests`` that is ours.

One server for the whole run (``start`` / ``stop``, from ``conftest.py``); every store is a
``UMOStore`` of the same account, emptied before each test (``erase_all``), so each test begins
with a store that holds nothing, as upstream's fresh in-memory, SQLite or PostgreSQL store does.
What upstream's construction passes that UMO has no counterpart for (an ``index`` with an
embedding function and fields, a connection string, a pool, a vector type) is dropped: UMO embeds
and indexes each item whole with its own embedder. A TTL configuration is kept."""

from __future__ import annotations

import contextlib
import os
from typing import Iterator, Optional

import live_server
from langgraph.store.base import TTLConfig
from live_server import KEYS, LiveServer
from umo_client import UMOClient

from umo_langgraph import UMOStore

# The suites make some tens of thousands of calls in a few minutes. The live server's own limit
# (120 a minute, for the client's rate-limit test) would hold them back for hours.
RATE_PER_MINUTE = 10_000_000

# Two PostgreSQL tests run thousands of concurrent operations (6,000 and 60,000), each several HTTP
# calls with a TTL refreshed on every read: about 7 minutes, and well over an hour. They run when
# UMO_PEER_TESTS_LONG is set; SQLite's test of 6,000 (about 1.5 minutes) runs every time.
LONG = bool(os.environ.get("UMO_PEER_TESTS_LONG"))

_server: Optional[LiveServer] = None
_client: Optional[UMOClient] = None


def start() -> None:
    global _server, _client
    limit = live_server.RATE_PER_MINUTE
    live_server.RATE_PER_MINUTE = RATE_PER_MINUTE  # read when the server starts
    try:
        _server = LiveServer()
    finally:
        live_server.RATE_PER_MINUTE = limit
    _client = UMOClient(api_key=KEYS["alice"], base_url=_server.base_url)


def stop() -> None:
    global _server, _client
    if _server is not None:
        _server.stop()
    _server = _client = None


def client() -> UMOClient:
    if _client is None:
        raise RuntimeError("the UMO server is not started (conftest.py's umo_server fixture starts it)")
    return _client


def umo_store(ttl: Optional[TTLConfig] = None) -> UMOStore:
    """The store a test gets where upstream makes its own: a UMOStore on the live server."""
    return UMOStore(client(), ttl=ttl)


@contextlib.contextmanager
def umo_store_context(ttl: Optional[TTLConfig] = None) -> Iterator[UMOStore]:
    """``umo_store`` where upstream opens its store as a context manager (``with ... as store``)."""
    yield umo_store(ttl)


def erase_all() -> None:
    """Erases every memory of every end user of the account (each namespace is one): what the
    tests' stores hold. Scopes leave the list as they are emptied, so the first page is read again
    until there is none."""
    umo = client()
    while True:
        page = umo.scopes(kind="user", limit=100)
        if not page.scopes:
            return
        for scope in page.scopes:
            umo.forget_all(user_id=scope.id)
