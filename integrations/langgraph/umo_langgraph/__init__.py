"""umo_langgraph: LangGraph's long-term memory store (``BaseStore``) kept in UMO.

>>> from umo_client import UMOClient
>>> from umo_langgraph import UMOStore
>>> store = UMOStore(UMOClient())  # UMO_API_KEY, UMO_BASE_URL
>>> store.put(("memories", "ana"), "diet", {"content": "Ana is vegetarian"})
>>> store.search(("memories", "ana"), query="what does Ana eat?")
"""

from .store import UMOStore, namespace_of, scope_id

__all__ = ["UMOStore", "namespace_of", "scope_id"]
__version__ = "0.1.0"
