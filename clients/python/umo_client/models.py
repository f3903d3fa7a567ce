"""Results as small typed objects with snake_case fields; each keeps the response it came from in
``raw``, so fields the client does not model stay reachable."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping, Optional

Raw = Mapping[str, Any]


def _opt_str(raw: Raw, key: str) -> Optional[str]:
    value = raw.get(key)
    return value if isinstance(value, str) else None


def _opt_num(raw: Raw, key: str) -> Optional[float]:
    value = raw.get(key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _obj(raw: Raw, key: str) -> Raw:
    value = raw.get(key)
    return value if isinstance(value, dict) else {}


def _list(raw: Raw, key: str) -> list[Raw]:
    value = raw.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


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
    """A whole memory (``get``)."""

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
    raw: Raw = field(repr=False, compare=False)

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
            raw=raw,
        )


@dataclass(frozen=True)
class Captured:
    """What ``capture`` returns: the new memory's id and its signed capture receipt."""

    umo_id: str
    quality_score: float
    created_at: str
    content_hash: str
    receipt: str
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> Captured:
        return cls(
            umo_id=str(raw.get("umo_id", "")),
            quality_score=float(raw.get("quality_score", 0)),
            created_at=str(raw.get("created_at", "")),
            content_hash=str(raw.get("content_hash", "")),
            receipt=str(raw.get("receipt", "")),
            raw=raw,
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
class Match:
    """One search result (``ask``)."""

    umo_id: str
    content: str
    score: float
    """Ranking score: higher is more relevant."""
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> Match:
        return cls(str(raw.get("umo_id", "")), str(raw.get("content_text", "")), float(raw.get("score", 0)), raw)


@dataclass(frozen=True)
class MemorySummary:
    """One row of ``list``."""

    umo_id: str
    summary: str
    quality_score: float
    created_at: str
    source: Optional[str]
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> MemorySummary:
        return cls(
            umo_id=str(raw.get("umo_id", "")),
            summary=str(raw.get("summary", "")),
            quality_score=float(raw.get("quality_score", 0)),
            created_at=str(raw.get("created_at", "")),
            source=_opt_str(raw, "source"),
            raw=raw,
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
class BatchItem:
    """One item of ``batch``: a capture, or why this item was refused (the others still land)."""

    index: int
    success: bool
    umo_id: Optional[str]
    quality_score: Optional[float]
    receipt: Optional[str]
    error_status: Optional[int]
    error_detail: Optional[str]
    raw: Raw = field(repr=False, compare=False)

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
            raw=raw,
        )


@dataclass(frozen=True)
class Proof:
    """What ``verify`` returns: the service's check of a memory, and the signed capture entry of
    the account's hash chain (``entry``, with the service's field names) to check it offline."""

    valid: bool
    """The stored memory still hashes to what was recorded at capture."""
    hash_chain_valid: bool
    chain_tampered: bool
    first_published: str
    umo_id: str
    source: Optional[str]
    content_hash: str
    semantic_hash: str
    verification_mode: str
    entry: Optional[Raw]
    public_key: Raw
    """The key the service says signed the entry; pin your own copy rather than trusting this one."""
    rotations: list[Raw]
    """The service's key records (each signed by a key and the one it replaced): ``verify_proof``
    follows them from the keys you pinned to the key that signed the entry."""
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> Proof:
        audit = _obj(raw, "audit_proof")
        chain = raw.get("chain")
        return cls(
            valid=raw.get("valid") is True,
            hash_chain_valid=raw.get("hash_chain_valid") is True,
            chain_tampered=audit.get("chain_tampered") is True,
            first_published=str(raw.get("first_published", "")),
            umo_id=str(raw.get("umo_id", "")),
            source=_opt_str(raw, "source"),
            content_hash=str(audit.get("content_hash", "")),
            semantic_hash=str(audit.get("semantic_hash", "")),
            verification_mode=str(audit.get("verification_mode", "")),
            entry=chain if isinstance(chain, dict) else None,
            public_key=_obj(raw, "public_key"),
            rotations=_list(raw, "rotations"),
            raw=raw,
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


@dataclass(frozen=True)
class DeletionReceipt:
    """What ``forget`` returns: a signed receipt of the deletion (see ``verify_receipt``)."""

    forgotten: bool
    umo_id: str
    deleted_at: str
    receipt: str
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> DeletionReceipt:
        return cls(
            raw.get("forgotten") is True,
            str(raw.get("umo_id", "")),
            str(raw.get("deleted_at", "")),
            str(raw.get("receipt", "")),
            raw,
        )
