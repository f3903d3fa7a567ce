"""Mem0's own Python client (`mem0ai`), unchanged, against UMO's /mem0 API.

Run by Mem0Client.test.ts as `python mem0_scenario.py <server url> <umo key> <user id>`: it goes
through every call a Mem0 app makes — a person's changing facts added, searched with v2 filters,
listed, read, updated, traced in history, deleted — and refused ones, and prints what each call
answered (or the exception it raised) as one JSON object, which the test checks.
"""

import asyncio
import json
import sys

from mem0 import AsyncMemoryClient, MemoryClient

base, key, user = sys.argv[1], sys.argv[2], sys.argv[3]
out: dict = {}


def caught(name, call):
    """Records what a call answered, or the client's exception: its class, message and details."""
    try:
        out[name] = {"ok": call()}
    except Exception as error:  # noqa: BLE001 - the class is what the test checks
        out[name] = {
            "error": type(error).__name__,
            "message": str(error),
            "details": getattr(error, "details", None),
        }
    return out[name].get("ok")


client = MemoryClient(api_key=key, host=base + "/mem0")
out["ping"] = {"ok": {"org_id": client.org_id, "project_id": client.project_id, "user_email": client.user_email}}

# A person's facts, as they change: Madrid in 2023, then a lease in Lisbon in 2024.
caught(
    "add_madrid",
    lambda: client.add(
        [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "I have lived in Madrid for six years."},
            {"role": "assistant", "content": "Thanks for telling me."},
        ],
        user_id=user,
        agent_id="helper",
        run_id="chat-1",
        metadata={"topic": "home"},
        timestamp=1672531200,
    ),
)
caught(
    "add_lisbon",
    lambda: client.add(
        "Just signed the lease on our place in Lisbon!",
        user_id=user,
        agent_id="helper",
        run_id="chat-2",
        metadata={"topic": "home"},
        timestamp=1709251200,
    ),
)
# The same again: a repeat, nothing stored.
caught(
    "add_repeat",
    lambda: client.add(
        "Just signed the lease on our place in Lisbon!",
        user_id=user,
        agent_id="helper",
        run_id="chat-2",
        metadata={"topic": "home"},
        timestamp=1709251200,
    ),
)
# Identity inside filters, as Mem0's docs show it; infer off.
caught("add_work", lambda: client.add({"role": "user", "content": "I work as a nurse."}, filters={"user_id": user}, infer=False))
# An agent's own memory, no user.
caught("add_agent", lambda: client.add("Prefers short answers.", agent_id="helper"))

caught(
    "search_since_2024",
    lambda: client.search(
        "Where does she live?",
        filters={"AND": [{"user_id": user}, {"created_at": {"gte": "2024-01-01"}}]},
        top_k=5,
    ),
)
caught("search_or", lambda: client.search("answers", filters={"OR": [{"user_id": user}, {"agent_id": "helper"}]}, top_k=50))
caught(
    "search_not_run",
    lambda: client.search("lease Lisbon Madrid nurse", filters={"AND": [{"user_id": user}, {"NOT": {"run_id": "chat-2"}}]}),
)
caught("search_in", lambda: client.search("lease", filters={"user_id": {"in": [user, "nobody"]}, "metadata": {"topic": "home"}}))
caught("search_threshold", lambda: client.search("lease", filters={"user_id": user}, threshold=2.0))
# Mem0's switches, mapped: the reranker rereads the best candidates; keywords are always in UMO's ranking.
caught("search_rerank", lambda: client.search("Where does she live?", filters={"user_id": user}, rerank=True, top_k=3))
caught("search_keywords", lambda: client.search("lease", filters={"user_id": user}, keyword_search=True, top_k=3))
caught("search_top_k_too_many", lambda: client.search("lease", filters={"user_id": user}, top_k=51))

caught("get_all", lambda: client.get_all(filters={"user_id": user}))
caught("get_all_page", lambda: client.get_all(filters={"user_id": user}, page=1, page_size=1))
caught("get_all_page_size_too_large", lambda: client.get_all(filters={"user_id": user}, page_size=101))
caught("get_all_with_history", lambda: client.get_all(filters={"user_id": user}, latest_only=False))

lisbon = next(
    (r["id"] for r in (out["add_lisbon"].get("ok") or {}).get("results", []) if r["event"] == "ADD"),
    "00000000-0000-7000-8000-000000000000",
)
caught("get", lambda: client.get(lisbon))
caught("get_missing", lambda: client.get("00000000-0000-7000-8000-000000000000"))
porto = caught("update", lambda: client.update(lisbon, text="Just signed the lease on our place in Porto!", metadata={"topic": "home", "checked": True}))
caught("history", lambda: client.history((porto or {}).get("id", lisbon)))

