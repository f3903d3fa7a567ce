"""The retriever, the tools and the chat history against the real server, driven by LangChain's own
fake chat models where a model would be called."""

from __future__ import annotations

import json
import unittest
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_core.tools import BaseTool
from live_server import KEYS, LiveServer
from umo_client import NotFoundError, Scope, UMOClient, ValidationError

from umo_langchain import UMOChatMessageHistory, UMORetriever, umo_tools

server: LiveServer


def setUpModule() -> None:
    global server
    server = LiveServer()


def tearDownModule() -> None:
    server.stop()


def by_name(tools: list[BaseTool]) -> dict[str, BaseTool]:
    return {tool.name: tool for tool in tools}


class LangChainTest(unittest.TestCase):
    client: UMOClient

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = UMOClient(api_key=KEYS["alice"], base_url=server.base_url)

    def setUp(self) -> None:
        for user in ("ana", "bo"):
            self.client.forget_all(user_id=user)

    def test_retriever_returns_the_scopes_memories_as_documents(self) -> None:
        ana = self.client.capture("Ana lives in Lisbon with her cat Miso.", user_id="ana", session_id="s1")
        self.client.capture("Bo lives in Lisbon too, near the river.", user_id="bo")
        retriever = UMORetriever(client=self.client, scope=Scope(user_id="ana"), k=3)
        documents = retriever.invoke("Who lives in Lisbon?")
        self.assertEqual([d.id for d in documents], [ana.umo_id])
        metadata = documents[0].metadata
        self.assertEqual(metadata["umo_id"], ana.umo_id)
        self.assertEqual((metadata["user_id"], metadata["session_id"], metadata["agent_id"]), ("ana", "s1", None))
        self.assertGreater(metadata["score"], 0)
        self.assertEqual(metadata["times_said"], 1)
        self.assertTrue(metadata["timestamp"])
        self.assertEqual(documents[0].page_content, "Ana lives in Lisbon with her cat Miso.")
        # In a chain, and asynchronously.
        chain = retriever | (lambda docs: "\n".join(d.page_content for d in docs))
        self.assertIn("Miso", chain.invoke("Ana's cat"))

    def test_retriever_takes_k_and_narrowing_per_call(self) -> None:
        for n in range(4):
            self.client.capture(f"Ana planted {n + 2} rows of garden beans.", user_id="ana", source=f"plot{n}")
        retriever = UMORetriever(client=self.client, scope=Scope(user_id="ana"), k=3)
        self.assertEqual(len(retriever.invoke("garden beans")), 3)
        self.assertEqual(len(retriever.invoke("garden beans", k=1)), 1)
        self.assertEqual(len(retriever.invoke("garden beans", k=4)), 4)
        self.assertEqual(len(retriever.invoke("garden beans", k=2, rerank=True)), 2)
        only = retriever.invoke("garden beans", source="plot2")
        self.assertEqual([d.metadata["source"] for d in only], ["plot2"])
        with self.assertRaises(TypeError) as refused:
            retriever.invoke("garden beans", user_id="bo")
        self.assertIn("user_id", str(refused.exception))
        with self.assertRaises(ValueError):
            retriever.invoke("garden beans", k=0)

    def test_retriever_refuses_an_empty_scope_and_a_bad_k(self) -> None:
        with self.assertRaises(ValidationError):
            Scope()
        with self.assertRaises(ValueError):
            UMORetriever(client=self.client, scope=Scope(user_id="ana"), k=51)

    def test_tools_called_by_a_fake_model(self) -> None:
        tools = by_name(umo_tools(self.client, Scope(user_id="ana")))
        self.assertEqual(set(tools), {"remember", "search_memories", "answer_from_memories", "forget_memory"})
        # The model gives texts, queries and ids, never whose memories they are.
        self.assertEqual(
            {name: set(tool.args) for name, tool in tools.items()},
            {"remember": {"text", "timestamp"}, "search_memories": {"query", "limit"},
             "answer_from_memories": {"question"}, "forget_memory": {"id"}},
        )
        model = FakeMessagesListChatModel(
            responses=[
                AIMessage(content="", tool_calls=[{"name": "remember", "args": {"text": "Ana is allergic to peanuts."}, "id": "c1"}]),
                AIMessage(content="", tool_calls=[{"name": "search_memories", "args": {"query": "allergies"}, "id": "c2"}]),
                AIMessage(content="", tool_calls=[{"name": "answer_from_memories", "args": {"question": "What is Ana allergic to?"}, "id": "c3"}]),
            ]
        )
        results: list[dict[str, Any]] = []
        for _ in range(3):
            call = model.invoke([HumanMessage("go")]).tool_calls[0]
            message = tools[call["name"]].invoke(call)
            self.assertIsInstance(message, ToolMessage)
            self.assertEqual(message.tool_call_id, call["id"])
            results.append(json.loads(message.content))
        remembered, found, answered = results
        self.assertEqual(self.client.get(remembered["id"]).user_id, "ana")
        self.assertEqual(found["memories"][0]["id"], remembered["id"])
        self.assertIn("peanuts", answered["answer"])
        self.assertEqual(answered["citations"][0]["id"], remembered["id"])
        forgotten = tools["forget_memory"].invoke({"id": remembered["id"]})
        self.assertTrue(forgotten["forgotten"])
        with self.assertRaises(NotFoundError):
            self.client.get(remembered["id"])

    def test_tools_stay_inside_their_scope_and_pass_umos_errors_through(self) -> None:
        bo = self.client.capture("Bo's locker code is 4411.", user_id="bo")
        ana_tools = by_name(umo_tools(self.client, Scope(user_id="ana")))
        self.assertEqual(ana_tools["search_memories"].invoke({"query": "locker code"})["memories"], [])
        with self.assertRaises(NotFoundError) as hidden:
            ana_tools["forget_memory"].invoke({"id": bo.umo_id})
        self.assertEqual(hidden.exception.detail, f"no memory with id {bo.umo_id}")
        self.assertEqual(self.client.get(bo.umo_id).content_text, "Bo's locker code is 4411.")
        with self.assertRaises(ValidationError) as refused:
            ana_tools["search_memories"].invoke({"query": "locker", "limit": 500})
        self.assertIn("limit", refused.exception.detail or "")

    def test_chat_history_keeps_each_turn_in_its_session(self) -> None:
        scope = Scope(user_id="ana", session_id="chat-1")
        history = UMOChatMessageHistory(self.client, scope)
        history.add_messages([
            SystemMessage("You are Ana's assistant."),
            HumanMessage("yes"),
            AIMessage("Noted.", name="helper"),
            HumanMessage("yes"),
            AIMessage("Checking.", tool_calls=[{"name": "timetable", "args": {"to": "Porto"}, "id": "call-7"}]),
            ToolMessage("Trains leave hourly.", tool_call_id="call-7", name="timetable"),
        ])
        other = UMOChatMessageHistory(self.client, Scope(user_id="bo", session_id="chat-1"))
        other.add_user_message("Bo here")
        self.assertEqual(
            [(m.type, m.content) for m in history.messages],
            [("system", "You are Ana's assistant."), ("human", "yes"), ("ai", "Noted."), ("human", "yes"),
             ("ai", "Checking."), ("tool", "Trains leave hourly.")],
        )
        messages = history.messages
        self.assertEqual(messages[2].name, "helper")
        # The tool result follows its call, as a model provider needs it when the history is replayed.
        called, result = messages[4], messages[5]
        assert isinstance(called, AIMessage) and isinstance(result, ToolMessage)
        self.assertEqual(
            called.tool_calls, [{"name": "timetable", "args": {"to": "Porto"}, "id": "call-7", "type": "tool_call"}]
        )
        self.assertEqual((result.tool_call_id, result.name), ("call-7", "timetable"))
        self.assertEqual([m.content for m in other.messages], ["Bo here"])
        # Turns are memories: UMO's search reaches them.
        self.assertTrue(self.client.ask("assistant", user_id="ana", session_id="chat-1"))
        history.clear()
        self.assertEqual(history.messages, [])
        self.assertEqual([m.content for m in other.messages], ["Bo here"])
        with self.assertRaises(ValidationError):
            UMOChatMessageHistory(self.client, Scope(user_id="ana"))
        with self.assertRaises(ValidationError) as empty:
            history.add_messages([AIMessage(content="")])
        self.assertIn("content", empty.exception.detail or "")

    def test_chat_history_under_runnable_with_message_history(self) -> None:
        prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{input}")])
        model = GenericFakeChatModel(messages=iter([AIMessage("Hello Ana!"), AIMessage("You said you like jazz.")]))
        histories: dict[str, UMOChatMessageHistory] = {}

        def history_of(session_id: str) -> BaseChatMessageHistory:
            return histories.setdefault(session_id, UMOChatMessageHistory(self.client, Scope(user_id="ana", session_id=session_id)))

        chat = RunnableWithMessageHistory(prompt | model, history_of, input_messages_key="input", history_messages_key="history")
        config: Any = {"configurable": {"session_id": "jazz"}}
        chat.invoke({"input": "Hi, I like jazz."}, config=config)
        chat.invoke({"input": "What do I like?"}, config=config)
        self.assertEqual(
            [m.content for m in history_of("jazz").messages],
            ["Hi, I like jazz.", "Hello Ana!", "What do I like?", "You said you like jazz."],
        )


if __name__ == "__main__":
    unittest.main()
