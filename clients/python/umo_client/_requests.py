"""The requests the client sends, with the API's field names: the capture fields (``capture``,
each ``batch`` item, ``upload``'s form) and the selection fields of the reads (``list``, ``ask``,
``answer``, ``forget_all``) — the JS client's ``captureRequest`` and ``selectionRequest``."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Mapping, Optional, Sequence, Union

from ._fields import MetadataValue
from .errors import ValidationError

Timestamp = Union[datetime, str]
"""A time: a timezone-aware ``datetime``, or RFC 3339 text (``2024-05-01T09:30:00Z``) or a date."""

FilterScalar = Union[str, int, float, bool, None]
"""A value a filter compares with."""

MetadataMatch = Mapping[str, Union[FilterScalar, Sequence[FilterScalar]]]
"""Metadata to match: each key equal to its value, or to any of a list of values (AND across keys)."""

FilterExpression = Mapping[str, Any]
"""A filter expression: AND / OR / NOT over conditions on ``user_id``, ``agent_id``,
``session_id``, ``source``, ``timestamp``, ``created_at`` and ``metadata`` keys, with ``eq``,
``ne``, ``gt``, ``gte``, ``lt``, ``lte``, ``in``, ``nin``, ``contains``, ``icontains``,
``exists`` and ``"*"``; e.g. ``{"OR": [{"metadata": {"topic": "work"}}, {"NOT": {"user_id": "bob"}}]}``."""

BatchInput = Union[str, Mapping[str, Any]]
"""One item of ``batch``: a text, or a mapping with ``content`` and any of the capture fields."""

# The fields of a capture besides its content, as the API names them (a batch item's keys too).
CAPTURE_FIELDS = (
    "source", "timestamp", "user_id", "agent_id", "session_id", "metadata", "supersedes", "infer_updates", "dedupe",
    "expires_at", "ttl", "immutable", "categories", "custom_categories",
)


def iso(timestamp: Optional[Timestamp]) -> Optional[str]:
    if isinstance(timestamp, datetime):
        if timestamp.tzinfo is None:
            raise ValueError("timestamp must be timezone-aware (e.g. datetime.now(timezone.utc))")
        return timestamp.isoformat()
    return timestamp


def some(**fields: Any) -> dict[str, Any]:
    """The fields that were given (not None)."""
    return {k: v for k, v in fields.items() if v is not None}


def capture_fields(
    source: Optional[str] = None,
    timestamp: Optional[Timestamp] = None,
    user_id: Optional[str] = None,
    agent_id: Optional[str] = None,
    session_id: Optional[str] = None,
    metadata: Optional[Mapping[str, MetadataValue]] = None,
    supersedes: Optional[Sequence[str]] = None,
    infer_updates: Optional[bool] = None,
    dedupe: Optional[bool] = None,
    expires_at: Optional[Timestamp] = None,
    ttl: Optional[int] = None,
    immutable: Optional[bool] = None,
    categories: Optional[Sequence[str]] = None,
    custom_categories: Optional[Sequence[Mapping[str, str]]] = None,
) -> dict[str, Any]:
    """A capture's source, time, scope, tags, updates, dedupe, lifetime and categories: the fields given."""
    if isinstance(categories, str):
        raise TypeError("categories is a list of names, not one name")
    if isinstance(supersedes, str):
        raise TypeError("supersedes is a list of memory ids, not one id")
    return some(
        source=source,
        timestamp=iso(timestamp),
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        metadata=None if metadata is None else dict(metadata),
        supersedes=None if supersedes is None else list(supersedes),
        infer_updates=infer_updates,
        dedupe=dedupe,
        expires_at=iso(expires_at),
        ttl=ttl,
        immutable=immutable,
        categories=None if categories is None else list(categories),
        custom_categories=None if custom_categories is None else [dict(c) for c in custom_categories],
    )


def update_fields(
    content: Optional[str] = None,
    metadata: Optional[Mapping[str, MetadataValue]] = None,
    timestamp: Optional[Timestamp] = None,
    expires_at: Optional[Timestamp] = None,
    ttl: Optional[int] = None,
    never_expires: bool = False,
) -> dict[str, Any]:
    """A change to a memory (``PATCH /v1/memories/{id}``): its new text, metadata, time and expiry,
    the ones given (``never_expires``: ``expires_at`` null, the memory no longer expires)."""
    if never_expires and (expires_at is not None or ttl is not None):
        raise ValueError("never_expires: give it alone, not with expires_at or ttl")
    fields = some(
        content=content,
        metadata=None if metadata is None else dict(metadata),
        timestamp=iso(timestamp),
        expires_at=iso(expires_at),
        ttl=ttl,
    )
    return {**fields, "expires_at": None} if never_expires else fields


def check_options(call: str, options: Mapping[str, Any], allowed: Sequence[str]) -> None:
    """Refuses a key the call does not take, as the service refuses an unknown field — a misspelt
    one (``userId`` for ``user_id``) would otherwise be dropped, and a capture stored with no user:
    a :class:`ValidationError` (422) naming it, before any request (the JS client's ``checkOptions``)."""
    for key in options:
        if key in allowed:
            continue
        meant = re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), str(key))
        hint = f" (did you mean {meant}?)" if meant != key and meant in allowed else ""
        detail = f"invalid options: {key}: not an option of {call}{hint}; it takes {', '.join(allowed)}"
        raise ValidationError(f"422: {detail}", 422, detail)


def batch_item(item: BatchInput) -> dict[str, Any]:
    """A batch item: a text, or a mapping with ``content`` and capture fields (any other key is a
    mistake, refused here rather than dropped: a misspelt ``user_id`` would leave a memory unscoped)."""
    if isinstance(item, str):
        return {"content": item}
    check_options("batch item", item, ("content", *CAPTURE_FIELDS))
    return {"content": item["content"], **capture_fields(**{k: item[k] for k in CAPTURE_FIELDS if k in item})}


def selection(
    user_id: Optional[str] = None,
    agent_id: Optional[str] = None,
    session_id: Optional[str] = None,
    source: Optional[str] = None,
    metadata: Optional[MetadataMatch] = None,
    after: Optional[Timestamp] = None,
    before: Optional[Timestamp] = None,
    include_superseded: Optional[bool] = None,
    filters: Optional[FilterExpression] = None,
) -> dict[str, Any]:
    """The selection fields of a read, as the API names them: the ones given."""
    return some(
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        source=source,
        metadata=None if metadata is None else dict(metadata),
        after=iso(after),
        before=iso(before),
        include_superseded=include_superseded,
        filters=None if filters is None else dict(filters),
    )


def text_fields(fields: Mapping[str, Any]) -> dict[str, str]:
    """Fields as a query string or a form carries them: objects and lists as JSON, booleans as
    ``true`` / ``false``, the rest as text; None left out."""
    return {
        name: json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if isinstance(value, (dict, list, tuple))
        else ("true" if value else "false")
        if isinstance(value, bool)
        else str(value)
        for name, value in fields.items()
        if value is not None
    }
