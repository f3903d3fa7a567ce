"""The UMO API client."""

from __future__ import annotations

import builtins
import contextlib
import http.client
import json
import mimetypes
import os
import socket
import urllib.parse
import uuid
from pathlib import Path
from typing import IO, Any, Generator, Iterable, Iterator, Mapping, Optional, Sequence, Union, cast

from ._fields import MetadataValue
from ._requests import (
    BatchInput,
    FilterExpression,
    MetadataMatch,
    Timestamp,
    batch_item,
    capture_fields,
    check_options,
    selection,
    some,
    text_fields,
    update_fields,
)
from ._transport import BodyData, StreamedBody, Transport, check_idempotency_key, multipart
from .errors import APIError, IncompleteExportError
from .models import BatchItem, Captured, Explanation, Match, Memory, MemoryPage, MemorySummary, ScopePage, Uploaded
from .results import Account, Answer, CategoryList, Comparison, Models, Webhook
from .signed import ChainPage, DeletionReceipt, Proof
from .transfers import ExportEnd, ExportedMemory, ExportHeader, ExportLine, ImportSummary, export_line, line_bytes
from .versions import ErasureReceipt, MemoryHistory


def _memory_path(umo_id: str, suffix: str = "") -> str:
    return f"/v1/memories/{urllib.parse.quote(umo_id, safe='')}{suffix}"


ImportData = Union[
    bytes, str, "os.PathLike[str]", IO[bytes], Iterable[Union[bytes, ExportHeader, ExportedMemory, ExportEnd, Mapping[str, Any]]]
]
"""What ``import_memories`` reads: the text itself (``bytes`` or ``str``), a file (a path or a
binary file object), or an iterable of ``bytes`` chunks, export lines or JSON objects (one a line)."""

# What a read of a streamed answer fails with when the connection fails midway.
_READ_FAILURES = (socket.timeout, TimeoutError, ConnectionError, http.client.HTTPException, OSError)


def _chunks(items: Iterable[Any]) -> Iterator[bytes]:
    """An iterable's bytes as they are; export lines and JSON objects as one line each."""
    for item in items:
        if isinstance(item, (bytes, bytearray, memoryview)):
            yield bytes(item)
        elif isinstance(item, (ExportHeader, ExportedMemory, ExportEnd, Mapping)):
            yield line_bytes(item)
        else:
            raise TypeError(f"import_memories reads bytes, export lines or JSON objects, not {type(item).__name__}")


def _import_body(data: ImportData) -> tuple[StreamedBody, str]:
    """The body of an import, opened anew for each attempt when it can be, and its content type."""
    ndjson = "application/x-ndjson"
    if isinstance(data, str):
        data = data.encode("utf-8")
    if isinstance(data, (bytes, bytearray, memoryview)):
        whole = bytes(data)
        return StreamedBody(lambda: contextlib.nullcontext(whole), replayable=True, idempotent=True), ndjson
    if isinstance(data, os.PathLike):
        path = Path(data)
        if not path.is_file():
            raise FileNotFoundError(f"no file to import at {path}")
        kind = "application/json" if path.suffix.lower() == ".json" else ndjson
        return StreamedBody(lambda: path.open("rb"), replayable=True, idempotent=True), kind
    if hasattr(data, "read"):
        file = cast(IO[bytes], data)
        start = file.tell() if file.seekable() else None

        def rewound() -> contextlib.nullcontext[BodyData]:
            if start is not None:
                file.seek(start)
            return contextlib.nullcontext(file)

        return StreamedBody(rewound, replayable=start is not None, idempotent=True), ndjson
    chunks = _chunks(data)
    return StreamedBody(lambda: contextlib.nullcontext(chunks), replayable=False), ndjson


def _key(idempotency_key: Optional[str]) -> str:
    """The caller's idempotency key (checked), or a new one for this call."""
    return str(uuid.uuid4()) if idempotency_key is None else check_idempotency_key(idempotency_key)


