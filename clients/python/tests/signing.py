"""Ed25519 signing (RFC 8032, section 6's reference code) and key records as the service writes
them, for test fixtures only: the client verifies and never signs, so this is not in the package."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any, Optional

from umo_client import _ed25519
from umo_client.verify import key_thumbprint


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _compress(p: _ed25519.Point) -> bytes:
    z_inv = pow(p[2], _ed25519._P - 2, _ed25519._P)
    x, y = p[0] * z_inv % _ed25519._P, p[1] * z_inv % _ed25519._P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _hash_mod_l(data: bytes) -> int:
    return int.from_bytes(hashlib.sha512(data).digest(), "little") % _ed25519._L


def _expand(secret: bytes) -> tuple[int, bytes]:
    h = hashlib.sha512(secret).digest()
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return a, h[32:]


def public_key(secret: bytes) -> bytes:
    a, _ = _expand(secret)
    return _compress(_ed25519._mul(a, _ed25519._G))


def sign(secret: bytes, message: bytes) -> bytes:
    a, prefix = _expand(secret)
    public = _compress(_ed25519._mul(a, _ed25519._G))
    r = _hash_mod_l(prefix + message)
    big_r = _compress(_ed25519._mul(r, _ed25519._G))
    s = (r + _hash_mod_l(big_r + public + message) * a) % _ed25519._L
    return big_r + s.to_bytes(32, "little")


class Key:
    """An Ed25519 key pair made from a seed text, with its public JWK as the service publishes it."""

    def __init__(self, seed: str) -> None:
        self.secret = hashlib.sha256(seed.encode("utf-8")).digest()
        x = b64url(public_key(self.secret))
        self.kid = key_thumbprint({"crv": "Ed25519", "kty": "OKP", "x": x})
        self.jwk: dict[str, Any] = {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": self.kid, "alg": "EdDSA", "use": "sig"}

    def sign(self, message: str) -> str:
        return b64url(sign(self.secret, message.encode("utf-8")))


def key_record(
    key: Key, previous: Optional[Key], signers: list[Key], seq: int = 1, kids: Optional[list[str]] = None
) -> dict[str, Any]:
    """A key record for ``key`` replacing ``previous``, signed by ``signers`` (under their own kids,
    or those in ``kids``)."""
    record = {
        "type": "umo-signing-key",
        "seq": seq,
        "key": key.jwk,
        "previous": previous.jwk if previous is not None else None,
        "created_at": "2026-01-01T00:00:00.000Z",
    }
    payload = b64url(json.dumps(record).encode("utf-8"))
    signatures = []
    for i, signer in enumerate(signers):
        header = b64url(json.dumps({"alg": "EdDSA", "kid": kids[i] if kids else signer.kid}).encode("utf-8"))
        signatures.append({"protected": header, "signature": signer.sign(f"{header}.{payload}")})
    return {"payload": payload, "signatures": signatures}


def recode_last_character(text: str) -> str:
    """``text`` (base64url with unused low bits in its last character) with a different last
    character that a lenient decoder reads as the same bytes."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    return text[:-1] + alphabet[alphabet.index(text[-1]) ^ 1]
