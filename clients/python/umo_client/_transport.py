"""One HTTP call with urllib: the key, JSON, multipart or streamed bodies, streamed answers, idempotency keys, retries, errors."""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import IO, Any, Callable, ContextManager, Iterable, Mapping, TypeVar, Union

from .errors import APIError, UMOError, error_for, parse_retry_after

Raw = Mapping[str, Any]
T = TypeVar("T")

BodyData = Union[bytes, IO[bytes], Iterable[bytes]]
"""A request body as urllib sends it: bytes (with a length), or a file or iterable of bytes (chunked)."""

# 429 and 503 mean "not now": the request did nothing and may be sent again.
_RETRYABLE = (429, 503)

# Methods that change nothing, so a call whose connection failed may simply be sent again.
_SAFE_METHODS = ("GET", "HEAD")

# The failures of the connection itself (refused, reset, closed before the answer, timed out, an
# answer cut short): the request may or may not have reached the service.
_CONNECTION_FAILURES = (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError, http.client.HTTPException)

# What the service accepts in an ``Idempotency-Key`` header: 1 to 255 visible ASCII characters.
_IDEMPOTENCY_KEY = re.compile(r"[!-~]{1,255}")


def check_idempotency_key(key: str) -> str:
    """The key, if the service would accept it; else :class:`ValueError` (before any request)."""
    if not isinstance(key, str) or _IDEMPOTENCY_KEY.fullmatch(key) is None:
        raise ValueError("idempotency_key must be 1 to 255 visible ASCII characters (e.g. a UUID)")
    return key


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
        idempotency_key: str | None = None,
        streamed: StreamedBody | None = None,
    ) -> Raw:
        """Sends one call and returns the payload (``data`` of the spec's envelope, or the flat
        body) or raises a :class:`UMOError`.

        A 429 or 503 is retried, up to ``max_retries`` times in all, after ``Retry-After`` or a
        jittered exponential backoff. A call that is safe to repeat — a GET, or one carrying an
        ``idempotency_key`` (sent as the ``Idempotency-Key`` header on every attempt) — is also
        retried, within the same budget, when the connection fails or times out; any other call
        then raises at once, since the service may have acted on it. A ``streamed`` body is opened
        anew for each attempt; one that cannot be sent again is sent once."""
        return self._exchange(
            method, path, query, json_body, body, content_type, authenticated, idempotency_key, streamed,
            "application/json", _payload,
        )

    def stream(self, path: str, *, query: Mapping[str, Any] | None = None, accept: str) -> http.client.HTTPResponse:
        """Sends a GET (retried as ``send`` retries it until an answer begins) and returns the open
        response, to read as it arrives; the caller closes it."""
        return self._exchange("GET", path, query, None, None, None, True, None, None, accept, _open_response)

    def _exchange(
        self,
        method: str,
        path: str,
        query: Mapping[str, Any] | None,
        json_body: Any,
        body: bytes | None,
        content_type: str | None,
        authenticated: bool,
        idempotency_key: str | None,
        streamed: StreamedBody | None,
        accept: str,
        take: Callable[[http.client.HTTPResponse], T],
    ) -> T:
        params = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in (query or {}).items() if v is not None}
        url = self.base_url + path + (f"?{urllib.parse.urlencode(params)}" if params else "")
        headers = {"Accept": accept, "User-Agent": "umo-client-python/0.1.0"}
        if authenticated:
            if not self.api_key:
                raise UMOError("no API key: pass api_key or set UMO_API_KEY")
            headers["Authorization"] = f"Bearer {self.api_key}"
        if json_body is not None:
            body = json.dumps(json_body).encode("utf-8")
            content_type = "application/json"
        if content_type is not None:
            headers["Content-Type"] = content_type
        if idempotency_key is not None:
            headers["Idempotency-Key"] = check_idempotency_key(idempotency_key)
        replayable = streamed is None or streamed.replayable
        repeatable = replayable and (
            method.upper() in _SAFE_METHODS or idempotency_key is not None or (streamed is not None and streamed.idempotent)
        )

        attempt = 0
        while True:
            with streamed.open() if streamed is not None else contextlib.nullcontext(body) as data:
                request = urllib.request.Request(url, data=data, headers=headers, method=method)
                try:
                    opened = _early_answers.open if streamed is not None else urllib.request.urlopen
                    return take(opened(request, timeout=self.timeout))
                except urllib.error.HTTPError as failure:
                    status = failure.code
                    request_id = failure.headers.get("x-request-id")
                    retry_after = parse_retry_after(failure.headers.get("retry-after"))
                    try:
                        detail = _detail(_parse(failure.read()))
                    except _CONNECTION_FAILURES:
                        detail = None  # the status came, its explanation was cut short
                except _CONNECTION_FAILURES as cause:
                    if not repeatable or attempt >= self.max_retries:
                        raise _unreachable(cause, method, path, self.base_url, self.timeout) from cause
                    time.sleep(_backoff(attempt, self.max_retry_delay))
                    attempt += 1
                    continue
            wait = retry_after if retry_after is not None else _backoff(attempt, self.max_retry_delay)
            if status not in _RETRYABLE or not replayable or attempt >= self.max_retries or wait > self.max_retry_delay:
                raise error_for(status, detail, request_id, retry_after)
            time.sleep(wait)
            attempt += 1


