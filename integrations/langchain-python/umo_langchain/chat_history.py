"""A LangChain chat message history kept as UMO memories."""

from __future__ import annotations

import json
from typing import Any, Optional, Sequence

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, messages_from_dict
from umo_client import Scope, UMOClient, ValidationError


# A message's fields kept in its memory's metadata, as @umo/langchain keeps them: (field, key).
_MESSAGE_FIELDS = (("role", "message_role"), ("name", "message_name"), ("tool_call_id", "tool_call_id"))


class UMOChatMessageHistory(BaseChatMessageHistory):
    """Each message is a memory of the conversation's scope (its ``session_id``, and the
    ``user_id`` and ``agent_id`` it belongs to if any), with the message's type (and name, role or
    tool call id, and an AI message's tool calls) as metadata and ``source`` ``chat``: the same memories ``UMOChatMessageHistory``
    of ``@umo/langchain`` writes, so either language reads the other's conversations. Its turns
    are memories like any other: search, answers, proofs and ``forget_all`` reach them.
    ``messages`` reads the session's turns back oldest first, with their text as UMO normalized it.

    Each message is captured as said, never as a repeat of an earlier one (``dedupe=False``):
    "yes" twice is two turns. A message with no text (an AI message that only calls tools) is
    refused by UMO (422), as every empty capture is; UMO's errors pass through with their ``detail``.
    """

    def __init__(self, client: UMOClient, scope: Scope, *, source: str = "chat") -> None:
        if scope.session_id is None:
            detail = "invalid scope: a chat history needs a session_id"
            raise ValidationError(f"422: {detail}", 422, detail)
        self.client = client
        self.scope = scope
        self.source = source

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        # Superseded turns too: a turn that updated a fact is still what was said. The list is
        # newest first; each turn's full text is its memory's.
        turns = list(self.client.iterate(source=self.source, include_superseded=True, limit=100, **self.scope.fields()))
        stored = []
        for turn in reversed(turns):
            memory = self.client.get(turn.umo_id)
            data: dict[str, Any] = {"content": memory.content_text}
            for field, key in _MESSAGE_FIELDS:
                value = memory.metadata.get(key)
                if isinstance(value, str):
                    data[field] = value
            calls = memory.metadata.get("tool_calls")
            if isinstance(calls, str):
                data["tool_calls"] = json.loads(calls)
            stored.append({"type": str(memory.metadata.get("message_type", "human")), "data": data})
        return messages_from_dict(stored)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        for message in messages:
            metadata: dict[str, str] = {"message_type": message.type}
            for field, key in _MESSAGE_FIELDS:
                value: Optional[Any] = getattr(message, field, None)
                if isinstance(value, str):
                    metadata[key] = value
            # An AI turn's tool calls, as JSON (a metadata value holds 1,000 characters: past that,
            # UMO's 422 names `metadata.tool_calls`): a replayed history keeps each tool result
            # after its call. The same key as @umo/langchain's.
            if isinstance(message, AIMessage) and message.tool_calls:
                metadata["tool_calls"] = json.dumps(
                    [{**call, "type": "tool_call"} for call in message.tool_calls], separators=(",", ":")
                )
            self.client.capture(
                str(message.text), source=self.source, metadata=metadata, dedupe=False, **self.scope.fields()
            )

    def clear(self) -> None:
        """Forgets the conversation's turns (its other memories stay), with one signed receipt."""
        self.client.forget_all(source=self.source, **self.scope.fields())
