"""Every kind of illegal action is refused with a typed Rejection naming its clause."""

import pytest

from contracts.errors import ErrorCode
from domain.spacewar_ha import SPACEWAR_HA
from tests.domain.spacewar_ha.helpers import at, new, refuse

# One position with a piece of every kind for both sides, White to act.
POSITION = "Qd4:3/9,Rd1:9/6,Nb1:3/3,Bc1:6/9,Ke1:9/18/6,re5:9/6,nd6:3/3,ka8:9/18/6"

CASES = [  # the action, its error code, its clause
    ("Rd1-d9", ErrorCode.MALFORMED_ACTION, "HA-1.4"),  # no such square
    ("Zd1-d2", ErrorCode.MALFORMED_ACTION, "HA-1.4"),
    ("Rd1*d5", ErrorCode.MALFORMED_ACTION, "HA-1.4"),  # the amount is written
    ("Rh4-h5", ErrorCode.ILLEGAL_ACTION, "HA-4.1"),  # no piece there
    ("Ra8-a7", ErrorCode.ILLEGAL_ACTION, "HA-4.1"),  # an enemy piece
    ("Qd1-d2", ErrorCode.ILLEGAL_ACTION, "HA-2.1"),  # d1 holds a Defender
    ("Qd4-d7", ErrorCode.ILLEGAL_ACTION, "HA-5.2"),
    ("Rd1-e2", ErrorCode.ILLEGAL_ACTION, "HA-5.3"),
    ("Nb1-b3", ErrorCode.ILLEGAL_ACTION, "HA-5.4"),
    ("Bc1-c2", ErrorCode.ILLEGAL_ACTION, "HA-5.5"),
    ("Ke1-e4", ErrorCode.ILLEGAL_ACTION, "HA-5.6"),
    ("Ke1-d1", ErrorCode.ILLEGAL_ACTION, "HA-R11"),  # own piece
    ("Qd4-e5", ErrorCode.ILLEGAL_ACTION, "HA-1.4"),  # a crash is written x
    ("Qd4xd5", ErrorCode.ILLEGAL_ACTION, "HA-5.31"),  # nothing to crash into
    ("Qd4*e5(1)", ErrorCode.ILLEGAL_ACTION, "HA-2.2"),
    ("Rd1*d4(1)", ErrorCode.ILLEGAL_ACTION, "HA-R8"),
    ("Rd1*d7(7)", ErrorCode.ILLEGAL_ACTION, "HA-5.10"),
    ("Bc1*f4(1)", ErrorCode.ILLEGAL_ACTION, "HA-5.11"),  # nothing there
    ("Nb1*e5(1)", ErrorCode.ILLEGAL_ACTION, "HA-R7"),
    ("Qd4>d7>", ErrorCode.ILLEGAL_ACTION, "HA-R12"),  # d6 comes first
    ("Rd1>d4<", ErrorCode.ILLEGAL_ACTION, "HA-5.20"),
    ("Qd4#d6", ErrorCode.ILLEGAL_ACTION, "HA-5.21"),  # not adjacent
    ("Qd4#c1", ErrorCode.ILLEGAL_ACTION, "HA-5.21"),
    ("Qd4~", ErrorCode.ILLEGAL_ACTION, "HA-5.22"),
    ("Ke1+c1(h1)", ErrorCode.ILLEGAL_ACTION, "HA-R15"),
    ("Ke1+d1(h1)", ErrorCode.ILLEGAL_ACTION, "HA-5.40"),  # full Health
    ("Ke1+d1(a1)", ErrorCode.ILLEGAL_ACTION, "HA-5.41"),  # full Ammo
    ("Rd1+e1(h1)", ErrorCode.ILLEGAL_ACTION, "HA-5.40"),
    ("pass", ErrorCode.ILLEGAL_ACTION, "HA-5.70"),
    ("accept-draw", ErrorCode.ILLEGAL_ACTION, "HA-8.3"),
]


@pytest.mark.parametrize(("text", "code", "clause"), CASES)
def test_refusal_names_the_clause(text: str, code: ErrorCode, clause: str) -> None:
    """Each refusal is typed and cites the clause it breaks (HA-4.1, HA-5.*, HA-R*)."""
    rejection = refuse(at(POSITION), text)
    assert (rejection.code, rejection.clause) == (code, clause), rejection.reason
    assert rejection.reason


def test_other_seat_and_unknown_seat() -> None:
    """HA-0.1, HA-4.1: two seats; the one not to act is refused."""
    state = new()
    assert refuse(state, "Nb8-c6", 1).code is ErrorCode.NOT_YOUR_TURN
    action = SPACEWAR_HA.parse_action(state, 0, "Nb1-c3")
    assert not isinstance(action, type(refuse(state, "pass")))
    rejected = SPACEWAR_HA.decide(state, 2, action)  # type: ignore[arg-type]
    assert getattr(rejected, "code", None) is ErrorCode.UNKNOWN_SEAT
