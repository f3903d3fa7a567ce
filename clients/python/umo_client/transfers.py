"""Memories in and out: the lines of an export (``export_memories``), what an import did
(``import_memories``) and where an imported memory came from (``Memory.imported_from``).

An export is JSON Lines: a header (:class:`ExportHeader`), one :class:`ExportedMemory` per memory
in capture order, and a last line (:class:`ExportEnd`) counting them, so a file cut short is known
for one. Each line keeps the service's field names, and its ``raw`` is the line as sent."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

from ._fields import Metadata, Raw, _list, _metadata, _obj, _opt_str, _strings
from .signed import LedgerEntry, _entry


@dataclass(frozen=True)
class ImportedFrom:
    """Where an imported memory came from."""

    format: str
    """``umo`` (an export of UMO) or ``mem0``."""
    id: str
    """The original's id (its ``umo_id``, or Mem0's ``id``)."""
    created_at: Optional[str]
    """When the original was captured, if known."""
    verified: Optional[bool]
    """Whether the original's proof held against the export's keys (None: it had none, as from Mem0)."""

    @classmethod
    def from_raw(cls, raw: Any) -> Optional[ImportedFrom]:
        """The ``imported_from`` value of a memory: None when it was captured here."""
        if not isinstance(raw, dict):
            return None
        verified = raw.get("verified")
        return cls(
            format=str(raw.get("format", "")),
            id=str(raw.get("id", "")),
            created_at=_opt_str(raw, "created_at"),
            verified=verified if isinstance(verified, bool) else None,
        )


@dataclass(frozen=True)
class ExportHeader:
    """The first line of an export: when, which account, which embedder, and the keys its proofs
    verify against."""

    version: int
    exported_at: str
    account: str
    embedding_model: str
    """The embedder of the exporting store: vectors in the export are this model's."""
    signing_keys: Raw
    """``{"keys": [...], "rotations": [...]}``, as ``signing_keys()`` returns them: the keys every
    proof in the export verifies against, current first, with the records linking them."""
    raw: Raw = field(repr=False, compare=False)
    kind: Literal["umo-export"] = field(default="umo-export", init=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> ExportHeader:
        version = raw.get("version")
        return cls(
            version=version if isinstance(version, int) else 0,
            exported_at=str(raw.get("exported_at", "")),
            account=str(raw.get("account", "")),
            embedding_model=str(raw.get("embedding_model", "")),
            signing_keys=_obj(raw, "signing_keys"),
            raw=raw,
        )


@dataclass(frozen=True)
class ExportedMemory:
    """One memory of an export."""

    umo_id: str
    content: str
    """The normalized text (``content_hash`` is its SHA-256)."""
    source: Optional[str]
    user_id: Optional[str]
    agent_id: Optional[str]
    session_id: Optional[str]
    metadata: Metadata
    timestamp: str
    created_at: str
    supersedes: list[str]
    superseded_by: Optional[str]
    content_hash: str
    semantic_hash: str
    record_hash: str
    imported_from: Optional[ImportedFrom]
    entry: Optional[LedgerEntry]
    """Its signed capture entry: with the header's ``signing_keys``, its proof."""
    supersession: Optional[LedgerEntry]
    """The signed entry naming its successor, when it was superseded."""
    embedding: Optional[Raw]
    """With ``embeddings=True``: ``{"model": ..., "chunks": [{"start", "end", "vector"}, ...]}``."""
    raw: Raw = field(repr=False, compare=False)
    kind: Literal["memory"] = field(default="memory", init=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> ExportedMemory:
        embedding = raw.get("embedding")
        return cls(
            umo_id=str(raw.get("umo_id", "")),
            content=str(raw.get("content", "")),
            source=_opt_str(raw, "source"),
            user_id=_opt_str(raw, "user_id"),
            agent_id=_opt_str(raw, "agent_id"),
            session_id=_opt_str(raw, "session_id"),
            metadata=_metadata(raw),
            timestamp=str(raw.get("timestamp", "")),
            created_at=str(raw.get("created_at", "")),
            supersedes=_strings(raw, "supersedes"),
            superseded_by=_opt_str(raw, "superseded_by"),
            content_hash=str(raw.get("content_hash", "")),
            semantic_hash=str(raw.get("semantic_hash", "")),
            record_hash=str(raw.get("record_hash", "")),
            imported_from=ImportedFrom.from_raw(raw.get("imported_from")),
            entry=_entry(raw, "entry"),
            supersession=_entry(raw, "supersession"),
            embedding=embedding if isinstance(embedding, dict) else None,
            raw=raw,
        )


@dataclass(frozen=True)
class ExportEnd:
    """The last line of an export: how many memories it holds."""

    memories: int
    raw: Raw = field(repr=False, compare=False)
    kind: Literal["end"] = field(default="end", init=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> ExportEnd:
        memories = raw.get("memories")
        return cls(memories if isinstance(memories, int) else 0, raw)


ExportLine = Union[ExportHeader, ExportedMemory, ExportEnd]
"""One line of an export, in order: the header, each memory, the end (tell them apart by ``kind``
or ``isinstance``)."""


def export_line(raw: Raw) -> Optional[ExportLine]:
    """The typed line for a parsed line of an export, by its ``kind`` (None: no kind it knows)."""
    kind = raw.get("kind")
    if kind == "memory":
        return ExportedMemory.from_raw(raw)
    if kind == "umo-export":
        return ExportHeader.from_raw(raw)
    if kind == "end":
        return ExportEnd.from_raw(raw)
    return None


def line_bytes(line: Union[ExportLine, Raw]) -> bytes:
    """One line of JSON Lines (newline included) for an export line or a JSON object."""
    raw = line.raw if isinstance(line, (ExportHeader, ExportedMemory, ExportEnd)) else line
    return json.dumps(raw, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


@dataclass(frozen=True)
class ImportFailure:
    """A line an import could not bring in, and why."""

    line: int
    """Its line number (or the element's number in a JSON document), from 1."""
    detail: str

    @classmethod
    def from_raw(cls, raw: Raw) -> ImportFailure:
        line = raw.get("line")
        return cls(line if isinstance(line, int) else 0, str(raw.get("detail", "")))


@dataclass(frozen=True)
class ImportSummary:
    """What ``import_memories`` did."""

    format: str
    """The format read: ``umo`` or ``mem0``."""
    lines: int
    """Lines (or elements of a JSON document) read."""
    imported: int
    already_imported: int
    """Brought in by an earlier run (an import run again): not stored again."""
    linked: int
    """Supersessions of the originals restored between their copies."""
    verified: int
    """Imported memories whose proof held against the export's keys."""
    failed: int
    failures: list[ImportFailure]
    """The first 100 failures."""
    stopped_at: Optional[ImportFailure]
    """Where the import stopped (``on_error="stop"``), or None."""
    complete: bool
    """Whether the input ended as an export ends (its last line); a Mem0 document: whether it parsed whole."""
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> ImportSummary:
        def count(key: str) -> int:
            value = raw.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        stopped = raw.get("stopped_at")
        return cls(
            format=str(raw.get("format", "")),
            lines=count("lines"),
            imported=count("imported"),
            already_imported=count("already_imported"),
            linked=count("linked"),
            verified=count("verified"),
            failed=count("failed"),
            failures=[ImportFailure.from_raw(f) for f in _list(raw, "failures")],
            stopped_at=ImportFailure.from_raw(stopped) if isinstance(stopped, dict) else None,
            complete=raw.get("complete") is True,
            raw=raw,
        )
