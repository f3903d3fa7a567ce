"""Results as small typed objects with snake_case fields; each keeps the response it came from in
``raw``, so fields the client does not model stay reachable. The signed evidence (``Proof``,
``ChainPage``, ``DeletionReceipt``) is in :mod:`umo_client.signed`, a memory's versions and the
erasure of a scope in :mod:`umo_client.versions`."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Optional

from ._fields import Metadata as Metadata
from ._fields import MetadataValue as MetadataValue
from ._fields import Raw as Raw
from ._fields import _list, _metadata, _obj, _opt_num, _opt_str, _strings

# Where they were before they moved to `signed`: `from umo_client.models import Proof` still works.
from .signed import ChainPage as ChainPage
from .signed import DeletionReceipt as DeletionReceipt
from .signed import LedgerEntry as LedgerEntry
from .signed import Proof as Proof
from .transfers import ImportedFrom


def _belonging(raw: Raw) -> dict[str, Any]:
    """Who a memory belongs to, its tags and whether it is current, as ``ask`` and ``list`` show them."""
    return {
        "user_id": _opt_str(raw, "user_id"),
        "agent_id": _opt_str(raw, "agent_id"),
        "session_id": _opt_str(raw, "session_id"),
        "metadata": _metadata(raw),
        "source": _opt_str(raw, "source"),
        "timestamp": str(raw.get("timestamp", "")),
        "superseded_by": _opt_str(raw, "superseded_by"),
        "categories": _strings(raw, "categories"),
    }


@dataclass(frozen=True)
class Entity:
    text: str
    type: str
    start: int
    end: int


@dataclass(frozen=True)
class Triple:
    subject: str
    verb: str
    object: str


@dataclass(frozen=True)
class Topic:
    name: str
    score: float


@dataclass(frozen=True)
class Memory:
    """A whole memory (``get``, and each version of ``history``)."""

    umo_id: str
    summary: str
    entities: list[Entity]
    svo_triples: list[Triple]
    topics: list[Topic]
    tone: str
    quality_score: float
    created_at: str
    timestamp: str
    """When the content itself was written (the ``timestamp`` given at capture)."""
    source: Optional[str]
    language: str
    content_hash: str
    semantic_hash: str
    content_text: str
    """The normalized content: the text ``content_hash`` is computed from and entity offsets point into."""
    extensions: Raw
    """What the service's own plugins found, under each plugin's name (empty with the default plugins)."""
    user_id: Optional[str]
    """The end user, agent and conversation inside the account it belongs to (None: none)."""
    agent_id: Optional[str]
    session_id: Optional[str]
    metadata: Metadata
    """Your own tags (``{}`` when none)."""
    supersedes: list[str]
    """The memories it replaced, oldest first."""
    superseded_by: Optional[str]
    """The memory that replaced it, or None while it is current."""
    superseded_at: Optional[str]
    raw: Raw = field(repr=False, compare=False)
    imported_from: Optional[ImportedFrom] = None
    """Where it was imported from (``import_memories``): the original's format, id and capture
    time, and whether its proof held; None when it was captured here."""
    expires_at: Optional[str] = None
    """When it expires (ISO 8601): it leaves every read then; None: never."""
    immutable: bool = False
    """Captured immutable: updates and supersessions of it are refused."""
    categories: list[str] = field(default_factory=list)
    """The categories it is filed under, best fitting first."""

    @classmethod
    def from_raw(cls, raw: Raw) -> Memory:
        return cls(
            umo_id=str(raw.get("umo_id", "")),
            summary=str(raw.get("summary", "")),
            entities=[Entity(str(e.get("text", "")), str(e.get("type", "")), int(e.get("start", 0)), int(e.get("end", 0))) for e in _list(raw, "entities")],
            svo_triples=[Triple(str(t.get("subject", "")), str(t.get("verb", "")), str(t.get("object", ""))) for t in _list(raw, "svo_triples")],
            topics=[Topic(str(t.get("name", "")), float(t.get("score", 0))) for t in _list(raw, "topics")],
            tone=str(_obj(raw, "tone").get("label", "neutral")),
            quality_score=float(raw.get("quality_score", 0)),
            created_at=str(raw.get("created_at", "")),
            timestamp=str(raw.get("timestamp", "")),
            source=_opt_str(raw, "source"),
            language=str(raw.get("language", "")),
            content_hash=str(raw.get("content_hash", "")),
            semantic_hash=str(raw.get("semantic_hash", "")),
            content_text=str(raw.get("content_text", "")),
            extensions=_obj(raw, "extensions"),
            user_id=_opt_str(raw, "user_id"),
            agent_id=_opt_str(raw, "agent_id"),
            session_id=_opt_str(raw, "session_id"),
            metadata=_metadata(raw),
            supersedes=_strings(raw, "supersedes"),
            superseded_by=_opt_str(raw, "superseded_by"),
            superseded_at=_opt_str(raw, "superseded_at"),
            raw=raw,
            imported_from=ImportedFrom.from_raw(raw.get("imported_from")),
            expires_at=_opt_str(raw, "expires_at"),
            immutable=raw.get("immutable") is True,
            categories=_strings(raw, "categories"),
        )


@dataclass(frozen=True)
class Captured:
    """What ``capture`` (and ``update``: the new version) returns: the new memory's id, its signed
    capture receipt and what it updated."""

    umo_id: str
    quality_score: float
    created_at: str
    content_hash: str
    receipt: str
    supersedes: list[str]
    """The memories this capture superseded: those it named, then those its facts made out of date."""
    superseded_by: Optional[str]
    """A newer memory that superseded this one at once (its content was older), or None."""
    raw: Raw = field(repr=False, compare=False)
    warnings: list[str] = field(default_factory=list)
    """What the capture could not do but did not need to keep the memory (the update judge failed or
    timed out: no update was inferred). Empty when all went well."""
    duplicate_of: Optional[str] = None
    """The current memory this capture repeated (the same text, source, scope and metadata, at the same time
    or with none given): nothing new was stored, and ``umo_id`` is that memory's. None when the
    capture stored a memory (or was made with ``dedupe=False``)."""

    @classmethod
    def from_raw(cls, raw: Raw) -> Captured:
        return cls(
            umo_id=str(raw.get("umo_id", "")),
            quality_score=float(raw.get("quality_score", 0)),
            created_at=str(raw.get("created_at", "")),
            content_hash=str(raw.get("content_hash", "")),
            receipt=str(raw.get("receipt", "")),
            supersedes=_strings(raw, "supersedes"),
            superseded_by=_opt_str(raw, "superseded_by"),
            raw=raw,
            warnings=_strings(raw, "warnings"),
            duplicate_of=_opt_str(raw, "duplicate_of"),
        )


@dataclass(frozen=True)
class Uploaded(Captured):
    """What ``upload`` returns: the capture, the detected format and the extracted text's length."""

    summary: str = ""
    format: str = ""
    characters: int = 0

    @classmethod
    def from_raw(cls, raw: Raw) -> Uploaded:
        captured = Captured.from_raw(raw)
        return cls(
            **{f.name: getattr(captured, f.name) for f in fields(Captured)},
            summary=str(raw.get("summary", "")),
            format=str(raw.get("format", "")),
            characters=int(raw.get("characters", 0)),
        )


