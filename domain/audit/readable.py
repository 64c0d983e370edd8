"""An export's readable copies (docs/audit.md, "Export and import"): each line of an export
holds the exact stored bytes (`body_b64`), which the chain covers and the audit checks, and the
same body decoded (`event`) for a person to read. A copy that is not its body decoded means the
file was edited: what it shows a reader is not what was audited, so the audit fails there.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.audit.report import Discrepancy

# An export line's readable copy of its body: the line's number in the file, and its `event`
# member as decoded from the file. (A plain tuple: the CLI builds it without importing this
# package, which loads every ruleset.)
Readable = tuple[int, object]


def same_json(a: object, b: object) -> bool:
    """Whether two decoded JSON values are the same value: the same kinds (an integer is not a
    float, nor a bool an integer: Python's == holds 1 == 1.0 == True), objects with the same
    members in any order, arrays element by element. A loop, not recursion: a copy may nest
    as deep as the decoder allows."""
    pending: list[tuple[Any, Any]] = [(a, b)]
    while pending:
        x, y = pending.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            if x.keys() != y.keys():
                return False
            pending += [(v, y[k]) for k, v in x.items()]
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            pending += zip(x, y, strict=True)
        elif x != y:
            return False
    return True


def check_readable(body: bytes, readable: Readable) -> None:
    """Raise the discrepancy if the readable copy is not `body` decoded (null for a body that is
    not JSON, as the export writes it)."""
    line, event = readable
    try:
        decoded: Any = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError):  # msgspec's limit on nesting is the latter
        decoded = None
    if not same_json(decoded, event):
        raise Discrepancy(
            f"line {line}: its readable copy (event) is not its body_b64 decoded: the "
            "export was edited, and what it shows a reader is not what was audited"
        )