class UMOClient:
    """A client of the UMO API. The nine verbs of the spec — ``capture``, ``ask`` (search),
    ``get``, ``list``, ``verify``, ``explain``, ``forget``, ``upload``, ``batch`` — and the other
    calls: ``answer`` (``/v1/ask``), ``compare`` (``/v1/match``), ``update`` (``PATCH
    /v1/memories/{id}``), ``history``, ``scopes`` (``/v1/scopes``), ``forget_all``,
    ``export_memories`` / ``export_to`` (``/v1/export``), ``import_memories`` (``/v1/import``),
    ``account``, ``chain`` (``/v1/account/chain``), ``models``, ``health``, ``signing_keys``.

    ``api_key`` defaults to ``UMO_API_KEY``, ``base_url`` to ``UMO_BASE_URL`` then
    ``http://127.0.0.1:8787``. ``timeout`` (seconds) applies to each attempt; a 429 or 503 is
    retried ``max_retries`` times, waiting as ``Retry-After`` says (at most ``max_retry_delay``)
    or else a jittered exponential backoff.

    Captures (``capture``, ``batch``, ``upload``, ``update``) are idempotent across retries: each
    call sends an ``Idempotency-Key`` header (a new UUID, or the ``idempotency_key`` you pass) on
    its first attempt and on every retry, so the service stores it once however many attempts
    reach it. Such calls, and GETs, are also retried when the connection fails or times out; other
    calls (e.g. ``answer``, ``forget``) then raise :class:`APIError` (``status`` None) at once. Pass your own
    ``idempotency_key`` (kept by the service for 24 hours, per account) to make a retry of your own
    — after a crash, say — safe too: the same key and request get the first answer again; the same
    key with another request is refused (:class:`ValidationError`, 422).

    A capture may say who the memory belongs to inside the account (``user_id``, ``agent_id``,
    ``session_id``: each 1 to 200 printable characters, no whitespace at either end), tag it
    (``metadata``: a flat dict of at most 32 keys) and replace older memories (``supersedes``: their
    ids; ``infer_updates``: also those whose facts it states anew, on by default). A capture that
    repeats a current memory — the same text, source, scope and metadata, at the same time or with none
    given — stores nothing and answers that memory, with ``duplicate_of`` naming it (``dedupe=False``
    stores it again). The reads (``list``, ``iterate``, ``ask``, ``answer``, ``forget_all``) take
    the selection: every field given narrows it (AND) — the scope fields, ``source``, ``metadata``
    (each key equal to its value, or to any of a list), ``after`` / ``before`` (the content's time),
    ``include_superseded`` (default False) and ``filters`` (a filter expression, see
    :data:`umo_client.FilterExpression`). ``scopes`` lists the end users, agents and conversations
    that hold current memories.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        max_retry_delay: float = 30.0,
    ) -> None:
        self.api_key = api_key if api_key is not None else os.environ.get("UMO_API_KEY")
        self.base_url = (base_url or os.environ.get("UMO_BASE_URL") or "http://127.0.0.1:8787").rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self._transport = Transport(self.base_url, self.api_key, timeout, max_retries, max_retry_delay)

    def capture(
        self,
        content: str,
        *,
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
        idempotency_key: Optional[str] = None,
    ) -> Captured:
        """Captures one text as a memory (``POST /v1/process``). Idempotent across retries: the
        call sends ``idempotency_key`` (1 to 255 visible ASCII characters; a new UUID when not
        given) as its ``Idempotency-Key``; a repeat with the same key and arguments within 24 hours
        returns the first capture (same ``umo_id`` and receipt) and stores nothing. The result's
        ``supersedes`` lists the memories it replaced (an unknown id in ``supersedes`` is a
        :class:`NotFoundError` and nothing is stored). A repeat of a current memory (same text,
        scope and metadata; same or no timestamp) stores nothing and answers that memory, its id in
        ``duplicate_of`` too, unless ``dedupe=False`` (default True on the service). ``expires_at``
        (or ``ttl`` in seconds): the memory leaves list, search and answers then, and is erased with
        a signed receipt; ``immutable=True``: later updates and supersessions of it are refused.
        ``categories`` files it under these names as given; ``custom_categories`` (``{"name": …,
        "description": …}`` each) has them chosen from that list instead of the account's."""
        fields = capture_fields(
            source, timestamp, user_id, agent_id, session_id, metadata, supersedes, infer_updates, dedupe,
            expires_at, ttl, immutable, categories, custom_categories,
        )
        return Captured.from_raw(
            self._transport.send(
                "POST", "/v1/process", json_body={"content": content, **fields}, idempotency_key=_key(idempotency_key)
            )
        )

    def ask(
        self,
        query: str,
        *,
        limit: Optional[int] = None,
        source: Optional[str] = None,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        metadata: Optional[MetadataMatch] = None,
        after: Optional[Timestamp] = None,
        before: Optional[Timestamp] = None,
        include_superseded: Optional[bool] = None,
        filters: Optional[FilterExpression] = None,
        rerank: Optional[bool] = None,
    ) -> builtins.list[Match]:
        """Searches the memories of the selection, best first (``POST /v1/memories/query``); no
        LLM is involved. ``rerank=True`` has the server's cross-encoder reread the best candidates."""
        chosen = selection(user_id, agent_id, session_id, source, metadata, after, before, include_superseded, filters)
        body = {"query": query, **some(limit=limit, rerank=rerank), **chosen}
        data = self._transport.send("POST", "/v1/memories/query", json_body=body)
        results = data.get("results")
        return [Match.from_raw(r) for r in results] if isinstance(results, builtins.list) else []

    def update(
        self,
        umo_id: str,
        *,
        content: Optional[str] = None,
        metadata: Optional[Mapping[str, MetadataValue]] = None,
        timestamp: Optional[Timestamp] = None,
        expires_at: Optional[Timestamp] = None,
        ttl: Optional[int] = None,
        never_expires: bool = False,
        idempotency_key: Optional[str] = None,
    ) -> Captured:
        """Changes a memory's text, its metadata (replaced whole) or both (``PATCH
        /v1/memories/{id}``): a new version, captured in the same scope, supersedes it, and the
        history and the chain keep both — nothing is edited in place. Returns the new version's
        capture, whose ``supersedes`` names the old one. ``timestamp`` defaults to the memory's own
        when only metadata changes, else now. A superseded memory (change the current one) or a
        change that changes nothing — or neither ``content`` nor ``metadata`` given — is a
        :class:`ValidationError` (422); an unknown id a :class:`NotFoundError`. Idempotent across
        retries, like ``capture``. ``expires_at``, ``ttl`` or ``never_expires=True`` alone move the
        memory's expiry in place (the same memory, no new version); with new text or metadata, the
        new version expires then (default: as the old one)."""
        body = update_fields(content, metadata, timestamp, expires_at, ttl, never_expires)
        return Captured.from_raw(
            self._transport.send("PATCH", _memory_path(umo_id), json_body=body, idempotency_key=_key(idempotency_key))
        )

    def scopes(
        self,
        *,
        kind: Optional[str] = None,
        prefix: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> ScopePage:
        """A page of the account's end users, agents and conversations that hold current memories,
        most recently active first, each with how many it holds and the newest one's time (``GET
        /v1/scopes``). ``kind``: only ``"user"``, ``"agent"`` or ``"session"`` (default all three);
        ``prefix``: only ids starting with it; ``limit`` 1 to 100 (default 20)."""
        query = some(kind=kind, prefix=prefix, limit=limit, offset=offset)
        return ScopePage.from_raw(self._transport.send("GET", "/v1/scopes", query=query))

    def get(self, umo_id: str) -> Memory:
        """One memory with everything extracted from it (``GET /v1/memories/{id}``)."""
        return Memory.from_raw(self._transport.send("GET", _memory_path(umo_id)))

    def history(self, umo_id: str) -> MemoryHistory:
        """A memory's line of versions, oldest first: every memory it superseded or that
        superseded it, itself included (``GET /v1/memories/{id}/history``)."""
        return MemoryHistory.from_raw(self._transport.send("GET", _memory_path(umo_id, "/history")))

    def list(
        self,
        *,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        source: Optional[str] = None,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        metadata: Optional[MetadataMatch] = None,
        after: Optional[Timestamp] = None,
        before: Optional[Timestamp] = None,
        include_superseded: Optional[bool] = None,
        filters: Optional[FilterExpression] = None,
    ) -> MemoryPage:
        """A page of the selection's memories, newest first (``GET /v1/memories``); ``metadata``
        and ``filters`` travel as JSON in the query string."""
        chosen = selection(user_id, agent_id, session_id, source, metadata, after, before, include_superseded, filters)
        query = text_fields({**some(limit=limit, offset=offset), **chosen})
        return MemoryPage.from_raw(self._transport.send("GET", "/v1/memories", query=query))

    def iterate(
        self,
        *,
        limit: Optional[int] = None,
        source: Optional[str] = None,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        metadata: Optional[MetadataMatch] = None,
        after: Optional[Timestamp] = None,
        before: Optional[Timestamp] = None,
        include_superseded: Optional[bool] = None,
        filters: Optional[FilterExpression] = None,
    ) -> Iterator[MemorySummary]:
        """Every memory of the selection (as ``list`` takes it), fetched page by page as the loop asks."""
        offset = 0
        while True:
            page = self.list(
                limit=limit, offset=offset, source=source, user_id=user_id, agent_id=agent_id, session_id=session_id,
                metadata=metadata, after=after, before=before, include_superseded=include_superseded, filters=filters,
            )
            yield from page.items
            offset += len(page.items)
            if not page.has_more or not page.items:
                return

    def verify(self, umo_id: str) -> Proof:
        """The service's proof that a memory is unchanged since capture (``GET …/proof``); a
        superseded memory's proof also carries the signed entry naming its successor."""
        return Proof.from_raw(self._transport.send("GET", _memory_path(umo_id, "/proof")))

    def explain(self, umo_id: str, *, query: Optional[str] = None) -> Explanation:
        """What was captured and extracted, and why — and, given a ``query``, why it matches it
        (``GET …/explain``)."""
        return Explanation.from_raw(
            self._transport.send("GET", _memory_path(umo_id, "/explain"), query=some(query=query))
        )

    def forget(self, umo_id: str) -> DeletionReceipt:
        """Deletes a memory and returns the signed receipt (``DELETE /v1/memories/{id}``)."""
        return DeletionReceipt.from_raw(self._transport.send("DELETE", _memory_path(umo_id)))

    def forget_many(self, umo_ids: Sequence[str]) -> ErasureReceipt:
        """Deletes 1 to 1,000 memories by id as one unit (``POST /v1/memories/delete``), superseded
        ones too, with one signed erasure receipt naming them; an id that is not one of the
        account's memories deletes none (:class:`NotFoundError`)."""
        if isinstance(umo_ids, str):
            raise TypeError("umo_ids is a list of memory ids, not one id")
        return ErasureReceipt.from_raw(self._transport.send("POST", "/v1/memories/delete", json_body={"umo_ids": list(umo_ids)}))

    def update_many(
        self, changes: Sequence[Mapping[str, Any]], *, idempotency_key: Optional[str] = None
    ) -> builtins.list[BatchItem]:
        """Changes 1 to 100 memories as one unit (``POST /v1/memories/update``): each a mapping with
        ``umo_id`` and ``content``, ``metadata`` or both (and ``timestamp``, ``expires_at`` or
        ``ttl``), as ``update`` takes them. Every new version is stored, or — one change refused, a
        :class:`ValidationError` naming ``updates.<i>`` — none. Idempotent across retries."""
        updates = []
        for change in changes:
            check_options("update_many item", change, ("umo_id", "content", "metadata", "timestamp", "expires_at", "ttl"))
            fields = {k: change[k] for k in ("content", "metadata", "timestamp", "expires_at", "ttl") if k in change}
            updates.append({"umo_id": change["umo_id"], **update_fields(**fields)})
        data = self._transport.send(
            "POST", "/v1/memories/update", json_body={"updates": updates}, idempotency_key=_key(idempotency_key)
        )
        results = data.get("results")
        return [BatchItem.from_raw(r) for r in results] if isinstance(results, builtins.list) else []

    def forget_all(
        self,
        *,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        source: Optional[str] = None,
        metadata: Optional[MetadataMatch] = None,
        after: Optional[Timestamp] = None,
        before: Optional[Timestamp] = None,
        filters: Optional[FilterExpression] = None,
    ) -> ErasureReceipt:
        """Deletes every memory of an end user, agent or conversation — superseded ones too —
        narrowed by the other fields if given, and returns one signed receipt naming them all
        (``DELETE /v1/memories?user_id=…``; check it with ``verify_receipt``). At least one of
        ``user_id``, ``agent_id``, ``session_id`` is required (else :class:`ValueError`, before any
        request), so the whole account is never erased by accident."""
        if user_id is None and agent_id is None and session_id is None:
            raise ValueError("forget_all needs a scope: user_id, agent_id or session_id (at least one)")
        chosen = selection(user_id, agent_id, session_id, source, metadata, after, before, None, filters)
        return ErasureReceipt.from_raw(self._transport.send("DELETE", "/v1/memories", query=text_fields(chosen)))

    def export_memories(
        self,
        *,
        source: Optional[str] = None,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        metadata: Optional[MetadataMatch] = None,
        after: Optional[Timestamp] = None,
        before: Optional[Timestamp] = None,
        filters: Optional[FilterExpression] = None,
        include_superseded: bool = True,
        embeddings: bool = False,
        after_id: Optional[str] = None,
    ) -> Generator[ExportLine, None, None]:
        """The selection's memories (as ``list`` takes it; superseded ones included unless
        ``include_superseded=False``) as the lines of an export (``GET /v1/export``), read as they
        arrive: an :class:`ExportHeader` (the account, the embedder, the signing keys every proof
        verifies against), one :class:`ExportedMemory` per memory in capture order (its vectors too
        with ``embeddings=True``), then an :class:`ExportEnd` counting them.

        The request is sent when the loop starts; a refused one raises then (e.g. a malformed
        filter: :class:`ValidationError`). An export that ends before its last line raises
        :class:`IncompleteExportError`, whose ``after_id`` resumes it (``after_id=``: only the
        memories captured after that one). Finish the loop, or ``close()`` the generator, to let the
        connection go."""
        chosen = selection(user_id, agent_id, session_id, source, metadata, after, before, include_superseded, filters)
        query = text_fields({**chosen, "embeddings": embeddings, **some(after_id=after_id)})
        for _, raw in self._export_lines(query):
            line = export_line(raw)
            if line is not None:
                yield line

    def export_to(
        self,
        target: Union[str, "os.PathLike[str]", IO[bytes]],
        *,
        source: Optional[str] = None,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        metadata: Optional[MetadataMatch] = None,
        after: Optional[Timestamp] = None,
        before: Optional[Timestamp] = None,
        filters: Optional[FilterExpression] = None,
        include_superseded: bool = True,
        embeddings: bool = False,
        after_id: Optional[str] = None,
    ) -> int:
        """Writes an export (``export_memories``, same arguments) to a file — a path, written
        anew, or a binary file object — line by line as it arrives, each line as the service sent
        it, and returns how many memories it holds. When the export ends early
        (:class:`IncompleteExportError`) the file keeps the lines received, without the last one
        (an import of it then reports ``complete=False``)."""
        chosen = selection(user_id, agent_id, session_id, source, metadata, after, before, include_superseded, filters)
        query = text_fields({**chosen, "embeddings": embeddings, **some(after_id=after_id)})
        with (
            open(target, "wb") if isinstance(target, (str, os.PathLike)) else contextlib.nullcontext(target)
        ) as file:
            memories = 0
            for text, raw in self._export_lines(query):
                file.write(text)
                if raw.get("kind") == "memory":
                    memories += 1
            return memories

    def _export_lines(self, query: Mapping[str, str]) -> Iterator[tuple[bytes, dict[str, Any]]]:
        """The lines of ``GET /v1/export`` as sent (newline-terminated) and parsed, checked: the
        header first, the end last, counting the memories between."""
        with self._transport.stream("/v1/export", query=query, accept="application/x-ndjson") as response:
            request_id = response.headers.get("x-request-id")
            memories, last, ended, first = 0, None, False, True

            def cut_short(why: str) -> IncompleteExportError:
                resume = "" if last is None else f"; resume it with after_id={last}"
                return IncompleteExportError(f"the export {why} after {memories} memories{resume}", last, memories, request_id)

            while not ended:
                try:
                    text = response.readline()
                except _READ_FAILURES as cause:
                    raise cut_short(f"was cut short ({cause!r})") from cause
                if not text:
                    raise cut_short("ended before its last line")
                if not text.strip():
                    continue
                try:
                    raw = json.loads(text)
                except ValueError:
                    raise APIError(f"the export sent a line that is not JSON: {text[:200]!r}", request_id=request_id) from None
                kind = raw.get("kind") if isinstance(raw, dict) else None
                if (kind == "umo-export") != first:
                    where = "does not open with its header" if first else "sent a second header"
                    raise APIError(f"the export {where}: {text[:200]!r}", request_id=request_id)
                first = False
                if kind == "memory":
                    memories, last = memories + 1, str(raw.get("umo_id", ""))
                elif kind == "end":
                    ended = True
                    if raw.get("memories") != memories:
                        raise cut_short(f"counted {raw.get('memories')} memories in its last line but sent {memories},")
                yield (text if text.endswith(b"\n") else text + b"\n"), raw

    def import_memories(
        self, data: ImportData, *, format: str = "auto", on_error: str = "skip", infer_updates: bool = False
    ) -> ImportSummary:
        """Imports memories (``POST /v1/import``), the body sent as it is read: an export of UMO
        (``export_memories`` / ``export_to``: each memory's proof is checked against the export's
        signing keys) or Mem0's (``get_all`` or its export as JSON, or one memory a line).
        ``data`` is the text itself (``bytes`` or ``str`` — a ``str`` is never a file name), a
        file (a ``pathlib.Path``, or a binary file object, read from where it stands), or an
        iterable of ``bytes`` chunks, of export lines (``export_memories`` of another account or
        service, streamed straight across) or of JSON objects (one a line).

        ``format``: ``auto`` (default), ``umo`` or ``mem0``. ``on_error``: a line that is no
        memory, or whose proof fails, is reported and skipped (``skip``) or stops the import
        (``stop``). ``infer_updates``: let imported memories supersede those their facts outdate
        (default False: an export's own supersessions are restored as they were). Each memory is
        captured anew and keeps where it came from (``Memory.imported_from``); an original imported
        before is not stored again, so an import cut short is simply run again — and, sent from
        bytes, a path or a seekable file, is retried like a GET."""
        body, content_type = _import_body(data)
        query = text_fields({"format": format, "on_error": on_error, "infer_updates": infer_updates})
        return ImportSummary.from_raw(
            self._transport.send("POST", "/v1/import", query=query, content_type=content_type, streamed=body)
        )

    def upload(
        self,
        path: Union[str, "os.PathLike[str]"],
        *,
        source: Optional[str] = None,
        content_type: Optional[str] = None,
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
        idempotency_key: Optional[str] = None,
    ) -> Uploaded:
        """Captures a file: text, Markdown, HTML, JSON, CSV, PDF, image or audio metadata
        (``POST /v1/upload``). The service detects the format from the bytes. The other fields are
        a capture's (sent as form fields, ``metadata`` and ``supersedes`` as JSON). Idempotent
        across retries, like ``capture``: the same ``idempotency_key`` (a new UUID when not given)
        with the same file, name, type and fields returns the first upload again."""
        key = _key(idempotency_key)
        fields = text_fields(
            capture_fields(
                source, None, user_id, agent_id, session_id, metadata, supersedes, infer_updates, dedupe,
                expires_at, ttl, immutable,
            )
        )
        file = Path(path)
        media_type = content_type or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        body, form_type = multipart(fields, "file", file.name, file.read_bytes(), media_type)
        return Uploaded.from_raw(
            self._transport.send("POST", "/v1/upload", body=body, content_type=form_type, idempotency_key=key)
        )

    def batch(self, items: Sequence[BatchInput], *, idempotency_key: Optional[str] = None) -> builtins.list[BatchItem]:
        """Captures up to 100 texts in one call (``POST /v1/batch``); one result per item, in order.
        An item is a text or a mapping with ``content`` and any of ``capture``'s fields (``source``,
        ``timestamp``, ``user_id``, ``agent_id``, ``session_id``, ``metadata``, ``supersedes``,
        ``infer_updates``, ``dedupe``; another key is a :class:`ValidationError` naming it, before
        any request). An item repeating a current memory is answered with it (``duplicate_of``).
        The valid items are stored together or (the service unavailable, 503) not at all. Idempotent across retries, like
        ``capture``: the same ``idempotency_key`` (a new UUID when not given) with the same items
        returns the first results again and stores nothing more."""
        key = _key(idempotency_key)
        body = [batch_item(item) for item in items]
        results = self._transport.send("POST", "/v1/batch", json_body={"items": body}, idempotency_key=key).get("results")
        return [BatchItem.from_raw(r) for r in results] if isinstance(results, builtins.list) else []

    def answer(
        self,
        question: str,
        *,
        model: Optional[str] = None,
        provider_key: Optional[str] = None,
        context_size: Optional[int] = None,
        source: Optional[str] = None,
        user_id: Optional[str] = None,
        agent_id: Optional[str] = None,
        session_id: Optional[str] = None,
        metadata: Optional[MetadataMatch] = None,
        after: Optional[Timestamp] = None,
        before: Optional[Timestamp] = None,
        include_superseded: Optional[bool] = None,
        filters: Optional[FilterExpression] = None,
    ) -> Answer:
        """An answer written from the selection's memories, with ``[n]`` citations (``POST
        /v1/ask``). Cloud models run with your own ``provider_key``, sent to the service and never
        stored."""
        chosen = selection(user_id, agent_id, session_id, source, metadata, after, before, include_superseded, filters)
        body = {"question": question, **some(model=model, provider_key=provider_key, context_size=context_size), **chosen}
        return Answer.from_raw(self._transport.send("POST", "/v1/ask", json_body=body))

    def compare(
        self, source_id: str, candidate_id: str, *, explain: Optional[bool] = None, threshold: Optional[float] = None
    ) -> Comparison:
        """How alike two memories are (``POST /v1/match``)."""
        body = some(source_ulid=source_id, candidate_ulid=candidate_id, explain=explain, threshold=threshold)
        return Comparison.from_raw(self._transport.send("POST", "/v1/match", json_body=body))

    def account(self) -> Account:
        """The account and key this client calls with (``GET /v1/account``)."""
        return Account.from_raw(self._transport.send("GET", "/v1/account"))

    def categories(self) -> CategoryList:
        """The categories new memories are filed under: the account's own list, or Mem0's default
        fifteen (``origin``) (``GET /v1/account/categories``)."""
        return CategoryList.from_raw(self._transport.send("GET", "/v1/account/categories"))

    def set_categories(self, categories: Optional[Sequence[Mapping[str, str]]]) -> CategoryList:
        """Sets the account's categories, ``{"name": …, "description": …}`` each (None: back to the
        default list), for the memories captured from now on (``PUT /v1/account/categories``)."""
        body = {"categories": None if categories is None else [dict(c) for c in categories]}
        return CategoryList.from_raw(self._transport.send("PUT", "/v1/account/categories", json_body=body))

    def create_webhook(self, url: str, *, name: Optional[str] = None, events: Optional[Sequence[str]] = None) -> Webhook:
        """Adds a webhook (``POST /v1/webhooks``): the events it hears (default all: memory.added,
        memory.updated, memory.superseded, memory.deleted, memory.expired) are posted to ``url`` in
        chain order, at least once, signed ``umo-signature: t=<unix>,v1=<hex HMAC-SHA256 of
        "<t>.<body>">`` with the ``secret`` this answer carries (and no other does)."""
        body: dict[str, Any] = {"url": url, **some(name=name), **({} if events is None else {"events": list(events)})}
        return Webhook.from_raw(self._transport.send("POST", "/v1/webhooks", json_body=body))

    def webhooks(self) -> builtins.list[Webhook]:
        """The account's webhooks and how their deliveries stand (``GET /v1/webhooks``)."""
        listed = self._transport.send("GET", "/v1/webhooks").get("webhooks")
        return [Webhook.from_raw(w) for w in listed] if isinstance(listed, builtins.list) else []

    def delete_webhook(self, webhook_id: str) -> Webhook:
        """Deletes a webhook: nothing more is posted to it (``DELETE /v1/webhooks/{id}``)."""
        return Webhook.from_raw(self._transport.send("DELETE", f"/v1/webhooks/{urllib.parse.quote(webhook_id, safe='')}"))

    def chain(self, *, limit: Optional[int] = None, before: Optional[int] = None) -> ChainPage:
        """A page of the account's hash chain, newest first (``GET /v1/account/chain``): its
        capture, supersession and deletion entries as signed, to check offline with
        ``verify_entry`` and the pinned keys. ``limit`` is 1 to 100 (default 50); ``before`` (the
        previous page's ``next_before``) asks for the entries with a lower ``seq``."""
        return ChainPage.from_raw(self._transport.send("GET", "/v1/account/chain", query=some(limit=limit, before=before)))

    def models(self) -> Models:
        """The answer models ``answer`` accepts (``GET /v1/ask/models``)."""
        return Models.from_raw(self._transport.send("GET", "/v1/ask/models"))

    def health(self) -> dict[str, Any]:
        """Whether the service is up (``GET /health``); needs no key. ``index`` holds the search
        index's figures: ``serving``, ``loading``, ``memories``, ``held_mb`` against ``budget_mb``
        (``UMO_INDEX_MEMORY_MB``), ``evictions`` and ``shard`` (``"k/n"`` or None); ``reembedding``
        a re-embedding this server runs or followed from another server on its database (``from``,
        ``to``, ``state``, ``staged`` of ``total``, ``detail``) or None."""
        return dict(self._transport.send("GET", "/health", authenticated=False))

    def signing_keys(self) -> dict[str, Any]:
        """The service's public signing keys (``GET /.well-known/jwks.json``):
        ``{"keys": [...], "rotations": [...]}`` — a JWK Set, the current key first and then the keys
        it retired, plus the key records that link each key to the one before it. Pin it once and
        check proofs and receipts offline with ``verify_proof`` / ``verify_receipt``. After a key
        rotation, pass a later fetch's ``rotations`` along with what you pinned: they extend trust
        only along records signed by both keys they link, from a pinned key to its successors (and
        predecessors), never to keys the later fetch merely lists."""
        return dict(self._transport.send("GET", "/.well-known/jwks.json", authenticated=False))
