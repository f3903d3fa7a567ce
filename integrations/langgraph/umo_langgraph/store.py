"""A LangGraph ``BaseStore`` kept in UMO: LangGraph's and LangMem's long-term memory as UMO
memories, each namespace one scope of the account."""

from __future__ import annotations

import asyncio
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable, Iterator, Literal, Optional

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)
from umo_client import FilterExpression, Match, Memory, MemorySummary, NotFoundError, ScopeFields, UMOClient, ValidationError

from .matching import admits, check_filter, namespace_matches
from .values import decode, encode, fits_metadata

ScopeField = Literal["user_id", "agent_id", "session_id"]
_KINDS: dict[str, str] = {"user_id": "user", "agent_id": "agent", "session_id": "session"}
# UMO ranks at most this many memories for one query.
SEARCH_LIMIT = 50
# A filter holds at most 100 conditions, each a list of at most 100 values; one is the source's.
SCOPES_PER_SEARCH = 9_900
KEY = "langgraph_key"
FIELD = "langgraph_field"
CREATED = "langgraph_created_at"
# An item put with `index=False`: kept and listed, never found by meaning.
UNINDEXED = "langgraph_unindexed"
# An item put with a TTL: its minutes, so a read can restart them (`refresh_ttl`).
TTL = "langgraph_ttl_minutes"
# A scope id is at most 200 characters.
SCOPE_ID_LENGTH = 200
# How many times a put reads and writes an item that other writers keep changing meanwhile.
PUT_ATTEMPTS = 20


# What a scope id cannot hold, escaped inside a label: `%` itself, whitespace (an id may not start
# or end with it), control characters, and lone surrogates (UMO stores text as UTF-8).
_ESCAPED = re.compile(r"[%\s\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_ESCAPE = re.compile(r"%(?:u([0-9A-F]{4})|([0-9A-F]{2}))")


def _escape(label: str) -> str:
    return _ESCAPED.sub(lambda m: f"%{ord(m[0]):02X}" if ord(m[0]) < 0x100 else f"%u{ord(m[0]):04X}", label)


def _unescape(label: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(m[1] or m[2], 16)), label)


def scope_id(namespace: tuple[str, ...]) -> str:
    """The scope id of a namespace: its labels joined by ``.``, which LangGraph forbids inside a
    label, so every namespace has its own id and the id gives the namespace back. What a label may
    hold and an id may not (a tab, a trailing newline, ``%``) is escaped as ``%XX`` or ``%uXXXX``."""
    return ".".join(_escape(label) for label in namespace)


def namespace_of(scope: str) -> tuple[str, ...]:
    return tuple(_unescape(label) for label in scope.split("."))


class _Raced(Exception):
    """Another writer superseded or erased the memory a put read before the put wrote: the UMO
    error that said so is ``refused``."""

    def __init__(self, refused: Exception) -> None:
        super().__init__(str(refused))
        self.refused = refused


def _time(text: str) -> datetime:
    # Python 3.10's fromisoformat does not read "Z".
    return datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)


