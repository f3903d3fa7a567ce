"""Run by scripts/check-packaging.mjs in a fresh virtualenv where the client and the Python
integrations were pip-installed from the checkout's folders, against `npx umo serve`
(UMO_BASE_URL, UMO_API_KEY)."""

import json

from umo_client import Scope, UMOClient
from umo_langchain import UMOChatMessageHistory, UMORetriever, umo_tools
from umo_langgraph import UMOStore

umo = UMOClient()
scope = Scope(user_id="packaging-py")
captured = umo.capture("Mary Jackson became NASA's first Black female engineer.", user_id="packaging-py")
documents = UMORetriever(client=umo, scope=scope).invoke("Who was NASA's first Black female engineer?")
found = {tool.name: tool for tool in umo_tools(umo, scope)}["search_memories"].invoke({"query": "engineer"})
history = UMOChatMessageHistory(umo, Scope(user_id="packaging-py", session_id="packaging"))
history.add_user_message("hello")
store = UMOStore(umo)
store.put(("packaging", "py"), "fact", {"content": "Christine Darden studied sonic booms."})
item = store.get(("packaging", "py"), "fact")
seen = {
    "retriever": bool(documents) and documents[0].id == captured.umo_id,
    "tool": found["memories"][0]["id"] == captured.umo_id,
    "history": [m.content for m in history.messages] == ["hello"],
    "store": item is not None and item.value == {"content": "Christine Darden studied sonic booms."},
}
if not all(seen.values()):
    raise SystemExit(f"integrations: {json.dumps(seen)} {found}")
print(json.dumps(seen))
