"""UMO's verbs as LangChain tools."""

from __future__ import annotations

from typing import Optional

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field
from umo_client import VERB_WORDS, Scope, ScopedVerbs, UMOClient


class _Remember(BaseModel):
    text: str = Field(description=VERB_WORDS["text"])
    timestamp: Optional[str] = Field(default=None, description=VERB_WORDS["timestamp"])


class _Search(BaseModel):
    query: str = Field(description=VERB_WORDS["query"])
    limit: Optional[int] = Field(default=None, description=VERB_WORDS["limit"])


class _Answer(BaseModel):
    question: str = Field(description=VERB_WORDS["question"])


class _Forget(BaseModel):
    id: str = Field(description=VERB_WORDS["id"])


def umo_tools(client: UMOClient, scope: Scope) -> list[BaseTool]:
    """UMO's verbs as tools a model can call — ``remember`` (capture), ``search_memories`` (ask),
    ``answer_from_memories`` (answer) and ``forget_memory`` (forget) — each inside ``scope``, fixed
    here: the model gives the text, the query or the id, never whose memories they are. Bind them
    to a chat model (``model.bind_tools(tools)``) or give them to an agent. Each returns a dict (a
    ``ToolMessage`` carries it as JSON); a failure is the client's own error (``ValidationError``,
    ``NotFoundError``, … with its ``status`` and ``detail``), raised as it is."""
    verbs = ScopedVerbs(client, scope)
    return [
        StructuredTool.from_function(
            verbs.remember, name="remember", description=VERB_WORDS["remember"], args_schema=_Remember
        ),
        StructuredTool.from_function(
            verbs.search, name="search_memories", description=VERB_WORDS["search"], args_schema=_Search
        ),
        StructuredTool.from_function(
            verbs.answer, name="answer_from_memories", description=VERB_WORDS["answer"], args_schema=_Answer
        ),
        StructuredTool.from_function(
            verbs.forget, name="forget_memory", description=VERB_WORDS["forget"], args_schema=_Forget
        ),
    ]
