"""UMOStore against the real server: LangGraph's store operations, two namespaces that never see
each other's items, and the items as UMO memories."""

from __future__ import annotations

import asyncio
import time
import unittest
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from langgraph.store.base import GetOp, InvalidNamespaceError
from live_server import KEYS, LiveServer
from test_values import values
from umo_client import UMOClient, ValidationError

from umo_langgraph import UMOStore
from umo_langgraph.store import scope_id

server: LiveServer


def setUpModule() -> None:
    global server
    server = LiveServer()


def tearDownModule() -> None:
    server.stop()


ANA = ("memories", "ana")
BO = ("memories", "bo")


class StoreTest(unittest.TestCase):
    client: UMOClient
    store: UMOStore

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = UMOClient(api_key=KEYS["alice"], base_url=server.base_url)
        cls.store = UMOStore(cls.client)

    def setUp(self) -> None:
        for namespace in self.store.list_namespaces():
            self.client.forget_all(user_id=scope_id(namespace))

    def test_put_then_get_gives_the_value_back(self) -> None:
        self.store.put(ANA, "diet", {"content": "Ana is vegetarian"})
        item = self.store.get(ANA, "diet")
        assert item is not None
        self.assertEqual((item.namespace, item.key, item.value), (ANA, "diet", {"content": "Ana is vegetarian"}))
        self.assertLessEqual(item.created_at, item.updated_at)
        self.assertIsNone(self.store.get(ANA, "missing"))
        self.assertIsNone(self.store.get(BO, "diet"))

    def test_an_item_is_a_memory_of_its_namespace_scope(self) -> None:
        self.store.put(ANA, "city", {"content": "Ana lives in Lisbon"})
        page = self.client.list(user_id="memories.ana", source="langgraph")
        self.assertEqual(len(page.items), 1)
        memory = self.client.get(page.items[0].umo_id)
        self.assertEqual(memory.content_text, "Ana lives in Lisbon")
        self.assertEqual(memory.metadata, {"langgraph_key": "city", "langgraph_field": "content"})
        self.assertTrue(self.client.verify(memory.umo_id).valid)
        # UMO's own search and answers reach it.
        self.assertEqual(self.client.ask("Lisbon", user_id="memories.ana")[0].umo_id, memory.umo_id)

    def test_a_new_value_is_a_new_version_and_the_same_value_writes_nothing(self) -> None:
        self.store.put(ANA, "city", {"content": "Ana lives in Madrid"})
        self.store.put(ANA, "city", {"content": "Ana lives in Madrid"})
        self.assertEqual(self.client.list(user_id="memories.ana", include_superseded=True).total_count, 1)
        first = self.store.get(ANA, "city")
        self.store.put(ANA, "city", {"content": "Ana lives in Greenwich", "since": 2024})
        second = self.store.get(ANA, "city")
        assert first is not None and second is not None
        self.assertEqual(second.value, {"content": "Ana lives in Greenwich", "since": 2024})
        self.assertEqual(second.created_at, first.created_at)
        self.assertGreater(second.updated_at, first.updated_at)
        self.store.put(ANA, "city", {"content": "Ana lives in Greenwich", "since": 2024})
        current = self.client.list(user_id="memories.ana", source="langgraph").items
        self.assertEqual(len(current), 1)
        versions = self.client.history(current[0].umo_id).versions
        self.assertEqual(len(versions), 2)
        self.assertEqual(self.client.list(user_id="memories.ana", include_superseded=True).total_count, 2)

    def test_delete_erases_every_version(self) -> None:
        self.store.put(ANA, "pet", {"content": "Ana has a cat"})
        self.store.put(ANA, "pet", {"content": "Ana has two cats"})
        self.store.put(BO, "pet", {"content": "Bo has a dog"})
        self.store.delete(ANA, "pet")
        self.assertIsNone(self.store.get(ANA, "pet"))
        self.assertEqual(self.client.list(user_id="memories.ana", include_superseded=True).total_count, 0)
        bo = self.store.get(BO, "pet")
        self.assertEqual(bo.value if bo else None, {"content": "Bo has a dog"})
        self.store.delete(ANA, "never-put")  # deleting what is not there is not an error

    def test_two_namespaces_never_see_each_others_items(self) -> None:
        self.store.put(ANA, "food", {"content": "Ana loves spicy ramen"})
        self.store.put(BO, "food", {"content": "Bo loves spicy ramen with extra chili oil"})
        self.store.put(BO, "sport", {"content": "Bo plays tennis"})
        found = self.store.search(ANA, query="spicy ramen with chili oil")
        self.assertEqual([(i.namespace, i.key) for i in found], [(ANA, "food")])
        self.assertIsNotNone(found[0].score)
        self.assertEqual({i.namespace for i in self.store.search(BO)}, {BO})
        both = self.store.search(("memories",), query="spicy ramen", limit=2)
        self.assertEqual({(i.namespace, i.key) for i in both}, {(ANA, "food"), (BO, "food")})
        self.assertEqual({i.namespace for i in self.store.search(())}, {ANA, BO})  # every namespace
        self.assertEqual(self.store.search(("memories", "an")), [])  # a prefix is whole labels
        self.assertEqual(self.store.search(("nobody",), query="ramen"), [])

    def test_a_star_is_a_label_and_a_key_like_any_other(self) -> None:
        self.store.put(BO, "diet", {"content": "Bo eats fish"})
        self.store.put(BO, "job", {"content": "Bo is a baker"})
        self.assertIsNone(self.store.get(("*",), "diet"))
        self.assertIsNone(self.store.get(BO, "*"))
        self.store.put(("*",), "diet", {"content": "Star eats rice"})
        self.store.put(BO, "*", {"content": "Bo's star item"})
        self.store.delete(BO, "*")
        self.store.delete(("*",), "diet")
        self.assertEqual(
            {(i.key, i.value["content"]) for i in self.store.search(BO)},
            {("diet", "Bo eats fish"), ("job", "Bo is a baker")},
        )
        self.assertEqual(self.store.list_namespaces(), [BO])

    def test_a_prefix_over_more_than_a_hundred_namespaces(self) -> None:
        # Bob's account, so the other tests' clean-up does not walk 101 namespaces. The items are
        # written in one batch, as the store writes them (README: a memory of source langgraph,
        # its key and its text field in metadata).
        client = UMOClient(api_key=KEYS["bob"], base_url=server.base_url)
        store = UMOStore(client)
        items = [
            {"content": f"item of n{n:03d}", "user_id": f"many.n{n:03d}", "source": "langgraph",
             "metadata": {"langgraph_key": "k", "langgraph_field": "content"}}
            for n in range(101)
        ]
        client.batch(items[:100])  # a batch holds at most 100
        client.batch(items[100:])
        newest = store.search(("many",), limit=3)
        self.assertEqual(len(newest), 3)
        self.assertTrue(all(item.namespace[0] == "many" for item in newest))
        found = store.search(("many",), query="item of n100", limit=1)
        self.assertEqual([(i.namespace, i.key, i.value) for i in found], [(("many", "n100"), "k", {"content": "item of n100"})])
        self.assertEqual(len(store.list_namespaces(prefix=("many",), limit=200)), 101)

    def test_search_without_a_query_lists_newest_first_with_offset_limit_and_filter(self) -> None:
        for n in range(5):
            self.store.put(ANA, f"note-{n}", {"text": f"note {n}", "n": n, "kind": "even" if n % 2 == 0 else "odd"})
        self.assertEqual(self.store.search(ANA, limit=0), [])
        keys = [i.key for i in self.store.search(ANA, limit=3, offset=1)]
        self.assertEqual(keys, ["note-3", "note-2", "note-1"])
        self.assertEqual([i.key for i in self.store.search(ANA, filter={"kind": "even"})], ["note-4", "note-2", "note-0"])
        self.assertEqual([i.key for i in self.store.search(ANA, filter={"n": {"$gte": 3}})], ["note-4", "note-3"])
        self.assertEqual([i.key for i in self.store.search(ANA, filter={"kind": "odd"}, offset=1)], ["note-1"])
        matched = self.store.search(ANA, query="note", filter={"kind": "odd", "n": {"$ne": 1}})
        self.assertEqual([i.key for i in matched], ["note-3"])
        with self.assertRaisesRegex(ValueError, r"filter\.n\.\$regex: unknown operator"):
            self.store.search(ANA, filter={"n": {"$regex": "1"}})
        with self.assertRaisesRegex(ValueError, r"limit: with a query, offset \+ limit must be at most 50"):
            self.store.search(ANA, query="note", limit=45, offset=10)

    def test_list_namespaces(self) -> None:
        self.store.put(ANA, "a", {"content": "one"})
        self.store.put(("memories", "bo", "work"), "b", {"content": "two"})
        self.store.put(("prefs", "ana"), "c", {"content": "three"})
        # A scope that holds only other memories is not a namespace of the store.
        self.client.capture("Cy likes jazz", user_id="memories.cy")
        self.assertEqual(self.store.list_namespaces(), [ANA, ("memories", "bo", "work"), ("prefs", "ana")])
        self.assertEqual(self.store.list_namespaces(prefix=("memories",)), [ANA, ("memories", "bo", "work")])
        self.assertEqual(self.store.list_namespaces(suffix=("ana",)), [ANA, ("prefs", "ana")])
        self.assertEqual(self.store.list_namespaces(prefix=("*", "ana")), [ANA, ("prefs", "ana")])
        self.assertEqual(self.store.list_namespaces(max_depth=1), [("memories",), ("prefs",)])
        self.assertEqual(self.store.list_namespaces(limit=1, offset=1), [("memories", "bo", "work")])
        self.client.forget_all(user_id="memories.cy")

    def test_bad_input(self) -> None:
        with self.assertRaises(InvalidNamespaceError):
            self.store.put(("memories", "a.b"), "k", {"content": "x"})
        for key in ("a\x00b", "a\ud800b"):
            with self.assertRaisesRegex(ValueError, "key: must not contain U\\+0000 or a surrogate"):
                self.store.put(ANA, key, {"content": "x"})
        self.assertIsNone(self.store.batch([GetOp((), "k")])[0])
        with self.assertRaises(ValidationError) as refused:
            self.store.put(ANA, "k" * 1001, {"content": "x"})
        self.assertIn("langgraph_key", refused.exception.detail or "")
        with self.assertRaisesRegex(InvalidNamespaceError, "too long for UMO"):
            self.store.put(("x" * 201,), "k", {"content": "x"})
        with self.assertRaisesRegex(ValueError, "scope: must be one of"):
            UMOStore(self.client, scope="team_id")  # type: ignore[arg-type]
        self.assertEqual(self.store.list_namespaces(), [])

    def test_an_item_put_with_a_ttl_expires_and_a_read_restarts_its_ttl(self) -> None:
        # 2.4 seconds: read at once, refreshed at 1.5 s, still there at 3 s, gone by 4.5 s.
        minutes = 0.04
        self.store.put(ANA, "code", {"content": "The door code is 4512"}, ttl=minutes)
        self.store.put(ANA, "kept", {"content": "The spare key is under the pot"})
        first = self.client.get(self.client.list(user_id="memories.ana", metadata={"langgraph_key": "code"}).items[0].umo_id)
        self.assertIsNotNone(first.expires_at)
        time.sleep(1.5)
        self.assertIsNotNone(self.store.get(ANA, "code"))  # refresh_ttl: True by default
        time.sleep(1.5)
        self.assertIsNotNone(self.store.get(ANA, "code", refresh_ttl=False))
        [found] = [hit for hit in self.store.search(ANA, query="door code") if hit.key == "code"]
        time.sleep(2.6)
        self.assertIsNone(self.store.get(ANA, "code"))
        self.assertEqual([item.key for item in self.store.search(ANA)], ["kept"])
        # A put without a TTL keeps the item for good.
        self.store.put(ANA, "code", {"content": "The door code is 7777"}, ttl=minutes)
        self.store.put(ANA, "code", {"content": "The door code is 7777"})
        time.sleep(2.6)
        item = self.store.get(ANA, "code")
        assert item is not None
        self.assertEqual(item.value, {"content": "The door code is 7777"})

    def test_a_default_ttl_applies_to_every_put_and_refresh_on_read_may_be_off(self) -> None:
        store = UMOStore(self.client, ttl={"default_ttl": 0.05, "refresh_on_read": False})
        store.put(BO, "note", {"content": "Bo's parcel arrives today"})
        self.assertIsNotNone(store.get(BO, "note"))
        time.sleep(3.2)
        self.assertIsNone(store.get(BO, "note"))

    def test_labels_hold_what_langgraph_allows(self) -> None:
        odd = ("notes\n", "\tindented", "50% off", " spaced ", "caf\u00e9")
        self.store.put(odd, "k", {"content": "Kept under an odd namespace"})
        item = self.store.get(odd, "k")
        assert item is not None
        self.assertEqual(item.namespace, odd)
        self.assertEqual(self.store.list_namespaces(prefix=("notes\n",)), [odd])
        self.assertEqual([i.namespace for i in self.store.search(("notes\n",), query="odd namespace")], [odd])
        self.assertIsNone(self.store.get(("notes",), "k"))

    def test_an_unindexed_item_is_listed_but_never_found_by_meaning(self) -> None:
        self.store.put(ANA, "secret", {"content": "Ana's locker code is 4417"}, index=False)
        self.store.put(ANA, "locker", {"content": "Ana's locker is in the east wing"})
        self.assertIsNotNone(self.store.get(ANA, "secret"))
        self.assertEqual({i.key for i in self.store.search(ANA)}, {"secret", "locker"})
        self.assertEqual([i.key for i in self.store.search(ANA, query="locker code")], ["locker"])
        # Put again with the default index, it is found.
        self.store.put(ANA, "secret", {"content": "Ana's locker code is 4417"})
        self.assertIn("secret", [i.key for i in self.store.search(ANA, query="locker code")])

    def test_items_under_different_keys_are_distinct_though_their_values_are_equal(self) -> None:
        for n in range(12):
            self.store.put(ANA, f"same{n}", {"content": "Ana waters the ferns on Sundays"})
        found = self.store.search(ANA, query="ferns", limit=10)
        self.assertEqual(len(found), 10)
        self.assertEqual(len({i.key for i in found}), 10)

    def test_a_filter_reaches_into_nested_values(self) -> None:
        self.store.put(ANA, "u1", {"user": {"access-level": "admin"}, "content": "Admin note"})
        self.store.put(ANA, "u2", {"user": {"access-level": "viewer"}, "content": "Viewer note"})
        found = self.store.search(ANA, filter={"user.access-level": "admin"})
        self.assertEqual([i.key for i in found], ["u1"])
        found = self.store.search(ANA, query="note", filter={"user.access-level": {"$ne": "admin"}})
        self.assertEqual([i.key for i in found], ["u2"])

    def test_async_operations(self) -> None:
        async def run() -> Any:
            await self.store.aput(BO, "tea", {"content": "Bo drinks green tea"})
            got = await self.store.aget(BO, "tea")
            found = await self.store.asearch(BO, query="green tea")
            await self.store.adelete(BO, "tea")
            return got, found, await self.store.aget(BO, "tea")

        got, found, gone = asyncio.run(run())
        self.assertEqual(got.value, {"content": "Bo drinks green tea"})
        self.assertEqual([i.key for i in found], ["tea"])
        self.assertIsNone(gone)

    def test_another_scope_field(self) -> None:
        agents = UMOStore(self.client, scope="agent_id")
        agents.put(("planner",), "style", {"content": "Answers in bullet points"})
        self.assertEqual(self.client.list(agent_id="planner").total_count, 1)
        self.assertEqual(agents.list_namespaces(), [("planner",)])
        self.assertEqual(self.store.search(("planner",)), [])
        agents.delete(("planner",), "style")
        self.assertEqual(self.client.list(agent_id="planner").total_count, 0)




class RoundTripTest(unittest.TestCase):
    @settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(values.filter(bool), values.filter(bool))
    def test_any_value_comes_back_from_the_server_as_put(self, first: dict[str, Any], then: dict[str, Any]) -> None:
        # A key of its own for each example: a replay of the example finds nothing from the last one.
        store, key = UMOStore(UMOClient(api_key=KEYS["bob"], base_url=server.base_url)), str(uuid.uuid4())
        store.put(("roundtrip",), key, first)
        item = store.get(("roundtrip",), key)
        self.assertEqual(item.value if item else None, first)
        store.put(("roundtrip",), key, then)  # a new version, or nothing when it is the same value
        item = store.get(("roundtrip",), key)
        self.assertEqual(item.value if item else None, then)


if __name__ == "__main__":
    unittest.main()
