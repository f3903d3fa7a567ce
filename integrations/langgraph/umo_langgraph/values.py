"""A LangGraph item's value as a UMO memory's text, and back, unchanged.

UMO stores the text a memory was captured with in normal form (``normalizeText`` in
``plugins/src/nlp/Normalize.ts``: NFC, line breaks as ``\\n``, no control characters, one space
for a run of spaces, lines trimmed, at most one blank line in a row, no whitespace at either end).
A value must come back from ``get`` exactly as it was put, so it is written as text that is
already in that form:

- a value of one text field, ``{"content": "Prefers dark mode"}`` (LangMem's memories, and most
  examples), whose text is in normal form, is that text itself: the memory reads as what it says,
  which is what UMO's extraction, search and update inference work on. The field's name is kept
  in the memory's metadata (``langgraph_field``);
- any other value is its JSON, escaped where the normal form would change it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any, Mapping, Optional

_LINE_BREAKS = re.compile("\r\n?|[\u2028\u2029\u0085]")
_CONTROL = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\ufeff]")
_HORIZONTAL_SPACE = re.compile("[\t \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")
_BLANK_LINES = re.compile("\n{3,}")
_VISIBLE = re.compile("[^\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]")
_SPACE_RUN = re.compile("  +")


def normal_text(text: str) -> str:
    """UMO's normal form of a text, as its ``normalize`` stage computes it."""
    text = _HORIZONTAL_SPACE.sub(" ", _CONTROL.sub("", _LINE_BREAKS.sub("\n", text)))
    text = _BLANK_LINES.sub("\n\n", "\n".join(line.strip() for line in text.split("\n"))).strip()
    return unicodedata.normalize("NFC", text)


def _kept(character: str) -> bool:
    """Whether a character comes back as sent inside any text: assigned in this Python's Unicode
    (normalization is stable only for assigned characters, and the server's Unicode may be newer),
    not a lone surrogate (the server stores U+FFFD for one), and one that no step of the normal
    form touches on its own (a control character, a space other than U+0020, a zero-width space,
    a line separator, a combining mark, a Hangul jamo, a character NFC replaces)."""
    code = ord(character)
    if 0x20 <= code < 0x7F:
        return True
    category = unicodedata.category(character)
    return not (
        category in ("Cc", "Cs", "Cn", "Zs", "Zl", "Zp", "Mn", "Mc", "Me")
        or character in "\u200b\ufeff\u0085"
        or 0x1100 <= code <= 0x11FF
        or 0xA960 <= code <= 0xA97F
        or 0xD7B0 <= code <= 0xD7FF
        or unicodedata.normalize("NFC", character) != character
    )


def _stays(text: str) -> bool:
    """Whether UMO keeps the text as it is: already normal, with something visible in it, and every
    character one the server keeps whatever its Unicode version."""
    return (
        _VISIBLE.search(text) is not None
        and all(_kept(character) or character in "\n " for character in text)
        and normal_text(text) == text
    )


def _escaped(character: str) -> str:
    code = ord(character)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _json_text(value: Mapping[str, Any]) -> str:
    readable = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if _stays(readable):
        return readable
    # Escaped inside the strings (compact JSON has no other space and no non-ASCII character):
    # each character the server might change, and each space of a run of spaces.
    escaped = "".join(c if _kept(c) else _escaped(c) for c in readable)
    escaped = _SPACE_RUN.sub(lambda run: "\\u0020" * len(run.group()), escaped)
    if _stays(escaped):
        return escaped
    # A sequence NFC composes although each of its characters is kept alone: ASCII throughout.
    ascii_only = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return _SPACE_RUN.sub(lambda run: "\\u0020" * len(run.group()), ascii_only)


_NOT_IN_METADATA = re.compile("[\u0000\ud800-\udfff]")


def fits_metadata(text: str) -> bool:
    """Whether a text comes back from a memory's metadata as sent: the server drops U+0000 and
    reads surrogate code points as UTF-16 (a lone one becomes U+FFFD, a pair one character)."""
    return _NOT_IN_METADATA.search(text) is None


def encode(value: Mapping[str, Any]) -> tuple[str, Optional[str]]:
    """The memory's text for ``value``, and the name of its one text field when the text is that
    field's (else None: the text is the value's JSON)."""
    if len(value) == 1:
        ((field, text),) = value.items()
        if isinstance(field, str) and isinstance(text, str) and fits_metadata(field) and _stays(text):
            return text, field
    return _json_text(value), None


def decode(text: str, field: Optional[str]) -> dict[str, Any]:
    """The value a memory's text and field name stand for."""
    if field is not None:
        return {field: text}
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("not a LangGraph item: its text is not a JSON object")
    return value
