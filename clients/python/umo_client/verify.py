"""Offline checks of what the service signed: a proof's capture entry and capture or deletion
receipts. Give the service's public key as you pinned it — a JWK or the JWK Set from
``GET /.well-known/jwks.json`` (``client.signing_keys()``) — not the copy in the response checked."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from typing import Any, Mapping, Optional

from . import _ed25519
from .errors import VerificationError
from .models import Proof

# The chain entry kind each receipt type must carry.
_ENTRY_KINDS = {"umo-capture-receipt": "capture", "umo-deletion-receipt": "delete"}

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


def _b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _key_for(public_key: Mapping[str, Any], kid: str) -> Optional[Mapping[str, Any]]:
    """The key named ``kid`` in a JWK Set, or the single key when its ``kid`` is absent or matches."""
    keys = public_key.get("keys")
    candidates = keys if isinstance(keys, list) else [public_key]
    return next((k for k in candidates if isinstance(k, dict) and k.get("kid") in (None, kid)), None)


def _verify_signature(public_key: Mapping[str, Any], kid: str, message: bytes, signature: str) -> bool:
    jwk = _key_for(public_key, kid)
    if jwk is None or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
        return False
    try:
        return _ed25519.verify(_b64url(str(jwk.get("x", ""))), message, _b64url(signature))
    except (binascii.Error, ValueError):
        return False


def entry_hash(entry: Mapping[str, Any]) -> str:
    """``entry_hash`` as the service computes it: SHA-256 of the RFC 8785 canonical JSON of the
    entry's fields. They are strings and one integer, so sorted keys and compact separators are
    canonical."""
    fields = {name: entry.get(name) for name in _HASHED_FIELDS}
    return _sha256_hex(json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def verify_entry(entry: Mapping[str, Any], public_key: Mapping[str, Any]) -> bool:
    """Whether a chain entry's hash matches its fields and the service signed it."""
    return entry.get("entry_hash") == entry_hash(entry) and _verify_signature(
        public_key, str(entry.get("key_id", "")), str(entry["entry_hash"]).encode(), str(entry.get("signature", ""))
    )


def verify_proof(proof: Proof, public_key: Mapping[str, Any], content: Optional[str] = None) -> bool:
    """Whether a proof holds up offline: its capture entry is signed with ``public_key``, names this
    memory and its content and semantic hashes, and — when ``content`` is given (the text ``ask``
    returns) — the content hashes to the recorded value."""
    entry = proof.entry
    return (
        entry is not None
        and entry.get("kind") == "capture"
        and entry.get("umo_id") == proof.umo_id
        and entry.get("content_hash") == proof.content_hash
        and entry.get("semantic_hash") == proof.semantic_hash
        and (content is None or _sha256_hex(content) == proof.content_hash)
        and verify_entry(entry, public_key)
    )


def verify_receipt(receipt: str, public_key: Mapping[str, Any]) -> dict[str, Any]:
    """Checks a capture or deletion receipt (compact JWS, EdDSA) offline and returns its claims;
    raises :class:`VerificationError` when it is malformed, not signed with ``public_key``, or
    not a UMO receipt."""
    parts = receipt.split(".")
    if len(parts) != 3:
        raise VerificationError("a receipt is a compact JWS of three parts")
    header, payload, signature = parts
    try:
        protected = json.loads(_b64url(header))
        claims = json.loads(_b64url(payload))
    except (binascii.Error, ValueError) as cause:
        raise VerificationError("the receipt is not valid base64url JSON") from cause
    if not isinstance(protected, dict) or protected.get("alg") != "EdDSA":
        raise VerificationError("the receipt is not signed with EdDSA")
    if not _verify_signature(public_key, str(protected.get("kid", "")), f"{header}.{payload}".encode(), signature):
        raise VerificationError("the receipt's signature does not match the public key")
    entry = claims.get("entry") if isinstance(claims, dict) else None
    kind = _ENTRY_KINDS.get(str(claims.get("type"))) if isinstance(claims, dict) else None
    if kind is None or not isinstance(entry, dict) or entry.get("kind") != kind or entry.get("umo_id") != claims.get("umo_id"):
        raise VerificationError("not a UMO capture or deletion receipt")
    if not verify_entry(entry, public_key):
        raise VerificationError("the chain entry inside the receipt does not verify")
    return dict(claims)
