"""LangMem's memory tools on UMOStore, inside a LangGraph graph: a fake model's tool calls run by
LangGraph's ToolNode, the store given to the graph, the namespace filled from the config."""

from __future__ import annotations

import json
import unittest
import uuid
from typing import Any, cast

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langmem import create_manage_memory_tool, create_search_memory_tool  # type: ignore[import-untyped]
from live_server import KEYS, LiveServer
from umo_client import UMOClient

from umo_langgraph import UMOStore

server: LiveServer


def setUpModule() -> None:
    global server
    server = LiveServer()


def tearDownModule() -> None:
    server.stop()


class LangMemTest(unittest.TestCase):
    def test_langmem_manages_and_searches_memories_kept_in_umo(self) -> None:
        client = UMOClient(api_key=KEYS["alice"], base_url=server.base_url)
        namespace = ("memories", "{langgraph_user_id}")
        tools = [create_manage_memory_tool(namespace=namespace), create_search_memory_tool(namespace=namespace)]
        graph = StateGraph(MessagesState)
        graph.add_node("tools", ToolNode(tools))
        graph.add_edge(START, "tools")
        graph.add_edge("tools", END)
        agent = graph.compile(store=UMOStore(client))

        def call(user: str, name: str, **args: Any) -> str:
            message = AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": str(uuid.uuid4())}])
            config: RunnableConfig = {"configurable": {"langgraph_user_id": user}}
            state: Any = agent.invoke(cast(Any, {"messages": [message]}), config=config)
            answer = state["messages"][-1]
            assert isinstance(answer, ToolMessage)
            return str(answer.content)

        created = call("ana", "manage_memory", content="Ana prefers dark mode in every editor", action="create")
        memory_id = created.split()[-1]
        call("bo", "manage_memory", content="Bo prefers light mode", action="create")
        memories = client.list(user_id="memories.ana", source="langgraph").items
        self.assertEqual(len(memories), 1)
        self.assertEqual(client.get(memories[0].umo_id).content_text, "Ana prefers dark mode in every editor")

        found = json.loads(call("ana", "search_memory", query="editor theme"))
        self.assertEqual([(f["key"], f["value"]) for f in found],
                         [(memory_id, {"content": "Ana prefers dark mode in every editor"})])

        call("ana", "manage_memory", id=memory_id, content="Ana now prefers light mode", action="update")
        current = client.list(user_id="memories.ana", source="langgraph").items
        self.assertEqual(len(current), 1)
        self.assertEqual(len(client.history(current[0].umo_id).versions), 2)
        found = json.loads(call("ana", "search_memory", query="editor theme"))
        self.assertEqual([f["value"]["content"] for f in found], ["Ana now prefers light mode"])

        call("ana", "manage_memory", id=memory_id, action="delete")
        self.assertEqual(json.loads(call("ana", "search_memory", query="editor theme")), [])
        self.assertEqual(client.list(user_id="memories.ana", include_superseded=True).total_count, 0)
        self.assertEqual(client.list(user_id="memories.bo", source="langgraph").total_count, 1)


if __name__ == "__main__":
    unittest.main()
