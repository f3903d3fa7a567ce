"""LangChain's own standard retriever tests (``langchain-tests``, MIT, from PyPI, not vendored),
run against ``UMORetriever`` and the real server: only the fixture is ours — a live server, a scope
holding enough memories for the query, and the retriever's constructor parameters."""

from __future__ import annotations

from typing import Any

from langchain_tests.integration_tests import RetrieversIntegrationTests
from live_server import KEYS, LiveServer
from umo_client import Scope, UMOClient

from umo_langchain import UMORetriever

server: LiveServer
client: UMOClient


def setup_module() -> None:
    global server, client
    server = LiveServer()
    client = UMOClient(api_key=KEYS["alice"], base_url=server.base_url)
    client.forget_all(user_id="standard")
    for text in (
        "Ana keeps bees on the roof of her building.",
        "Ana's bees made twelve jars of honey this summer.",
        "Ana sells her honey at the Saturday market.",
        "Ana's neighbour is allergic to bee stings.",
        "Ana started a second hive in May.",
    ):
        client.capture(text, user_id="standard")


def teardown_module() -> None:
    server.stop()


class TestUMORetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[UMORetriever]:
        return UMORetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"client": client, "scope": Scope(user_id="standard"), "k": 5}

    @property
    def retriever_query_example(self) -> str:
        return "What does Ana do with her bees?"