class UMOStore(BaseStore):
    """LangGraph's key-value store with search, in UMO: every item is a memory, so UMO's search,
    answers, proofs, history and erasure reach what LangGraph (or LangMem) keeps.

    - **Namespaces are scopes.** The item's namespace, its labels joined by ``.`` (which LangGraph
      forbids inside a label), is the memory's ``user_id`` (or ``agent_id`` / ``session_id``:
      ``scope``); ``("memories", "ana")`` is the user ``memories.ana``. A namespace sees only its
      own items; a search under a prefix sees the namespaces under it.
    - **An item is a memory** of ``source`` ``langgraph`` whose metadata holds its key. Its text is
      the value's one text field (``{"content": "Prefers dark mode"}`` is the memory "Prefers dark
      mode"), else the value's JSON; ``get`` gives the value back exactly.
    - **``put`` of a key that exists writes a new version** that supersedes the old (UMO's
      ``update``): its history and proofs keep both. Putting the same value again writes nothing.
      ``delete`` erases every version of the item (one signed receipt).
    - **Search with a query** is UMO's search (no language model): the best matches, at most
      50 (``offset + limit``), with ``score``; items under different keys are distinct hits even
      with equal values.
      Without a query, the items newest first. ``filter`` is LangGraph's (value fields, ``$eq``,
      ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``), applied to the values.
    - ``put(..., index=False)`` keeps the item and lists it, but a search with a query never finds
      it. Otherwise UMO indexes the item whole (a list of fields to index is read as the whole
      item).
    - **TTL**, as LangGraph defines it (``put(..., ttl=minutes)``, ``TTLConfig`` as ``ttl=``): the
      memory expires then, and leaves ``get`` and search at once; UMO's sweeper erases it with a
      signed erasure receipt. A read with ``refresh_ttl`` (by default ``refresh_on_read``) restarts
      the TTL, moving the memory's expiry in place (no new version).
    - Labels may hold what LangGraph allows (a tab, a trailing newline): what a UMO scope id cannot
      hold is escaped inside the store (``%09``), and comes back as it was. A namespace too long for a
      scope id is an ``InvalidNamespaceError``.
    - ``infer_updates=True`` lets a new item supersede the items whose facts it states anew (UMO's
      update inference), which then leave ``get`` and search; by default keys are independent.
    - **Concurrent writers.** A put that another put or delete of the same key overtook between its
      read and its write reads and writes again, so the last put wins. UMO has no conditional
      capture: two first puts of a new key at the same moment both capture it; ``get`` then gives
      the newer, a search lists both, ``delete`` erases both.

    UMO's errors (``ValidationError`` with its ``detail``, ...) pass through.
    """

    supports_ttl = True

    def __init__(
        self,
        client: UMOClient,
        *,
        scope: ScopeField = "user_id",
        source: str = "langgraph",
        infer_updates: bool = False,
        ttl: Optional[TTLConfig] = None,
    ) -> None:
        if scope not in _KINDS:
            raise ValueError(f"scope: must be one of {', '.join(_KINDS)} (got {scope!r})")
        self.client = client
        self.scope = scope
        self.source = source
        self.infer_updates = infer_updates
        # `default_ttl` and `refresh_on_read` are applied by BaseStore's methods; UMO's sweeper
        # erases expired memories (UMO_EXPIRY_SWEEP_SECONDS), so `sweep_interval_minutes` is unused.
        self.ttl_config = ttl

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # The client is synchronous (the standard library's HTTP): its calls run off the event loop.
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"unknown operation: {type(op).__name__}")

    def _in(self, namespace: tuple[str, ...]) -> ScopeFields:
        scope = scope_id(namespace)
        if len(scope) > SCOPE_ID_LENGTH:
            raise InvalidNamespaceError(
                f"Namespace {namespace} is too long for UMO: as a scope id it has {len(scope)} characters,"
                f" at most {SCOPE_ID_LENGTH} are allowed."
            )
        return self._scoped(scope)

    def _scoped(self, scope: str) -> ScopeFields:
        if self.scope == "agent_id":
            return {"agent_id": scope}
        return {"session_id": scope} if self.scope == "session_id" else {"user_id": scope}

    def _current(self, namespace: tuple[str, ...], key: str) -> Optional[MemorySummary]:
        if not fits_metadata(key):
            # The key is kept in the memory's metadata: "a\x00b" would come back as "ab".
            raise ValueError(f"key: must not contain U+0000 or a surrogate code point (got {key!r})")
        page = self.client.list(limit=1, source=self.source, metadata={KEY: key}, **self._in(namespace))
        return page.items[0] if page.items else None

    def _item(self, memory: Memory | Match) -> Item:
        """The item a memory holds: `get`'s memory, or a search's match, which carries the same."""
        text = memory.content_text if isinstance(memory, Memory) else memory.content
        return Item(
            value=decode(text, _text(memory.metadata.get(FIELD))),
            key=str(memory.metadata.get(KEY)),
            namespace=namespace_of(str(getattr(memory, self.scope))),
            created_at=_time(_text(memory.metadata.get(CREATED)) or memory.timestamp),
            updated_at=_time(memory.timestamp),
        )

    def _get(self, op: GetOp) -> Optional[Item]:
        if not op.namespace:
            return None  # no item has the empty namespace (LangGraph's put refuses it)
        current = self._current(op.namespace, op.key)
        if current is None:
            return None
        try:
            memory = self.client.get(current.umo_id)
        except NotFoundError:
            return None  # deleted since it was listed: the get comes after the delete
        if op.refresh_ttl:
            self._refresh(memory)
        return self._item(memory)

    def _refresh(self, memory: Memory | Match) -> None:
        """Restarts an item's TTL, as LangGraph's ``refresh_ttl`` asks: its expiry moved in place."""
        minutes = memory.metadata.get(TTL)
        if isinstance(minutes, (int, float)) and not isinstance(minutes, bool):
            try:
                self.client.update(memory.umo_id, expires_at=_expiry(minutes))
            except (NotFoundError, ValidationError):
                # Put anew (with its own TTL) or deleted since it was read: nothing left to restart.
                if not self._gone(memory.umo_id):
                    raise

    def _gone(self, umo_id: str) -> bool:
        """Whether a memory is no longer its item's current version: erased, or superseded."""
        try:
            return self.client.get(umo_id).superseded_by is not None
        except NotFoundError:
            return True

    def _update(self, umo_id: str, **changes: Any) -> None:
        """Updates the memory a put read; ``_Raced`` when another writer superseded or erased it since."""
        try:
            self.client.update(umo_id, **changes)
        except (NotFoundError, ValidationError) as refused:
            if self._gone(umo_id):
                raise _Raced(refused) from refused
            raise

    def _put(self, op: PutOp) -> None:
        # UMO has no conditional write: another put or delete of the same key (another thread, or
        # process) may supersede or erase the memory this put read before it writes, and UMO then
        # refuses the update. The put reads and writes again, after that writer, as a later put
        # would: the last put wins, as in LangGraph's own stores.
        for attempt in range(1, PUT_ATTEMPTS + 1):
            try:
                self._put_once(op)
                return
            except _Raced as raced:
                if attempt == PUT_ATTEMPTS:
                    raise raced.refused from raced

    def _put_once(self, op: PutOp) -> None:
        current = self._current(op.namespace, op.key)
        if op.value is None:
            if current is not None:
                self.client.forget_all(source=self.source, metadata={KEY: op.key}, **self._in(op.namespace))
            return
        text, field = encode(op.value)
        metadata: dict[str, Any] = {KEY: op.key} if field is None else {KEY: op.key, FIELD: field}
        if op.index is False:
            metadata[UNINDEXED] = True
        if op.ttl is not None:
            metadata[TTL] = op.ttl
        # A put starts the item's TTL anew, or ends it when the new put has none.
        expires_at = None if op.ttl is None else _expiry(op.ttl)
        if current is None:
            self.client.capture(
                text,
                source=self.source,
                metadata=metadata,
                infer_updates=self.infer_updates,
                dedupe=False,
                expires_at=expires_at,
                **self._in(op.namespace),
            )
            return
        try:
            old = self.client.get(current.umo_id)
        except NotFoundError as erased:
            raise _Raced(erased) from erased
        if old.content_text == text and {k: v for k, v in old.metadata.items() if k != CREATED} == metadata:
            if expires_at is not None or old.expires_at is not None:
                self._update(old.umo_id, expires_at=expires_at, never_expires=expires_at is None)
            return
        metadata[CREATED] = _text(old.metadata.get(CREATED)) or old.timestamp
        self._update(
            old.umo_id,
            content=None if old.content_text == text else text,
            metadata=None if old.metadata == metadata else metadata,
            timestamp=datetime.now(timezone.utc),
            expires_at=expires_at,
            never_expires=expires_at is None and old.expires_at is not None,
        )

    def _under(self, prefix: tuple[str, ...]) -> Optional[FilterExpression]:
        """The filter of the scopes at or under a namespace prefix; None when there are none."""
        if not prefix:
            return {self.scope: "*"}
        ids = [
            scope
            for scope in self._scope_ids(scope_id(prefix))
            if scope == scope_id(prefix) or scope.startswith(scope_id(prefix) + ".")
        ]
        if not ids:
            return None
        if len(ids) > SCOPES_PER_SEARCH:
            raise ValueError(
                f"namespace_prefix: {len(ids)} namespaces lie under {prefix}; a search reaches at most"
                f" {SCOPES_PER_SEARCH} (search a longer prefix)"
            )
        # UMO's `in` takes 100 values: more namespaces are an OR of lists.
        lists = [ids[at : at + 100] for at in range(0, len(ids), 100)]
        return {self.scope: {"in": lists[0]}} if len(lists) == 1 else {"OR": [{self.scope: {"in": l}} for l in lists]}

    def _scope_ids(self, prefix: Optional[str]) -> Iterator[str]:
        offset = 0
        while True:
            page = self.client.scopes(kind=_KINDS[self.scope], prefix=prefix, limit=100, offset=offset)
            yield from (scope.id for scope in page.scopes)
            offset += len(page.scopes)
            if not page.has_more or not page.scopes:
                return

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.filter:
            check_filter(op.filter)
        if op.limit <= 0:
            return []
        within = self._under(op.namespace_prefix)
        if within is None:
            return []
        if op.query:
            return self._search_query(op, op.query, within)
        found: list[SearchItem] = []
        skip = op.offset
        for summary in self.client.iterate(limit=100, source=self.source, filters=within):
            if not op.filter and skip > 0:
                skip -= 1  # no filter: no need to read what is skipped
                continue
            try:
                memory = self.client.get(summary.umo_id)
            except NotFoundError:
                continue  # deleted since it was listed
            item = self._item(memory)
            if not admits(op.filter, item.value):
                continue
            if skip > 0:
                skip -= 1
                continue
            if op.refresh_ttl:
                self._refresh(memory)
            found.append(_ranked(item, None))
            if len(found) >= op.limit:
                break
        return found

    def _search_query(self, op: SearchOp, query: str, within: FilterExpression) -> list[SearchItem]:
        if op.offset + op.limit > SEARCH_LIMIT:
            raise ValueError(
                f"limit: with a query, offset + limit must be at most {SEARCH_LIMIT}"
                f" (UMO ranks at most {SEARCH_LIMIT} memories; got {op.offset} + {op.limit})"
            )
        wanted = SEARCH_LIMIT if op.filter else op.offset + op.limit
        searchable: FilterExpression = {"AND": [within, {"NOT": {"metadata": {UNINDEXED: {"exists": True}}}}]}
        matches = self.client.ask(query, limit=wanted, source=self.source, filters=searchable)
        found = []
        for match in matches:
            item = self._item(match)
            if admits(op.filter, item.value):
                found.append((match, _ranked(item, match.score)))
        page = found[op.offset : op.offset + op.limit]
        if op.refresh_ttl:
            for match, _ in page:
                self._refresh(match)
        return [item for _, item in page]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        literal = next((c.path for c in conditions if c.match_type == "prefix"), ())
        known = tuple(label for label in _until_wildcard(literal))
        namespaces = set()
        for scope in self._scope_ids(scope_id(known) if known else None):
            namespace = namespace_of(scope)
            if not all(namespace_matches(c, namespace) for c in conditions):
                continue
            if not self.client.list(limit=1, source=self.source, **self._scoped(scope)).items:
                continue  # a scope holding only other memories is not a namespace of the store
            namespaces.add(namespace if op.max_depth is None else namespace[: op.max_depth])
        return sorted(namespaces)[op.offset : op.offset + op.limit]


def _expiry(minutes: float) -> datetime:
    """When an item put now with a TTL of ``minutes`` expires."""
    return datetime.now(timezone.utc) + timedelta(minutes=minutes)


def _until_wildcard(path: Iterable[str]) -> Iterator[str]:
    for label in path:
        if label == "*":
            return
        yield label


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _ranked(item: Item, score: Optional[float]) -> SearchItem:
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)
