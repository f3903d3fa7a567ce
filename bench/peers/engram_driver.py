"""Engram (PyPI engram-search 0.1.7) behind the JSON-lines protocol of driver_common.py.

As its README's Python quick start: `Embedder(<local model dir>)` encodes the memories
(sentence-transformers, PyTorch, CPU, normalized), a `FaissBackend` per space keeps them on disk
(FAISS inner-product index plus SQLite), and `RetrievalPipeline.search` ranks a space's documents:
dense cosine + BM25 + name / quoted-phrase / temporal boosts, fused by reciprocal rank fusion.

What is off, and why: the cross-encoder reranker (`use_reranker=False`). Its weights
(BAAI/bge-reranker-v2-m3) exist only on the Hugging Face hub, which these machines cannot reach,
and no PyPI package ships them. Engram's published LoCoMo figure was measured with it on.

Each memory is one Document with the turn's text; the documents' vectors are kept as NumPy rows
(the quick start converts them to Python lists, which the pipeline turns back into an array on
every query; rows spare it that work and change no score). No `question_date` is passed, as the
questions carry none, so the temporal boost stays idle, as for LoCoMo in Engram's own benchmark.
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver_common as common  # noqa: E402

common.offline()


class EngramDriver:
    def __init__(self) -> None:
        self.recorder = common.Recorder()
        self.spaces: Dict[str, Dict[str, Any]] = {}
        self.embedder_manifest: Dict[str, Any] = {}
        self.work_dir = ""

    def init(self, request: Dict[str, Any]) -> Dict[str, Any]:
        import importlib.metadata as metadata

        from engram.retrieval.embedder import Embedder
        from engram.retrieval.pipeline import RetrievalPipeline

        self.work_dir = request.get("work_dir") or tempfile.mkdtemp(prefix="engram-peer-")
        model_dir = request["model_dir"]
        self.embedder = Embedder(model_dir)
        self.pipeline = RetrievalPipeline(embedder=self.embedder, use_reranker=False)
        self.embedder_manifest = common.embedder_manifest(model_dir)
        return {
            "system": "engram",
            "versions": {
                "engram-search": metadata.version("engram-search"),
                "sentence-transformers": metadata.version("sentence-transformers"),
                "torch": metadata.version("torch"),
                "faiss-cpu": metadata.version("faiss-cpu"),
            },
            "config": {
                "embedder": f"engram.retrieval.embedder.Embedder({model_dir!r})",
                "pipeline": "RetrievalPipeline(embedder, use_reranker=False)",
                "store": "engram.backends.faiss_backend.FaissBackend(path=<work dir>/<space>, dimension=768)",
                "search": "pipeline.search(query, documents=<the space's documents>, top_k=limit)",
            },
            "pid": os.getpid(),
        }

    def space(self, name: str) -> Dict[str, Any]:
        if name not in self.spaces:
            from engram.backends.faiss_backend import FaissBackend

            path = os.path.join(self.work_dir, "".join(c if c.isalnum() or c in "-_" else "_" for c in name))
            self.spaces[name] = {"backend": FaissBackend(path=path, dimension=768), "documents": []}
        return self.spaces[name]

    def warm(self, _: Dict[str, Any]) -> Dict[str, Any]:
        self.embedder.encode_query("warm up")
        return {}

    def add(self, request: Dict[str, Any]) -> Dict[str, Any]:
        from engram.backends.base import Document

        space = self.space(request["space"])
        items = request["items"]
        for item in items:
            self.recorder.memory(request["space"], item["text"])
        vectors = self.embedder.encode_documents([item["text"] for item in items])
        start = len(space["documents"])
        documents: List[Any] = []
        for i, (item, vector) in enumerate(zip(items, vectors)):
            metadata = {"timestamp": item["date"]} if item.get("date") else {}
            documents.append(
                Document(id=f"{request['space']}#{start + i}", text=item["text"], embedding=vector, metadata=metadata)
            )
        space["backend"].add(documents)
        space["documents"].extend(documents)
        return {"ids": [d.id for d in documents]}

    def search(self, request: Dict[str, Any]) -> Dict[str, Any]:
        name, query, limit = request["space"], request["query"], int(request["limit"])
        self.recorder.query(name, query, limit)
        documents = self.space(name)["documents"]
        found = self.pipeline.search(query, documents=documents, top_k=limit)
        return {"ids": [d.id for d in found]}

    def embed(self, request: Dict[str, Any]) -> Dict[str, Any]:
        return {"vectors": [list(map(float, v)) for v in self.embedder.encode_documents(request["texts"])]}

    def stats(self, _: Dict[str, Any]) -> Dict[str, Any]:
        return {**common.rss_mb(), "local_disk_mb": common.dir_mb(self.work_dir)}

    def manifest(self, _: Dict[str, Any]) -> Dict[str, Any]:
        return {"manifest": {**self.recorder.manifest(), "embedder": self.embedder_manifest}}


if __name__ == "__main__":
    common.serve_driver(EngramDriver())