@dataclass(frozen=True)
class LaterRelated:
    """A later memory of the same person linked to a result: by the update judge or by nearness
    in meaning. Where UMO did not decide that it replaces the result, your model can."""

    umo_id: str
    content: str
    timestamp: str
    """When it was said."""
    link: str
    """``judge`` (read as likely making the result out of date) or ``nearness`` (it speaks of the same thing)."""
    score: float
    """The judge's probability, or the cosine similarity for a link by nearness."""

    @classmethod
    def all_from(cls, raw: Raw) -> list[LaterRelated]:
        return [
            cls(
                umo_id=str(item.get("umo_id", "")),
                content=str(item.get("content_text", "")),
                timestamp=str(item.get("timestamp", "")),
                link=str(item.get("link", "")),
                score=float(item.get("score", 0)),
            )
            for item in _list(raw, "later_related")
        ]


@dataclass(frozen=True)
class Match:
    """One search result (``ask``), with who it belongs to and its tags."""

    umo_id: str
    content: str
    score: float
    """Ranking score: higher is more relevant."""
    user_id: Optional[str]
    agent_id: Optional[str]
    session_id: Optional[str]
    metadata: Metadata
    source: Optional[str]
    timestamp: str
    """When the content was written."""
    superseded_by: Optional[str]
    """The memory that replaced it (``include_superseded``), or None while it is current."""
    raw: Raw = field(repr=False, compare=False)
    times_said: int = 1
    """How many matching memories hold this same text: one result stands for them all, at the
    newest one's ``timestamp`` (1 when it was said once)."""
    later_related: list[LaterRelated] = field(default_factory=list)
    """For the first three results: later memories of the same person linked to it, newest first."""
    categories: list[str] = field(default_factory=list)
    """The categories it is filed under, best fitting first."""

    @classmethod
    def from_raw(cls, raw: Raw) -> Match:
        times = _opt_num(raw, "times_said")
        return cls(
            umo_id=str(raw.get("umo_id", "")),
            content=str(raw.get("content_text", "")),
            score=float(raw.get("score", 0)),
            **_belonging(raw),
            raw=raw,
            times_said=int(times) if times else 1,
            later_related=LaterRelated.all_from(raw),
        )