nurse = next((r["id"] for r in (out["add_work"].get("ok") or {}).get("results", [])), lisbon)
caught("delete", lambda: client.delete(nurse))
caught("get_deleted", lambda: client.get(nurse))

caught("users", lambda: client.users())
# Python sends this dict in the query string as its str(): {'user_id': '...'}.
caught("delete_all", lambda: client.delete_all(filters={"user_id": user}))
caught("get_all_after_delete_all", lambda: client.get_all(filters={"user_id": user}))
caught("delete_users_agent", lambda: client.delete_users(agent_id="helper"))
caught("users_after", lambda: client.users())

# Memories that expire (the last day kept), and one nothing may replace.
expiring = caught("add_expiring", lambda: client.add("The gate code is 2468 this month.", user_id=user, infer=False,
                                                     expiration_date="2999-12-31", immutable=True))
caught("get_expiring", lambda: client.get(expiring["results"][0]["id"]))
caught("add_expired", lambda: client.add("I like tea.", user_id=user, expiration_date="2001-01-01"))

# Batch update and delete: all of them, or none.
notes = caught("add_notes", lambda: client.add([{"role": "user", "content": "Note A: the boiler code is 11."},
                                                {"role": "user", "content": "Note B: the gate code is 22."}],
                                               user_id=user, infer=False))
note_ids = [r["id"] for r in (notes or {}).get("results", [])]
caught("batch_update", lambda: client.batch_update([{"memory_id": note_ids[0], "text": "Note A: the boiler code is 12."},
                                                    {"memory_id": note_ids[1], "text": "Note B: the gate code is 23."}]))
caught("batch_update_one_unknown", lambda: client.batch_update([{"memory_id": "00000000-0000-7000-8000-000000000000", "text": "x"},
                                                                {"memory_id": note_ids[0], "text": "changed"}]))
caught("batch_delete_one_unknown", lambda: client.batch_delete([{"memory_id": note_ids[0]},
                                                                {"memory_id": "00000000-0000-7000-8000-000000000000"}]))
caught("batch_delete", lambda: client.batch_delete([{"memory_id": i} for i in note_ids]))

# Webhooks: added, listed and deleted through Mem0's calls (deliveries are UMO's, tested beside).
hook = caught("create_webhook", lambda: client.create_webhook("http://127.0.0.1:9/hook", "notify", client.project_id, ["memory_add", "memory_delete"]))
caught("get_webhooks", lambda: client.get_webhooks(client.project_id))
caught("delete_webhook", lambda: client.delete_webhook((hook or {}).get("webhook_id", "x")))

# Categories: chosen from a list the add brings, and filtered on.
caught("add_custom_categories", lambda: client.add("I like green tea with honey.", user_id=user, infer=False,
                                                   custom_categories=[{"drinks": "what they drink: tea, coffee, juice"},
                                                                      {"sports": "sports they play or follow"}]))
caught("search_categories_filter", lambda: client.search("tea", filters={"AND": [{"user_id": user}, {"categories": {"in": ["drinks"]}}]}))

# What UMO does not have: refused, naming it.
caught("search_app_id", lambda: client.search("tea", filters={"app_id": "shop"}))
caught("feedback", lambda: client.feedback(lisbon, "POSITIVE"))
caught("delete_all_without_scope", lambda: client.delete_all())


def bad_key():
    MemoryClient(api_key="umo_not-a-key", host=base + "/mem0")


caught("bad_key", bad_key)

caught("add_for_reset", lambda: client.add("Reset me.", user_id=user + "-reset"))
caught("reset", lambda: client.reset())
caught("users_after_reset", lambda: client.users())



async def with_async_client():
    """The async client pings with `requests` on its own, then calls through httpx."""
    async_client = AsyncMemoryClient(api_key=key, host=base + "/mem0")
    added = await async_client.add("Async hello.", user_id=user + "-async")
    found = await async_client.search("hello", filters={"user_id": user + "-async"})
    return {"added": added, "found": found}


try:
    out["async"] = {"ok": asyncio.run(with_async_client())}
except Exception as error:  # noqa: BLE001
    out["async"] = {"error": type(error).__name__, "message": str(error)}

print(json.dumps(out))
