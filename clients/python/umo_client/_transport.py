"""One HTTP call with urllib: the key, JSON or multipart bodies, retries on 429 and 503, errors."""

from __future__ import annotations

import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Mapping

from .errors import APIError, UMOError, error_for, parse_retry_after

Raw = Mapping[str, Any]

# 429 and 503 mean "not now": the request did nothing and may be sent again.
_RETRYABLE = (429, 503)


@dataclass(frozen=True)
class Transport:
    base_url: str
    api_key: str | None
    timeout: float
    max_retries: int
    max_retry_delay: float

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        json_body: Any = None,
        body: bytes | None = None,
        content_type: str | None = None,
        authenticated: bool = True,
    ) -> Raw:
        """Sends one call, retrying 429 and 503 up to ``max_retries`` times; returns the payload
        (``data`` of the spec's envelope, or the flat body) or raises a :class:`UMOError`."""
        params = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in (query or {}).items() if v is not None}
        url = self.base_url + path + (f"?{urllib.parse.urlencode(params)}" if params else "")
        headers = {"Accept": "application/json", "User-Agent": "umo-client-python/0.1.0"}
        if authenticated:
            if not self.api_key:
                raise UMOError("no API key: pass api_key or set UMO_API_KEY")
            headers["Authorization"] = f"Bearer {self.api_key}"
        if json_body is not None:
            body = json.dumps(json_body).encode("utf-8")
            content_type = "application/json"
        if content_type is not None:
            headers["Content-Type"] = content_type

        attempt = 0
        while True:
            request = urllib.request.Request(url, data=body, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return _unwrap(_parse(response.read()))
            except urllib.error.HTTPError as failure:
                status = failure.code
                request_id = failure.headers.get("x-request-id")
                retry_after = parse_retry_after(failure.headers.get("retry-after"))
                detail = _detail(_parse(failure.read()))
            except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError) as cause:
                reason = getattr(cause, "reason", cause)
                if isinstance(reason, (socket.timeout, TimeoutError)):
                    raise APIError(f"{method} {path} timed out after {self.timeout} s") from cause
                raise APIError(f"could not reach {self.base_url}: {reason}") from cause
            wait = retry_after if retry_after is not None else _backoff(attempt, self.max_retry_delay)
            if status not in _RETRYABLE or attempt >= self.max_retries or wait > self.max_retry_delay:
                raise error_for(status, detail, request_id, retry_after)
            time.sleep(wait)
            attempt += 1


def _backoff(attempt: int, cap: float) -> float:
    """Exponential backoff with full jitter: up to 0.5 s, 1 s, 2 s, … (capped)."""
    return random.random() * min(cap, 0.5 * 2.0**attempt)


def _parse(data: bytes) -> Any:
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return data.decode("utf-8", "replace")


def _unwrap(body: Any) -> Raw:
    if not isinstance(body, dict):
        return {}
    data = body.get("data")
    if body.get("status") == "success" and isinstance(data, dict):
        return data
    return body


def _detail(body: Any) -> str | None:
    if isinstance(body, str):
        return body[:500] or None
    detail = body.get("detail") if isinstance(body, dict) else None
    return detail if isinstance(detail, str) else None


def multipart(fields: Mapping[str, str], file_field: str, filename: str, data: bytes, media_type: str) -> tuple[bytes, str]:
    """A ``multipart/form-data`` body (RFC 7578) with text fields and one file; returns the body and
    its content type."""
    boundary = f"umo-{random.getrandbits(96):024x}"
    quoted = filename.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "").replace("\n", "")
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{quoted}"\r\n'
        f"Content-Type: {media_type}\r\n\r\n"
    ).encode()
    body = b"".join(parts) + head + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"
