"""The fixtures LangGraph's own store suites share here: one live UMO server for the run, every
test's store emptied before it (umo_peer.py), and the PostgreSQL suites' ``fake_embeddings``
(upstream's libs/checkpoint-postgres/tests/conftest.py: only the tests skipped here use it)."""

from __future__ import annotations

from typing import Iterator

import pytest
from embed_test_utils import CharacterEmbeddings

import umo_peer


@pytest.fixture(scope="session")
def umo_server() -> Iterator[None]:
    umo_peer.start()
    yield
    umo_peer.stop()


@pytest.fixture(autouse=True)
def clean_store(umo_server: None) -> None:
    umo_peer.erase_all()


@pytest.fixture
def fake_embeddings() -> CharacterEmbeddings:
    return CharacterEmbeddings(dims=500)
