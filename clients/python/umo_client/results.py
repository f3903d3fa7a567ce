"""Results of the calls beyond the nine verbs: answers, comparisons, account and models."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ._fields import Raw, _list, _obj, _opt_num, _opt_str
from .models import LaterRelated


@dataclass(frozen=True)
class Citation:
    index: int
    """The ``[n]`` marker in the answer."""
    umo_id: str
    title: str
    snippet: str
    similarity: float
    later_related: list[LaterRelated] = field(default_factory=list)
    """Later memories of the same person linked to the cited one, newest first."""


@dataclass(frozen=True)
class Answer:
    """What ``answer`` (``POST /v1/ask``) returns."""

    text: str
    """The answer with ``[n]`` markers pointing at ``citations``."""
    citations: list[Citation]
    confidence: float
    method: str
    """``extractive``, ``generative``, or ``no_context`` when nothing relevant was found."""
    question_type: str
    model: str
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> Answer:
        citations = [
            Citation(
                int(c.get("index", 0)),
                str(c.get("umo_id", "")),
                str(c.get("title", "")),
                str(c.get("snippet", "")),
                float(c.get("similarity", 0)),
                LaterRelated.all_from(c),
            )
            for c in _list(raw, "citations")
        ]
        return cls(
            text=str(raw.get("answer", "")),
            citations=citations,
            confidence=float(raw.get("confidence", 0)),
            method=str(raw.get("method", "")),
            question_type=str(raw.get("question_type", "")),
            model=str(raw.get("model", "")),
            raw=raw,
        )


@dataclass(frozen=True)
class Comparison:
    """What ``compare`` (``POST /v1/match``) returns."""

    score: float
    similarity: float
    relationship: str
    """``duplicate``, ``related`` or ``unrelated``."""
    matched: bool
    threshold: float
    breakdown: Optional[Raw]
    """With ``explain=True``: the weighted parts of the score and what the two memories share."""
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> Comparison:
        breakdown = raw.get("breakdown")
        return cls(
            score=float(raw.get("score", 0)),
            similarity=float(raw.get("similarity", 0)),
            relationship=str(raw.get("relationship", "")),
            matched=raw.get("matched") is True,
            threshold=float(raw.get("threshold", 0)),
            breakdown=breakdown if isinstance(breakdown, dict) else None,
            raw=raw,
        )


@dataclass(frozen=True)
class Account:
    """What ``account`` returns: who the key belongs to."""

    user_id: str
    workspace_id: Optional[str]
    name: str
    key_id: str
    key_status: str
    tier: str
    umo_limit: Optional[float]
    search_limit: Optional[float]
    beta: bool
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> Account:
        account, key, plan = _obj(raw, "account"), _obj(raw, "key"), _obj(raw, "plan")
        return cls(
            user_id=str(account.get("user_id", "")),
            workspace_id=_opt_str(account, "workspace_id"),
            name=str(account.get("name", "")),
            key_id=str(key.get("key_id", "")),
            key_status=str(key.get("status", "")),
            tier=str(plan.get("tier", "")),
            umo_limit=_opt_num(plan, "umo_limit"),
            search_limit=_opt_num(plan, "search_limit"),
            beta=plan.get("beta") is True,
            raw=raw,
        )


@dataclass(frozen=True)
class Model:
    id: str
    is_default: bool = False
    requires_key: bool = False
    method: str = "extractive"
    #: False for a local model whose weights are not installed on the server (``detail`` says why).
    available: bool = True
    detail: Optional[str] = None


@dataclass(frozen=True)
class Models:
    """What ``models`` returns: the answer models ``answer`` accepts."""

    local: list[Model]
    cloud: list[Model]
    raw: Raw = field(repr=False, compare=False)

    @property
    def default_model(self) -> Optional[str]:
        """The model ``answer`` uses when none is named."""
        return next((m.id for m in self.local if m.is_default), None)

    @classmethod
    def from_raw(cls, raw: Raw) -> Models:
        local = [
            Model(
                str(m.get("id", "")),
                is_default=m.get("default") is True,
                method=str(m.get("method", "extractive")),
                available=m.get("available") is not False,
                detail=m["detail"] if isinstance(m.get("detail"), str) else None,
            )
            for m in _list(raw, "local")
        ]
        cloud = [
            Model(str(m.get("id", "")), requires_key=m.get("requires_key") is True, method="generative")
            for m in _list(raw, "cloud")
        ]
        return cls(local, cloud, raw)


@dataclass(frozen=True)
class CategoryList:
    """The categories an account files its memories under (``categories``): its own list, or the
    default one (``origin``: ``"account"`` or ``"default"``)."""

    categories: list[dict[str, str]]
    origin: str
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> CategoryList:
        listed = raw.get("categories")
        return cls(
            categories=[
                {"name": str(c.get("name", "")), "description": str(c.get("description", ""))}
                for c in (listed if isinstance(listed, list) else [])
                if isinstance(c, dict)
            ],
            origin=str(raw.get("origin", "default")),
            raw=raw,
        )


@dataclass(frozen=True)
class Webhook:
    """A webhook of the account (``webhooks``), and how its deliveries stand; ``secret`` only as
    ``create_webhook`` answers (it verifies each delivery's ``umo-signature``)."""

    webhook_id: str
    url: str
    name: Optional[str]
    events: list[str]
    created_at: str
    delivered_seq: int
    attempts: int
    last_error: Optional[str]
    secret: Optional[str]
    raw: Raw = field(repr=False, compare=False)

    @classmethod
    def from_raw(cls, raw: Raw) -> Webhook:
        events = raw.get("events")
        return cls(
            webhook_id=str(raw.get("webhook_id", "")),
            url=str(raw.get("url", "")),
            name=_opt_str(raw, "name"),
            events=[str(e) for e in events] if isinstance(events, list) else [],
            created_at=str(raw.get("created_at", "")),
            delivered_seq=int(raw.get("delivered_seq", 0)),
            attempts=int(raw.get("attempts", 0)),
            last_error=_opt_str(raw, "last_error"),
            secret=_opt_str(raw, "secret"),
            raw=raw,
        )
