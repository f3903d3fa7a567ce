"""umo_client: a typed, standard-library-only client for the UMO memory API.

>>> from umo_client import UMOClient
>>> umo = UMOClient()  # UMO_API_KEY, UMO_BASE_URL
>>> captured = umo.capture("Lunch with Ana at Nopa on Friday.")
>>> best = umo.ask("Where did I have lunch?")[0]
"""

from .client import UMOClient
from .errors import (
    APIError,
    AuthenticationError,
    NotFoundError,
    RateLimitError,
    UMOError,
    ValidationError,
    VerificationError,
)
from .models import (
    BatchItem,
    Captured,
    DeletionReceipt,
    Entity,
    Explanation,
    Match,
    Memory,
    MemoryPage,
    MemorySummary,
    Proof,
    Topic,
    Triple,
    Uploaded,
)
from .results import Account, Answer, Citation, Comparison, Model, Models
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
    "AuthenticationError",
    "BatchItem",
    "Captured",
    "Citation",
    "Comparison",
    "DeletionReceipt",
    "Entity",
    "Explanation",
    "Match",
    "Memory",
    "MemoryPage",
    "MemorySummary",
    "Model",
    "Models",
    "NotFoundError",
    "Proof",
    "RateLimitError",
    "Topic",
    "Triple",
    "TrustedKeys",
    "UMOClient",
    "UMOError",
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
