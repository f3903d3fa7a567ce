"""Results of the calls on memories that change over time and belong to someone: a memory's line
of versions (``history``) and the erasure of a scope's memories (``forget_all``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ._fields import Raw, _list, _opt_str, _strings
from .models import Memory


@dataclass(frozen=True)
class MemoryHistory:
    """A memory's line of versions (``history``): every memory linked to it by supersession,
    itself included, oldest first."""

    umo_id: str
    """The memory asked about."""
    versions: list[Memory]
    raw: Raw = field(repr=False, compare=False)

    @property
    def current(self) -> Optional[Memory]:
        """The version that is current now: the last one nothing superseded (None when there is none)."""
        return next((v for v in reversed(self.versions) if v.superseded_by is None), None)

    @classmethod
    def from_raw(cls, raw: Raw) -> MemoryHistory:
        return cls(str(raw.get("umo_id", "")), [Memory.from_raw(v) for v in _list(raw, "versions")], raw)


@dataclass(frozen=True)
class ErasureReceipt:
    """What ``forget_all`` returns: how many memories were erased, which, and one signed receipt
    naming them all (check it with ``verify_receipt``)."""

    forgotten: int
    umo_ids: list[str]
    """The memories erased, in id order."""
    deleted_at: Optional[str]
    """When; None when nothing matched."""
    receipt: str
    """Compact JWS (EdDSA) of the erasure; empty when nothing matched."""
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> ErasureReceipt:
        return cls(
            forgotten=int(raw.get("forgotten", 0)),
            umo_ids=_strings(raw, "umo_ids"),
            deleted_at=_opt_str(raw, "deleted_at"),
            receipt=str(raw.get("receipt", "")),
            raw=raw,
        )