@dataclass(frozen=True)
class MemorySummary:
    """One row of ``list``, with who it belongs to and its tags."""

    umo_id: str
    summary: str
    quality_score: float
    created_at: str
    source: Optional[str]
    user_id: Optional[str]
    agent_id: Optional[str]
    session_id: Optional[str]
    metadata: Metadata
    timestamp: str
    """When the content was written."""
    superseded_by: Optional[str]
    """The memory that replaced it (``include_superseded``), or None while it is current."""
    raw: Raw = field(repr=False, compare=False)
    expires_at: Optional[str] = None
    """When it expires (ISO 8601); None: never."""
    immutable: bool = False
    categories: list[str] = field(default_factory=list)
    """The categories it is filed under, best fitting first."""

    @classmethod
    def from_raw(cls, raw: Raw) -> MemorySummary:
        return cls(
            umo_id=str(raw.get("umo_id", "")),
            summary=str(raw.get("summary", "")),
            quality_score=float(raw.get("quality_score", 0)),
            created_at=str(raw.get("created_at", "")),
            **_belonging(raw),
            raw=raw,
            expires_at=_opt_str(raw, "expires_at"),
            immutable=raw.get("immutable") is True,
        )


@dataclass(frozen=True)
class MemoryPage:
    """A page of ``list``."""

    items: list[MemorySummary]
    total_count: int
    has_more: bool
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> MemoryPage:
        items = [MemorySummary.from_raw(item) for item in _list(raw, "items")]
        return cls(items, int(raw.get("total_count", 0)), raw.get("has_more") is True, raw)


@dataclass(frozen=True)
class ScopeSummary:
    """One of the account's end users, agents or conversations that hold current memories (``scopes``)."""

    kind: str
    """``user``, ``agent`` or ``session``: whether ``id`` is a ``user_id``, ``agent_id`` or ``session_id``."""
    id: str
    memories: int
    """How many current memories it holds."""
    last_memory_at: str
    """The time of its newest memory."""
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> ScopeSummary:
        return cls(
            kind=str(raw.get("kind", "")),
            id=str(raw.get("id", "")),
            memories=int(_opt_num(raw, "memories") or 0),
            last_memory_at=str(raw.get("last_memory_at", "")),
            raw=raw,
        )


@dataclass(frozen=True)
class ScopePage:
    """A page of ``scopes``, most recently active first."""

    scopes: list[ScopeSummary]
    total_count: int
    has_more: bool
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> ScopePage:
        scopes = [ScopeSummary.from_raw(scope) for scope in _list(raw, "scopes")]
        return cls(scopes, int(raw.get("total_count", 0)), raw.get("has_more") is True, raw)


@dataclass(frozen=True)
class BatchItem:
    """One item of ``batch``: a capture, or why this item was refused (the others still land)."""

    index: int
    success: bool
    umo_id: Optional[str]
    quality_score: Optional[float]
    receipt: Optional[str]
    error_status: Optional[int]
    error_detail: Optional[str]
    supersedes: list[str]
    """What this item superseded (empty when it failed)."""
    superseded_by: Optional[str]
    raw: Raw = field(repr=False, compare=False)
    duplicate_of: Optional[str] = None
    """The current memory this item repeated (``umo_id`` is that memory's, nothing new was stored), or None."""

    @classmethod
    def from_raw(cls, raw: Raw) -> BatchItem:
        error = _obj(raw, "error")
        status = _opt_num(error, "status")
        return cls(
            index=int(raw.get("index", 0)),
            success=raw.get("success") is True,
            umo_id=_opt_str(raw, "umo_id"),
            quality_score=_opt_num(raw, "quality_score"),
            receipt=_opt_str(raw, "receipt"),
            error_status=None if status is None else int(status),
            error_detail=_opt_str(error, "detail"),
            supersedes=_strings(raw, "supersedes"),
            superseded_by=_opt_str(raw, "superseded_by"),
            raw=raw,
            duplicate_of=_opt_str(raw, "duplicate_of"),
        )


@dataclass(frozen=True)
class Explanation:
    """What ``explain`` returns."""

    summary: str
    key_reasons: list[str]
    verification_mode: str
    reproducible: bool
    """Re-running the pipeline on the stored content gives the same extraction."""
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> Explanation:
        human, audit = _obj(raw, "human"), _obj(raw, "audit")
        reasons = human.get("key_reasons")
        return cls(
            summary=str(human.get("summary", "")),
            key_reasons=[str(r) for r in reasons] if isinstance(reasons, list) else [],
            verification_mode=str(audit.get("verification_mode", "")),
            reproducible=audit.get("reproducible") is True,
            raw=raw,
        )
