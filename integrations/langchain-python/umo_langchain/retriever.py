"""A LangChain retriever over UMO's search."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field
from umo_client import Scope, UMOClient


class UMORetriever(BaseRetriever):
    """The scope's memories that best match the query (UMO's ``ask``, no language model), best
    first, each a ``Document`` whose ``page_content`` is the memory's text and whose ``id`` and
    ``metadata["umo_id"]`` are its id; the metadata also has ``score``, ``timestamp`` (when it was
    written), ``user_id``, ``agent_id``, ``session_id``, ``times_said`` (how many memories said this
    same text), ``source`` and ``later_related`` (later memories of the same person linked to this one
    by the update judge or by nearness, newest first: they may update it). UMO's errors (``ValidationError``, … with ``detail``) pass through."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: UMOClient
    """A ``UMOClient``."""
    scope: Scope
    """Whose memories: at least one of ``user_id``, ``agent_id``, ``session_id``."""
    k: int = Field(default=5, ge=1, le=50)
    """How many memories a query returns, 1 to 50."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        """``retriever.invoke(query, k=1)`` returns one; ``source``, ``metadata``, ``after``, ``before``,
        ``include_superseded`` and ``filters`` narrow one call, and ``rerank=True`` has the server's
        cross-encoder reread the best candidates, as ``UMOClient.ask`` takes them. The scope stays the
        retriever's, and an argument it does not know is refused, never dropped."""
        k = kwargs.pop("k", self.k)
        unknown = sorted(set(kwargs) - set(_NARROWING))
        if unknown:
            raise TypeError(f"UMORetriever: unknown search argument {', '.join(unknown)} (known: k, {', '.join(_NARROWING)})")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 50:
            raise ValueError(f"UMORetriever: k must be an integer from 1 to 50, not {k!r}")
        return [
            Document(id=match.umo_id, page_content=match.content, metadata=_metadata(match))
            for match in self.client.ask(query, limit=k, **self.scope.fields(), **kwargs)
        ]


# What one call may narrow the retriever's search by (``UMOClient.ask``'s selection, but the scope),
# and how it ranks.
_NARROWING = ("source", "metadata", "after", "before", "include_superseded", "filters", "rerank")


def _metadata(match: Any) -> dict[str, Any]:
    return {
        "umo_id": match.umo_id,
        "score": match.score,
        "timestamp": match.timestamp,
        "user_id": match.user_id,
        "agent_id": match.agent_id,
        "session_id": match.session_id,
        "times_said": match.times_said,
        "source": match.source,
        "later_related": [
            {"umo_id": l.umo_id, "text": l.content, "timestamp": l.timestamp, "link": l.link} for l in match.later_related
        ],
    }
