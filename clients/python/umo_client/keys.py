"""The keys to trust: the ones you pinned — a JWK or the JWK Set from ``GET /.well-known/jwks.json``
(``client.signing_keys()``) — and every key a chain of verified key records links to them. Each
record is signed by the outgoing and the incoming key, so trust passes from a pinned key to its
successors (and back to its predecessors) and to no other key. Also the primitives every offline
check shares: canonical base64url, JSON, SHA-256 and Ed25519 signatures over JWKs."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional, TypeGuard, Union

from . import _ed25519

_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


class TrustedKeys(dict[str, dict[str, Any]]):
    """The keys to trust, by RFC 7638 thumbprint, as :func:`trusted_keys` computed them. Pass it
    where a pinned key is asked for to skip computing the set again; a plain JWK or JWK Set is
    taken as pinned."""


PublicKey = Union[Mapping[str, Any], TrustedKeys]
"""What you pinned (a public JWK, OKP on Ed25519, or a JWK Set holding it), or :class:`TrustedKeys`."""


def _b64url(text: object) -> Optional[bytes]:
    """Decodes base64url in its canonical form only (no padding, no other characters, zero unused
    bits): texts differing in the unused bits of their last character decode to the same bytes,
    and a changed signature must not pass for the original. ``None`` when ``text`` is not that."""
    if not isinstance(text, str) or _BASE64URL.fullmatch(text) is None:
        return None
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    return data if _to_b64url(data) == text else None


def _to_b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _json(data: Optional[bytes]) -> Any:
    """The JSON value UTF-8 ``data`` holds, or ``None`` when there is none."""
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError and JSONDecodeError both are
        return None


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _is_ed25519(jwk: object) -> TypeGuard[Mapping[str, Any]]:
    """An OKP key on Ed25519 whose ``x`` is canonical base64url."""
    return (
        isinstance(jwk, Mapping)
        and jwk.get("kty") == "OKP"
        and jwk.get("crv") == "Ed25519"
        and _b64url(jwk.get("x")) is not None
    )


def key_thumbprint(jwk: Mapping[str, Any]) -> str:
    """RFC 7638 thumbprint (SHA-256, base64url) of an OKP key: the ``kid`` the service gives it and
    the ``key_id`` its chain entries name. Computed from ``crv``, ``kty`` and ``x``; a declared
    ``kid`` plays no part."""
    members = {"crv": jwk.get("crv"), "kty": jwk.get("kty"), "x": jwk.get("x")}
    canonical = json.dumps(members, separators=(",", ":"), ensure_ascii=False)
    return _to_b64url(hashlib.sha256(canonical.encode("utf-8")).digest())


def _public_jwk(jwk: Mapping[str, Any]) -> dict[str, Any]:
    """The public part of an Ed25519 JWK, with its thumbprint as ``kid``."""
    return {"kty": "OKP", "crv": "Ed25519", "x": jwk["x"], "kid": key_thumbprint(jwk), "alg": "EdDSA", "use": "sig"}


def _verify_signature(jwk: Mapping[str, Any], message: bytes, signature: object) -> bool:
    public, raw = _b64url(jwk.get("x")), _b64url(signature)
    return public is not None and raw is not None and _ed25519.verify(public, message, raw)


def _signed_by(rotation: Mapping[str, Any], jwk: Mapping[str, Any], kid: str) -> bool:
    """Whether one of a key record's signatures is ``jwk``'s, under a header naming ``kid``."""
    payload = rotation["payload"]
    for s in rotation["signatures"]:
        if not isinstance(s, Mapping) or not isinstance(s.get("protected"), str):
            continue
        header = _json(_b64url(s["protected"]))
        if (
            isinstance(header, dict)
            and header.get("alg") == "EdDSA"
            and header.get("kid") == kid
            and _verify_signature(jwk, f"{s['protected']}.{payload}".encode("ascii"), s.get("signature"))
        ):
            return True
    return False


def _open_rotation(rotation: object) -> Optional[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """The keys a key record links — ``(previous, key)`` — when it names both and both signed it."""
    if (
        not isinstance(rotation, Mapping)
        or not isinstance(rotation.get("payload"), str)
        or not isinstance(rotation.get("signatures"), list)
    ):
        return None
    record = _json(_b64url(rotation["payload"]))
    if not isinstance(record, dict) or record.get("type") != "umo-signing-key":
        return None
    key, previous = record.get("key"), record.get("previous")
    if not _is_ed25519(key) or not _is_ed25519(previous):
        return None
    key_id, previous_id = key_thumbprint(key), key_thumbprint(previous)
    if key.get("kid") != key_id or previous.get("kid") != previous_id:
        return None
    if _signed_by(rotation, key, key_id) and _signed_by(rotation, previous, previous_id):
        return previous, key
    return None


def _pinned_list(pinned: PublicKey) -> list[Any]:
    if isinstance(pinned, TrustedKeys):
        return list(pinned.values())
    keys = pinned.get("keys")
    return list(keys) if isinstance(keys, list) else [pinned]


def trusted_keys(pinned: PublicKey, rotations: Optional[Iterable[Mapping[str, Any]]] = None) -> TrustedKeys:
    """The keys to trust, by thumbprint: the pinned ones (a JWK, or a JWK Set — whose own
    ``rotations`` are followed too — each known by its computed thumbprint, whatever ``kid`` it
    declares) and every key a chain of verified key records links to them, in either direction: a
    successor the trusted key endorsed, or a predecessor a trusted key acknowledged. The records
    (the pinned set's and ``rotations``: a proof's, or a freshly fetched JWK Set's) need not be
    trusted themselves, since each is checked, and records that fork the ring (one key endorsing
    two successors) link nothing. The result is a ``dict`` thumbprint → public JWK."""
    trusted = TrustedKeys()
    for jwk in _pinned_list(pinned):
        if _is_ed25519(jwk):
            trusted[key_thumbprint(jwk)] = _public_jwk(jwk)
    own = pinned.get("rotations") if not isinstance(pinned, TrustedKeys) else None
    records = [*(own if isinstance(own, list) else []), *(rotations or [])]
    links = [link for link in map(_open_rotation, records) if link is not None]
    # A key is followed by one key and follows one key: records that fork the ring (a leaked
    # retired key endorsing a second successor, say) link nothing.
    successors: dict[str, set[str]] = {}
    predecessors: dict[str, set[str]] = {}
    for previous, key in links:
        successors.setdefault(str(previous["kid"]), set()).add(str(key["kid"]))
        predecessors.setdefault(str(key["kid"]), set()).add(str(previous["kid"]))
    links = [
        (previous, key)
        for previous, key in links
        if len(successors[str(previous["kid"])]) == 1 and len(predecessors[str(key["kid"])]) == 1
    ]
    grew = True
    while grew:
        grew = False
        for previous, key in links:
            a, b = str(previous["kid"]), str(key["kid"])
            if (a in trusted) != (b in trusted):
                kid, jwk = (b, key) if a in trusted else (a, previous)
                trusted[kid] = _public_jwk(jwk)
                grew = True
    return trusted


def _trusted_from(public_key: PublicKey, rotations: Optional[Sequence[Mapping[str, Any]]]) -> TrustedKeys:
    if isinstance(public_key, TrustedKeys) and not rotations:
        return public_key
    return trusted_keys(public_key, rotations)
