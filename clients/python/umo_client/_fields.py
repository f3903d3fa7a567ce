"""Reading fields of a JSON response defensively: a missing or mistyped field reads as empty
(``""``, ``0``, ``None``, ``{}``, ``[]``), not as a crash."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Union

Raw = Mapping[str, Any]
"""A JSON object as the service sent it."""

MetadataValue = Union[str, int, float, bool, None, Sequence[str]]
"""A metadata value: a string, number, boolean, null or list of strings."""

Metadata = Mapping[str, MetadataValue]
"""A memory's tags: a flat object of metadata values."""


def _opt_str(raw: Raw, key: str) -> Optional[str]:
    value = raw.get(key)
    return value if isinstance(value, str) else None


def _opt_num(raw: Raw, key: str) -> Optional[float]:
    value = raw.get(key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _obj(raw: Raw, key: str) -> Raw:
    value = raw.get(key)
    return value if isinstance(value, dict) else {}


def _list(raw: Raw, key: str) -> list[Raw]:
    value = raw.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _strings(raw: Raw, key: str) -> list[str]:
    value = raw.get(key)
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _metadata(raw: Raw) -> Metadata:
    """The ``metadata`` object (``{}`` when absent or null)."""
    return _obj(raw, "metadata")
