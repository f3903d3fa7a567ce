"""Schemathesis hooks for server/test/Contract.test.ts.

A client sends a new Idempotency-Key with every new request and the same key only when it repeats
one (the document says so in the header's description); a key reused with another body is refused
with 422, as the IETF draft asks. Schemathesis draws header values from the schema alone and reuses
simple ones ("0") across different bodies, so every well-formed key it sends is made unique here.
Keys of requests that break the schema are left as drawn: those requests must still be refused. Repeating a
request under one key is tested by the server's own tests (MemoriesHandlers, Outage).
"""

import re
import uuid

import schemathesis

_WELL_FORMED = re.compile(r"^[!-~]{1,255}$")


@schemathesis.hook
def before_call(context, case, **kwargs):  # type: ignore[no-untyped-def]
    # Negative cases keep what was drawn: they must be refused whatever their key. (Changing a
    # negative case makes Schemathesis validate it again and may turn it positive.)
    if case.meta is not None and case.meta.generation.mode.is_negative:
        return
    for name, value in (case.headers or {}).items():
        if name.lower() == "idempotency-key" and isinstance(value, str) and _WELL_FORMED.match(value):
            case.headers[name] = f"{value[:200]}-{uuid.uuid4().hex}"
