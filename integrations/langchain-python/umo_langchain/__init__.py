"""umo_langchain: UMO for LangChain in Python: a retriever of memories as Documents, memory tools,
and a chat message history kept as scoped memories, over ``umo_client``.

>>> from umo_client import Scope, UMOClient
>>> from umo_langchain import UMORetriever, umo_tools
>>> umo, ana = UMOClient(), Scope(user_id="ana")
>>> UMORetriever(client=umo, scope=ana, k=3).invoke("where does Ana live?")
"""

from .chat_history import UMOChatMessageHistory
from .retriever import UMORetriever
from .tools import umo_tools

__all__ = ["UMOChatMessageHistory", "UMORetriever", "umo_tools"]
__version__ = "0.1.0"
