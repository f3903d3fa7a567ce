"""Offline checks of what the service signed: a proof's capture entry (and, for a superseded
memory, the entry recording its supersession), chain entries, and capture, deletion or erasure
receipts. Give the keys you pinned — a JWK or the JWK Set from ``GET /.well-known/jwks.json``
(``client.signing_keys()``) — not the copy in the response checked.

When the service has rotated its key since you pinned it, the key records (``rotations``: in a
proof, in a freshly fetched JWK Set) are followed. Each record is signed by the outgoing and the
incoming key, so trust passes from a pinned key to its successors (and back to its predecessors)
and to no other key: :func:`trusted_keys` computes that set, and every check here uses it."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Optional, TypeGuard, Union

from .errors import VerificationError
from .keys import PublicKey as PublicKey
from .keys import TrustedKeys as TrustedKeys
from .keys import _b64url as _b64url
from .keys import _json, _sha256_hex, _trusted_from, _verify_signature
from .keys import key_thumbprint as key_thumbprint
from .keys import trusted_keys as trusted_keys
from .signed import LedgerEntry, Proof

# The chain entry kind each receipt type must carry.
_ENTRY_KINDS = {"umo-capture-receipt": "capture", "umo-deletion-receipt": "delete", "umo-erasure-receipt": "delete"}

_HASHED_FIELDS = (
    "account_id",
    "seq",
    "kind",
    "umo_id",
    "content_hash",
    "semantic_hash",
    "record_hash",
    "recorded_at",
    "prev_hash",
)


def entry_hash(entry: LedgerEntry) -> str:
    """``entry_hash`` as the service computes it: SHA-256 of the RFC 8785 canonical JSON of the
    entry's fields. They are strings and one integer, so sorted keys and compact separators are
    canonical. A supersession entry also names its successor (``superseded_by``, hashed only when
    it is a string); other entries have no such field, so their hashes are as before."""
    fields = {name: entry[name] for name in _HASHED_FIELDS if name in entry}
    if isinstance(entry.get("superseded_by"), str):
        fields["superseded_by"] = entry["superseded_by"]
    return _sha256_hex(json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def verify_entry(
    entry: LedgerEntry, public_key: PublicKey, rotations: Optional[Sequence[Mapping[str, Any]]] = None
) -> bool:
    """Whether a chain entry's hash matches its fields and a trusted key — the one its ``key_id``
    names — signed it. ``public_key`` is what you pinned (or :class:`TrustedKeys`); ``rotations``
    are key records to follow from it."""
    key_id = entry.get("key_id")
    jwk = _trusted_from(public_key, rotations).get(key_id) if isinstance(key_id, str) else None
    return (
        jwk is not None
        and entry.get("entry_hash") == entry_hash(entry)
        and _verify_signature(jwk, str(entry["entry_hash"]).encode("utf-8"), entry.get("signature"))
    )


def _succession_holds(proof: Proof, public_key: PublicKey) -> bool:
    """A superseded memory's supersession entry names it and its successor, and a trusted key signed it."""
    if proof.superseded_by is None:
        return True
    entry = proof.supersession
    return (
        entry is not None
        and _same(entry.get("kind"), "supersede")
        and _same(entry.get("umo_id"), proof.umo_id)
        and _same(entry.get("superseded_by"), proof.superseded_by)
        and verify_entry(entry, public_key, proof.rotations)
    )


def verify_proof(proof: Proof, public_key: PublicKey, content: Optional[str] = None) -> bool:
    """Whether a proof holds up offline: its capture entry is signed by a key you pinned (or one
    the proof's key records link to it), names this memory and its content and semantic hashes,
    and — when ``content`` is given (the text ``ask`` returns) — the content hashes to the recorded
    value; a superseded memory's proof (``superseded_by`` set) must also carry the signed
    ``supersede`` entry naming it and its successor."""
    entry = proof.entry
    return (
        _succession_holds(proof, public_key)
        and entry is not None
        and entry.get("kind") == "capture"
        and entry.get("umo_id") == proof.umo_id
        and entry.get("content_hash") == proof.content_hash
        and entry.get("semantic_hash") == proof.semantic_hash
        and (content is None or _sha256_hex(content) == proof.content_hash)
        and verify_entry(entry, public_key, proof.rotations)
    )


def verify_receipt(
    receipt: str, public_key: PublicKey, rotations: Optional[Sequence[Mapping[str, Any]]] = None
) -> dict[str, Any]:
    """Checks a capture, deletion or erasure receipt (compact JWS, EdDSA) offline and returns its
    claims; raises :class:`VerificationError` when it is malformed, not signed by a trusted key (one
    pinned in ``public_key``, or linked to it by the key records in ``rotations`` — e.g.
    ``client.signing_keys()["rotations"]`` fetched now), or not a UMO receipt."""
    parts = receipt.split(".")
    if len(parts) != 3:
        raise VerificationError("a receipt is a compact JWS of three parts")
    header, payload, signature = parts
    protected, claims = _json(_b64url(header)), _json(_b64url(payload))
    if protected is None or claims is None:
        raise VerificationError("the receipt is not valid base64url JSON")
    if not isinstance(protected, dict) or protected.get("alg") != "EdDSA":
        raise VerificationError("the receipt is not signed with EdDSA")
    trusted = _trusted_from(public_key, rotations)
    if "kid" in protected:
        named = trusted.get(protected["kid"]) if isinstance(protected["kid"], str) else None
        candidates = [named] if named is not None else []
    else:
        candidates = list(trusted.values())
    message = f"{header}.{payload}".encode("ascii")
    if not any(_verify_signature(jwk, message, signature) for jwk in candidates):
        raise VerificationError("the receipt's signature does not match the public key")
    if not isinstance(claims, dict) or not _claims_consistent(claims):
        raise VerificationError("not a UMO capture, deletion or erasure receipt")
    if not verify_entry(claims["entry"], trusted):
        raise VerificationError("the chain entry inside the receipt does not verify")
    return dict(claims)


def _is_number(value: object) -> TypeGuard[Union[int, float]]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(a: object, b: object) -> bool:
    """JavaScript's ``===`` on JSON values (what the JS client and the service compare with):
    numbers by value, strings, booleans and null by type and value, objects and lists never."""
    if _is_number(a) and _is_number(b):
        return a == b
    return type(a) is type(b) and isinstance(a, (str, bool, type(None))) and a == b


def _claims_consistent(claims: Mapping[str, Any]) -> bool:
    """Whether the claims' entry is the one a receipt of their type must carry. An erasure receipt
    names the memories erased (at least one, in id order), their ``count``, and ``first_seq``: its
    entry is the last deletion entry (of the last id), whose hash covers the ones before it."""
    kind_of, entry = claims.get("type"), claims.get("entry")
    kind = _ENTRY_KINDS.get(kind_of) if isinstance(kind_of, str) else None
    if kind is None or not isinstance(entry, dict) or not _same(entry.get("kind"), kind):
        return False
    if kind_of != "umo-erasure-receipt":
        return _same(entry.get("umo_id"), claims.get("umo_id"))
    ids, count, first_seq, seq = claims.get("umo_ids"), claims.get("count"), claims.get("first_seq"), entry.get("seq")
    return (
        isinstance(ids, list)
        and len(ids) > 0
        and _is_number(count)
        and count == len(ids)
        and _same(ids[-1], entry.get("umo_id"))
        and _is_number(first_seq)
        and _is_number(seq)
        and first_seq == seq - len(ids) + 1
    )