@dataclass(frozen=True)
class StreamedBody:
    """A request body sent as it is read (chunked): ``open`` gives it for one attempt (a file, an
    iterable of bytes or bytes) and closes what it opened on exit. ``replayable``: it can be opened
    again for a retry; ``idempotent``: sending it twice does no harm, so a retry after a lost
    connection is safe too."""

    open: Callable[[], ContextManager[BodyData]]
    replayable: bool
    idempotent: bool = False


class _EarlyAnswerHTTP(http.client.HTTPConnection):
    """A connection that, when the service answers before it has read the whole body (a refused
    import: a bad key or parameter) and closes, stops sending and reads that answer."""

    def request(self, method: str, url: str, body: Any = None, headers: Mapping[str, Any] = {}, *, encode_chunked: bool = False) -> None:
        try:
            super().request(method, url, body, headers, encode_chunked=encode_chunked)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the answer, if one came, is read next; else reading fails as a lost connection


class _EarlyAnswerHTTPS(http.client.HTTPSConnection):
    __doc__ = _EarlyAnswerHTTP.__doc__

    def request(self, method: str, url: str, body: Any = None, headers: Mapping[str, Any] = {}, *, encode_chunked: bool = False) -> None:
        try:
            super().request(method, url, body, headers, encode_chunked=encode_chunked)
        except (BrokenPipeError, ConnectionResetError):
            pass


class _EarlyAnswerHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_EarlyAnswerHTTP, req)


class _EarlyAnswerHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_EarlyAnswerHTTPS, req)


# Sends streamed bodies (imports): urllib's handlers, proxies and all, with the connections above.
_early_answers = urllib.request.build_opener(_EarlyAnswerHTTPHandler, _EarlyAnswerHTTPSHandler)


def _payload(response: http.client.HTTPResponse) -> Raw:
    with response:
        return _unwrap(_parse(response.read()))


def _open_response(response: http.client.HTTPResponse) -> http.client.HTTPResponse:
    return response


def _unreachable(cause: BaseException, method: str, path: str, base_url: str, timeout: float) -> APIError:
    """The error for a call that got no (whole) answer: an :class:`APIError` with status None."""
    reason = getattr(cause, "reason", cause)
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return APIError(f"{method} {path} timed out after {timeout} s")
    if isinstance(reason, http.client.RemoteDisconnected):
        return APIError(f"{method} {path}: {base_url} closed the connection without answering")
    if isinstance(reason, http.client.HTTPException):
        return APIError(f"{method} {path}: the answer from {base_url} was cut short or malformed: {reason!r}")
    return APIError(f"could not reach {base_url}: {reason}")


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
