"""UMO's verbs for a model acting for one person (the agent frameworks' memory tools): remember,
search, answer and forget inside a scope fixed once, each with what a model reads of its result
and the words it is described by. Each framework wraps these in its own tool type (the same verbs
and words as ``scopedVerbs`` in ``@umo/client``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Protocol, TypedDict

from .client import UMOClient
from .errors import NotFoundError, ValidationError

VERB_WORDS: dict[str, str] = {
    "remember": (
        "Save something worth remembering about the user to their long-term memory: a fact, preference, event, "
        "decision or note. Write one self-contained statement with who, what and when (e.g. 'Ana's birthday is "
        "12 March; she likes orchids'), not a transcript. When a fact changed ('she moved to Lisbon'), say the new "
        "one: the memory stating the old value is superseded by itself. Returns the new memory's id."
    ),
    "search": (
        "Find the user's memories that best match a query (meaning and wording both count), best first, each with "
        "its id, full text, relevance score and the time it was written. Use before answering anything that may "
        "depend on what the user told you earlier. Memories a newer one replaced are left out."
    ),
    "answer": (
        "Answer a question from the user's memories only, with [n] citations naming the memories each part comes "
        "from. The answer says so when the memories do not hold it; `confidence` (0 to 1) tells how far to trust "
        "it. Prefer this over search when you need one short answer (a name, a date, a number, yes or no)."
    ),
    "forget": (
        "Delete one of the user's memories for good, by the id search or remember gave: its text is erased and "
        "cannot be recovered. Only when the user asks you to forget it. Returns a signed deletion receipt."
    ),
    "text": "the statement to remember",
    "timestamp": "when it happened (ISO 8601), if not now: 'yesterday' and 'next week' resolve against it",
    "query": "what to look for, in a few words or a question",
    "limit": "how many memories, 1 to 50; default 5",
    "question": "the question, as the user would ask it",
    "id": "the memory's id",
}


class ScopeFields(TypedDict, total=False):
    user_id: str
    agent_id: str
    session_id: str


class _Belongs(Protocol):
    @property
    def user_id(self) -> Optional[str]: ...
    @property
    def agent_id(self) -> Optional[str]: ...
    @property
    def session_id(self) -> Optional[str]: ...


@dataclass(frozen=True)
class Scope:
    """Whose memories a tool, retriever or history serves: at least one of ``user_id``,
    ``agent_id``, ``session_id`` (an empty scope would be the whole account: every user's
    memories, and is refused with a :class:`ValidationError`)."""

    user_id: Optional[str] = None
    agent_id: Optional[str] = None
    session_id: Optional[str] = None

    def __post_init__(self) -> None:
        for name in ("user_id", "agent_id", "session_id"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise _refused(f"{name}: must be a string")
        if self.user_id is None and self.agent_id is None and self.session_id is None:
            raise _refused("a scope needs a user_id, an agent_id or a session_id")

    def fields(self) -> ScopeFields:
        """The fields it sets, as the client's calls take them."""
        fields: ScopeFields = {}
        if self.user_id is not None:
            fields["user_id"] = self.user_id
        if self.agent_id is not None:
            fields["agent_id"] = self.agent_id
        if self.session_id is not None:
            fields["session_id"] = self.session_id
        return fields

    def holds(self, memory: _Belongs) -> bool:
        """Whether a memory lies inside the scope: each field the scope sets is the memory's."""
        return all(getattr(memory, name) == value for name, value in self.fields().items())


def _refused(detail: str) -> ValidationError:
    return ValidationError(f"422: invalid scope: {detail}", 422, f"invalid scope: {detail}")


class ScopedVerbs:
    """The four verbs inside ``scope``: the model gives the text, the query or the id, never whose
    memories they are. Each returns a JSON-ready dict; a failure is the client's own error."""

    def __init__(self, client: UMOClient, scope: Scope) -> None:
        self.client = client
        self.scope = scope

    def remember(self, text: str, timestamp: Optional[str] = None) -> dict[str, Any]:
        captured = self.client.capture(text, timestamp=timestamp, **self.scope.fields())
        return {
            "id": captured.umo_id,
            "created_at": captured.created_at,
            "supersedes": captured.supersedes,
            "duplicate_of": captured.duplicate_of,
            "warnings": captured.warnings,
        }

    def search(self, query: str, limit: Optional[int] = None) -> dict[str, Any]:
        matches = self.client.ask(query, limit=limit, **self.scope.fields())
        return {
            "memories": [
                {
                    "id": m.umo_id,
                    "text": m.content,
                    "score": m.score,
                    "timestamp": m.timestamp,
                    "times_said": m.times_said,
                    # Later memories of the same person linked to this one: they may update it.
                    "later": [{"id": l.umo_id, "text": l.content, "timestamp": l.timestamp} for l in m.later_related],
                }
                for m in matches
            ]
        }

    def answer(self, question: str) -> dict[str, Any]:
        answer = self.client.answer(question, **self.scope.fields())
        return {
            "answer": answer.text,
            "citations": [{"index": c.index, "id": c.umo_id, "snippet": c.snippet} for c in answer.citations],
            "confidence": answer.confidence,
            "method": answer.method,
        }

    def forget(self, id: str) -> dict[str, Any]:
        # Ids are the whole account's: a memory outside the scope answers as one that does not
        # exist, so a model that names another user's id can neither erase it nor learn it is there.
        if not self.scope.holds(self.client.get(id)):
            raise NotFoundError(f"404: no memory with id {id}", 404, f"no memory with id {id}")
        receipt = self.client.forget(id)
        return {"id": receipt.umo_id, "forgotten": receipt.forgotten, "deleted_at": receipt.deleted_at, "receipt": receipt.receipt}
