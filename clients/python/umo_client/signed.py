"""What the service signs, as it sends it: a memory's proof (its capture entry, and the entry
recording its supersession), pages of the account's hash chain, and deletion receipts. Check them
offline with :mod:`umo_client.verify`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from ._fields import Raw, _list, _obj, _opt_num, _opt_str

LedgerEntry = Mapping[str, Any]
"""A signed entry of an account's hash chain, with the service's field names (they are hashed):
``account_id``, ``seq``, ``kind`` (``capture``, ``delete``, or ``supersede``: a newer memory
replaced this one), ``umo_id``, ``content_hash``, ``semantic_hash``, ``record_hash``,
``superseded_by`` (``supersede`` entries only: the memory that replaced ``umo_id``),
``recorded_at``, ``prev_hash``, ``entry_hash``, ``signature``, ``key_id``."""


def _entry(raw: Raw, key: str) -> Optional[LedgerEntry]:
    value = raw.get(key)
    return value if isinstance(value, dict) else None


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
    entry: Optional[LedgerEntry]
    public_key: Raw
    """The key the service says signed the entry; pin your own copy rather than trusting this one."""
    rotations: list[Raw]
    """The service's key records (each signed by a key and the one it replaced): ``verify_proof``
    follows them from the keys you pinned to the key that signed the entry."""
    raw: Raw = field(repr=False, compare=False)
    superseded_by: Optional[str] = None
    """The memory that replaced it, or None while it is current."""
    supersession: Optional[LedgerEntry] = None
    """The signed ``supersede`` entry recording that replacement (``verify_proof`` checks it too), or None."""

    @classmethod
    def from_raw(cls, raw: Raw) -> Proof:
        audit = _obj(raw, "audit_proof")
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
            entry=_entry(raw, "chain"),
            public_key=_obj(raw, "public_key"),
            rotations=_list(raw, "rotations"),
            raw=raw,
            superseded_by=_opt_str(raw, "superseded_by"),
            supersession=_entry(raw, "supersession"),
        )


@dataclass(frozen=True)
class ChainPage:
    """A page of the account's hash chain, newest first (``chain``). The entries are as signed:
    check each with ``verify_entry`` and its link with ``prev_hash`` (the ``entry_hash`` of the
    entry one ``seq`` lower; 64 zeros for ``seq`` 1)."""

    entries: list[LedgerEntry]
    has_more: bool
    next_before: Optional[int]
    """The ``before`` of the next (older) page; None on the last page."""
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> ChainPage:
        before = _opt_num(raw, "next_before")
        return cls(_list(raw, "entries"), raw.get("has_more") is True, None if before is None else int(before), raw)


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
