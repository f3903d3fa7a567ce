"""umo_client: a typed, standard-library-only client for the UMO memory API.

>>> from umo_client import UMOClient
>>> umo = UMOClient()  # UMO_API_KEY, UMO_BASE_URL
>>> captured = umo.capture("Lunch with Ana at Nopa on Friday.")
>>> best = umo.ask("Where did I have lunch?")[0]
>>> mine = umo.list(user_id="ana", filters={"metadata": {"topic": {"in": ["food", "travel"]}}})
"""

from ._fields import Metadata, MetadataValue
from ._requests import BatchInput, FilterExpression, FilterScalar, MetadataMatch, Timestamp
from .client import ImportData, UMOClient
from .errors import (
    APIError,
    AuthenticationError,
    IncompleteExportError,
    NotFoundError,
    RateLimitError,
    UMOError,
    ValidationError,
    VerificationError,
)
from .keys import PublicKey
from .models import (
    BatchItem,
    Captured,
    Entity,
    Explanation,
    LaterRelated,
    Match,
    Memory,
    MemoryPage,
    MemorySummary,
    ScopePage,
    ScopeSummary,
    Topic,
    Triple,
    Uploaded,
)
from .scoped import VERB_WORDS, Scope, ScopedVerbs, ScopeFields
from .results import Account, Answer, CategoryList, Citation, Comparison, Model, Models, Webhook
from .signed import ChainPage, DeletionReceipt, LedgerEntry, Proof
from .transfers import ExportedMemory, ExportEnd, ExportHeader, ExportLine, ImportedFrom, ImportFailure, ImportSummary
from .versions import ErasureReceipt, MemoryHistory
from .verify import (
    TrustedKeys,
    entry_hash,
    key_thumbprint,
    trusted_keys,
    verify_entry,
    verify_proof,
    verify_receipt,
)

__version__ = "0.1.0"

__all__ = [
    "APIError",
    "Account",
    "Answer",
    "CategoryList",
    "AuthenticationError",
    "BatchInput",
    "BatchItem",
    "Captured",
    "ChainPage",
    "Citation",
    "Comparison",
    "DeletionReceipt",
    "Entity",
    "ErasureReceipt",
    "Explanation",
    "ExportEnd",
    "ExportHeader",
    "ExportLine",
    "ExportedMemory",
    "FilterExpression",
    "FilterScalar",
    "ImportData",
    "ImportFailure",
    "ImportSummary",
    "ImportedFrom",
    "IncompleteExportError",
    "LedgerEntry",
    "LaterRelated",
    "Match",
    "Memory",
    "MemoryHistory",
    "MemoryPage",
    "MemorySummary",
    "Metadata",
    "MetadataMatch",
    "MetadataValue",
    "Model",
    "Models",
    "Webhook",
    "NotFoundError",
    "Proof",
    "PublicKey",
    "RateLimitError",
    "Scope",
    "ScopeFields",
    "ScopePage",
    "ScopeSummary",
    "ScopedVerbs",
    "Timestamp",
    "Topic",
    "Triple",
    "TrustedKeys",
    "UMOClient",
    "UMOError",
    "VERB_WORDS",
    "Uploaded",
    "ValidationError",
    "VerificationError",
    "entry_hash",
    "key_thumbprint",
    "trusted_keys",
    "verify_entry",
    "verify_proof",
    "verify_receipt",
]
