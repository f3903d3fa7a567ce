"""What a LangGraph search filter and a namespace match condition admit, as LangGraph's own
stores read them: a filter names value fields (a dotted name reaches into nested values), each equal to a value (objects compared field by
field, lists item by item) or held to operators (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``,
``$lte``); a condition is a namespace prefix or suffix, ``"*"`` standing for any one label."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from langgraph.store.base import MatchCondition

_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda value, wanted: bool(value == wanted),
    "$ne": lambda value, wanted: bool(value != wanted),
    "$gt": lambda value, wanted: float(value) > float(wanted),
    "$gte": lambda value, wanted: float(value) >= float(wanted),
    "$lt": lambda value, wanted: float(value) < float(wanted),
    "$lte": lambda value, wanted: float(value) <= float(wanted),
}


def check_filter(filter: Mapping[str, Any], path: str = "filter") -> None:
    """Refuses a filter naming an operator no store knows, before any request (``ValueError``
    naming where it is)."""
    for name, wanted in filter.items():
        if not isinstance(wanted, Mapping):
            continue
        for key, inner in wanted.items():
            if key.startswith("$") and key not in _OPERATORS:
                raise ValueError(f"{path}.{name}.{key}: unknown operator (use {', '.join(_OPERATORS)})")
            if not key.startswith("$") and isinstance(inner, Mapping):
                check_filter({key: inner}, f"{path}.{name}")


def _matches(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(key.startswith("$") for key in wanted):
            try:
                return all(_OPERATORS[key](value, operand) for key, operand in wanted.items())
            except (TypeError, ValueError):
                return False  # a field that is not a number is not greater than one
        return isinstance(value, Mapping) and all(_matches(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(wanted)
            and all(_matches(v, w) for v, w in zip(value, wanted))
        )
    return bool(value == wanted)


_MISSING = object()


def lookup(value: Mapping[str, Any], name: str) -> Any:
    """A filter's field in a value: the field of that name, else a dotted path into nested values
    (``"user.access-level"`` is ``value["user"]["access-level"]``), as LangGraph's stores read it;
    None when there is no such field."""
    if name in value:
        return value[name]
    found: Any = value
    for part in name.split("."):
        found = found.get(part, _MISSING) if isinstance(found, Mapping) else _MISSING
        if found is _MISSING:
            return None
    return found


def admits(filter: Mapping[str, Any] | None, value: Mapping[str, Any]) -> bool:
    """Whether an item's value passes the filter (no filter admits every value)."""
    return not filter or all(_matches(lookup(value, name), wanted) for name, wanted in filter.items())


def namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """Whether a namespace starts (``prefix``) or ends (``suffix``) with the condition's path."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path))
    else:
        raise ValueError(f"match_type: unknown ({condition.match_type!r}; use 'prefix' or 'suffix')")
    return all(wanted == "*" or label == wanted for label, wanted in pairs)
