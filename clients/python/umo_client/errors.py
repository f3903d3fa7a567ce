"""The error family: every error the client raises is a :class:`UMOError`."""

from __future__ import annotations

import email.utils
import time


class UMOError(Exception):
    """Base class: the HTTP ``status`` (None when no response came), the service's ``detail`` and
    the ``request_id`` (``X-Request-Id``) to quote when reporting a problem."""

    def __init__(
        self,
        message: str,
        status: int | None = None,
        detail: str | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail
        self.request_id = request_id


class AuthenticationError(UMOError):
    """401: the key is missing, unknown or revoked."""


class NotFoundError(UMOError):
    """404: no memory with that id in the caller's account."""


class RateLimitError(UMOError):
    """429: too many requests; ``retry_after`` is the wait the service asked for, in seconds."""

    def __init__(
        self,
        message: str,
        status: int | None = None,
        detail: str | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, status, detail, request_id)
        self.retry_after = retry_after


class ValidationError(UMOError):
    """400, 413, 415, 422: the request itself is wrong (bad field, too large, unsupported file)."""


class APIError(UMOError):
    """Any other failure: 5xx, a provider error behind ``answer`` (502), a timeout, no connection
    or one lost before the whole answer came (``status`` None, after the retries a call safe to
    repeat gets)."""


class IncompleteExportError(APIError):
    """An export that ended before its last line: the connection, or the service, failed midway.
    ``after_id`` (the ``umo_id`` of the last memory line received, None when none came) resumes
    it: ``export_memories(..., after_id=error.after_id)``. ``memories`` counts the memory lines
    received before it ended."""

    def __init__(self, message: str, after_id: str | None, memories: int, request_id: str | None = None) -> None:
        super().__init__(message, None, None, request_id)
        self.after_id = after_id
        self.memories = memories


class VerificationError(UMOError):
    """An offline check of a proof or receipt failed."""


def parse_retry_after(header: str | None, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or an HTTP date), or None."""
    if header is None or header.strip() == "":
        return None
    try:
        return max(0.0, float(header))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def error_for(
    status: int, detail: str | None, request_id: str | None, retry_after: float | None
) -> UMOError:
    """The error class for an HTTP error status."""
    message = f"{status}: {detail or 'no detail'}" + (f" (request {request_id})" if request_id else "")
    if status in (401, 403):
        return AuthenticationError(message, status, detail, request_id)
    if status == 404:
        return NotFoundError(message, status, detail, request_id)
    if status == 429:
        return RateLimitError(message, status, detail, request_id, retry_after)
    if status in (400, 413, 415, 422):
        return ValidationError(message, status, detail, request_id)
    return APIError(message, status, detail, request_id)
