"""One scenario through Mem0's own Python API, run by `npm run bench:mem0-compat` (bench/src/mem0compat.ts).

A person's facts as they change over time (home, job, diet), facts that do not change, and a repeat;
then searches, get all, an update, the updated memory's history and delete all. The same calls,
in the same order, against one of two systems:

- `oss`: Mem0 open source, `mem0.Memory` (PyPI mem0ai 2.2.1), configured exactly as bench:peers
  configures it (mem0_driver.py's `Mem0Driver.init`: the local all-mpnet-base-v2, pgvector on the
  harness's PostgreSQL, an LLM entry that is never called). Mem0 needs a language model to infer
  memories (`infer=True`), and none runs here, so every `add` passes `infer=False`: each message is
  stored as it was said.
- `umo`: Mem0's hosted-API client, `mem0.MemoryClient(api_key=<UMO key>, host=<UMO>/mem0)`, from
  the same package, unchanged, with the client's defaults (no `infer` sent).

The two APIs differ slightly (OSS `Memory.add` takes no `timestamp`; `search` and `get_all` take the
user in `filters` in both; `update` takes `text`), so each system has a thin adapter and the
scenario calls the adapter. Usage (in the peers' virtualenv): one JSON object on stdin,
`{"system": "oss", "model_dir", "database_url", "work_dir"}` or
`{"system": "umo", "host", "api_key", "work_dir"}`; one JSON object on stdout: the versions, the
configuration and every step with the exact call, its time, what it answered and a summary.
"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import os
import platform
import sys
import time
import traceback
from typing import Any, Callable, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver_common as common  # noqa: E402

common.offline()

USER = "maria"

# Each fact that changes: the topic, what was said first, what was said later.
CHANGING = [
    {
        "topic": "home",
        "old": "I've lived in Madrid for six years, in a flat near Retiro park.",
        "new": "Keys to the new flat in Greenwich!",
    },
    {
        "topic": "job",
        "old": "I work as a nurse at La Paz hospital.",
        "new": "First week at my new job: I'm a data analyst at a shipping company now.",
    },
    {
        "topic": "diet",
        "old": "I'm vegetarian, I haven't eaten meat since 2015.",
        "new": "I've gone fully vegan this year, no more cheese or eggs.",
    },
]

STABLE = [
    "My sister Lucía lives in Seville.",
    "I'm allergic to penicillin.",
    "I play the cello in an amateur orchestra on Thursdays.",
]

ASSISTANT_REPLY = "Good to know, Seville is lovely in spring."

# The adds, in order: the old facts, the stable ones (one with the assistant's reply), the new
# facts, and a repeat of a stable fact.
ADDS: List[Dict[str, Any]] = [
    {"name": "add home (Madrid)", "messages": [{"role": "user", "content": CHANGING[0]["old"]}]},
    {"name": "add job (nurse)", "messages": [{"role": "user", "content": CHANGING[1]["old"]}]},
    {"name": "add diet (vegetarian)", "messages": [{"role": "user", "content": CHANGING[2]["old"]}]},
    {
        "name": "add sister + assistant reply",
        "messages": [{"role": "user", "content": STABLE[0]}, {"role": "assistant", "content": ASSISTANT_REPLY}],
    },
    {"name": "add allergy", "messages": [{"role": "user", "content": STABLE[1]}]},
    {"name": "add cello", "messages": [{"role": "user", "content": STABLE[2]}]},
    {"name": "add home (Greenwich)", "messages": [{"role": "user", "content": CHANGING[0]["new"]}]},
    {"name": "add job (data analyst)", "messages": [{"role": "user", "content": CHANGING[1]["new"]}]},
    {"name": "add diet (vegan)", "messages": [{"role": "user", "content": CHANGING[2]["new"]}]},
    {"name": "add allergy again (a repeat)", "messages": [{"role": "user", "content": STABLE[1]}]},
]

# Questions, each with the fact whose current and outdated versions are looked for.
SEARCHES = [
    {"query": "Where does Maria live now?", "topic": "home"},
    {"query": "What is her job?", "topic": "job"},
    {"query": "What does she eat? Is she vegetarian?", "topic": "diet"},
    {"query": "Is she allergic to any medicine?", "topic": "allergy"},
]
TOP_K = 5

UPDATED_JOB = "Promoted to senior data analyst at the shipping company."


class OssAdapter:
    """`mem0.Memory` (open source), configured as bench:peers runs it (mem0_driver.py)."""

    def __init__(self, request: Dict[str, Any]) -> None:
        from mem0_driver import Mem0Driver

        driver = Mem0Driver()
        hello = driver.init(request)
        driver.warm({})
        self.memory = driver.memory
        self.versions = hello["versions"]
        self.config = hello["config"]

    def add(self, messages, metadata):
        call = f"Memory.add(messages, user_id={USER!r}, metadata={metadata!r}, infer=False)"
        return call, lambda: self.memory.add(messages, user_id=USER, metadata=metadata, infer=False)

    def search(self, query):
        call = f"Memory.search({query!r}, filters={{'user_id': {USER!r}}}, top_k={TOP_K})"
        return call, lambda: self.memory.search(query, filters={"user_id": USER}, top_k=TOP_K)

    def get_all(self):
        call = f"Memory.get_all(filters={{'user_id': {USER!r}}})"
        return call, lambda: self.memory.get_all(filters={"user_id": USER})

    def get(self, memory_id):
        return f"Memory.get({memory_id!r})", lambda: self.memory.get(memory_id)

    def update(self, memory_id, text):
        return f"Memory.update({memory_id!r}, text={text!r})", lambda: self.memory.update(memory_id, text=text)

    def history(self, memory_id):
        return f"Memory.history({memory_id!r})", lambda: self.memory.history(memory_id)

    def delete_all(self):
        return f"Memory.delete_all(user_id={USER!r})", lambda: self.memory.delete_all(user_id=USER)


class ClientAdapter:
    """`mem0.MemoryClient` against UMO's /mem0, with the client's defaults."""

    def __init__(self, request: Dict[str, Any]) -> None:
        os.environ["MEM0_DIR"] = os.path.join(request["work_dir"], "mem0-home")
        from mem0 import MemoryClient

        self.client = MemoryClient(api_key=request["api_key"], host=request["host"])
        # Loads what the server loads on its first capture and search before the first timed call,
        # as the OSS side's warm-up does; another user, erased at once, so maria's memories are
        # all the scenario's own.
        self.client.add("Warming up.", user_id="warm-up")
        self.client.search("warm up", filters={"user_id": "warm-up"}, top_k=1)
        self.client.delete_all(user_id="warm-up")
        self.versions = {"mem0ai": metadata.version("mem0ai"), "httpx": metadata.version("httpx")}
        self.config = {
            "client": f"MemoryClient(api_key=<UMO key>, host={request['host']!r})",
            "infer": "not sent (the client's default): UMO runs its own update inference, no language model",
            "ping": {"org_id": self.client.org_id, "project_id": self.client.project_id},
            "warm_up": "an add, a search and a delete_all for another user (warm-up) before the scenario",
        }

    def add(self, messages, metadata):
        call = f"MemoryClient.add(messages, user_id={USER!r}, metadata={metadata!r})"
        return call, lambda: self.client.add(messages, user_id=USER, metadata=metadata)

    def search(self, query):
        call = f"MemoryClient.search({query!r}, filters={{'user_id': {USER!r}}}, top_k={TOP_K})"
        return call, lambda: self.client.search(query, filters={"user_id": USER}, top_k=TOP_K)

    def get_all(self):
        call = f"MemoryClient.get_all(filters={{'user_id': {USER!r}}})"
        return call, lambda: self.client.get_all(filters={"user_id": USER})

    def get(self, memory_id):
        return f"MemoryClient.get({memory_id!r})", lambda: self.client.get(memory_id)

    def update(self, memory_id, text):
        call = f"MemoryClient.update({memory_id!r}, text={text!r})"
        return call, lambda: self.client.update(memory_id, text=text)

    def history(self, memory_id):
        return f"MemoryClient.history({memory_id!r})", lambda: self.client.history(memory_id)

    def delete_all(self):
        return f"MemoryClient.delete_all(user_id={USER!r})", lambda: self.client.delete_all(user_id=USER)


def topic_of(text: Optional[str]) -> Optional[str]:
    """Which fact a stored text states, and whether it is the current or the outdated version."""
    for fact in CHANGING:
        if text == fact["new"]:
            return f"{fact['topic']}: current"
        if text == fact["old"]:
            return f"{fact['topic']}: outdated"
    if text == STABLE[1]:
        return "allergy"
    if text in STABLE:
        return "stable"
    if text == ASSISTANT_REPLY:
        return "assistant reply"
    if text == UPDATED_JOB:
        return "job: as updated"
    return None


def results_of(answer: Any) -> List[Dict[str, Any]]:
    return answer["results"] if isinstance(answer, dict) and "results" in answer else list(answer or [])


def outdated_present(texts: List[str]) -> List[str]:
    return [fact["topic"] for fact in CHANGING if fact["old"] in texts]


def summarize(kind: str, answer: Any, topic: Optional[str] = None) -> Dict[str, Any]:
    if kind == "add":
        return {"events": [{"event": r.get("event"), "memory": r.get("memory"), "id": r.get("id")} for r in results_of(answer)]}
    if kind == "search":
        found = results_of(answer)
        texts = [r.get("memory") for r in found]
        fact = next((f for f in CHANGING if f["topic"] == topic), None)
        rank = lambda text: texts.index(text) + 1 if text in texts else None  # noqa: E731
        return {
            "results": [{"memory": r.get("memory"), "score": r.get("score"), "id": r.get("id")} for r in found],
            "current_rank": rank(fact["new"]) if fact else rank(STABLE[1]),
            "outdated_rank": rank(fact["old"]) if fact else None,
            "copies_of_top": texts.count(texts[0]) if texts else 0,
            "about_changed_fact": fact is not None,
        }
    if kind == "get_all":
        found = results_of(answer)
        texts = [r.get("memory") for r in found]
        return {
            "count": answer.get("count", len(found)) if isinstance(answer, dict) else len(found),
            "memories": sorted(texts),
            "outdated_present": outdated_present(texts),
            "duplicates": sorted({t for t in texts if texts.count(t) > 1}),
        }
    if kind == "get":
        text = answer.get("memory") if isinstance(answer, dict) else None
        return {"memory": text, "found": answer is not None, "reads": topic_of(text)}
    if kind == "update":
        return {"id": answer.get("id") if isinstance(answer, dict) else None, "keys": sorted(answer) if isinstance(answer, dict) else []}
    if kind == "history":
        entries = list(answer or [])
        return {
            "length": len(entries),
            "entries": [
                {"event": e.get("event"), "old_memory": e.get("old_memory"), "new_memory": e.get("new_memory"), "id": e.get("id")}
                for e in entries
            ],
        }
    if kind == "delete_all":
        return {"message": answer.get("message") if isinstance(answer, dict) else None, "deleted": answer.get("deleted") if isinstance(answer, dict) else None}
    return {}


def scenario(adapter: Any) -> List[Dict[str, Any]]:
    """The calls, in order, through one adapter; each step's exact call, time, answer and summary."""
    steps: List[Dict[str, Any]] = []

    def step(name: str, kind: str, made: Any, topic: Optional[str] = None) -> Any:
        call, run = made
        started = time.perf_counter()
        entry: Dict[str, Any] = {"name": name, "kind": kind, "call": call}
        try:
            answer = run()
            entry["ms"] = round((time.perf_counter() - started) * 1000, 1)
            entry["response"] = answer
            entry["summary"] = summarize(kind, answer, topic)
        except Exception as error:  # noqa: BLE001 - a refusal is a finding, reported as it was raised
            entry["ms"] = round((time.perf_counter() - started) * 1000, 1)
            entry["error"] = {
                "type": type(error).__name__,
                "message": str(error),
                "details": getattr(error, "details", None),
            }
            answer = None
        steps.append(entry)
        return answer

    added: Dict[str, str] = {}
    for add in ADDS:
        meta = {"source": "mem0-compat"}
        answer = step(add["name"], "add", adapter.add(add["messages"], meta))
        for r in results_of(answer):
            if r.get("event") == "ADD" and r.get("memory"):
                added.setdefault(r["memory"], r.get("id"))

    for s in SEARCHES:
        step(f"search: {s['query']}", "search", adapter.search(s["query"]), s["topic"])

    step("get_all (user maria)", "get_all", adapter.get_all())

    job_id = added.get(CHANGING[1]["new"])
    if job_id is None:
        raise RuntimeError("the new job was not among the added memories")
    updated = step("update the current job", "update", adapter.update(job_id, UPDATED_JOB))
    step("get the job by its id before the update", "get", adapter.get(job_id))
    step("history of the job (id before the update)", "history", adapter.history(job_id))
    new_id = updated.get("id") if isinstance(updated, dict) else None
    if new_id and new_id != job_id:
        step("history of the job (id the update returned)", "history", adapter.history(new_id))
    step("get_all after the update", "get_all", adapter.get_all())
    step("delete_all (user maria)", "delete_all", adapter.delete_all())
    step("get_all after delete_all", "get_all", adapter.get_all())
    return steps


def main() -> None:
    # Whatever the libraries print goes to stderr: stdout carries the one JSON answer.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    request = json.loads(sys.stdin.read())
    adapters: Dict[str, Callable[[Dict[str, Any]], Any]] = {"oss": OssAdapter, "umo": ClientAdapter}
    try:
        adapter = adapters[request["system"]](request)
        started = time.perf_counter()
        steps = scenario(adapter)
        answer = {
            "system": request["system"],
            "versions": {**adapter.versions, "python": platform.python_version()},
            "top_k": TOP_K,
            "config": adapter.config,
            "scenario_ms": round((time.perf_counter() - started) * 1000),
            "steps": steps,
        }
    except Exception as error:  # noqa: BLE001 - the harness shows it
        traceback.print_exc(file=sys.stderr)
        answer = {"system": request.get("system"), "failed": f"{type(error).__name__}: {error}"}
    out.write(json.dumps(answer, default=str) + "\n")
    out.close()


if __name__ == "__main__":
    main()
