"""The position notation (docs/rules/spacewar.md): the phase and step, the side to act, every
piece with its owner, side and flags, the standing hits, the response window and the pending
replacements, as `key=value` fields joined by spaces:

    t=1 p=1 s=move a=w passes=0 moved=- hit=1 W=Pa1,Ra2,... B=... hits=- window=- pending=0,0

A piece is its letter, its square and its flags: `s` small side up, `m` moved, `a` anchored
(this movement phase), `f` fired, `l` launched in this missile phase (`Kb2s`, `Pe5f`). A hit
is `h<id>:<type><firer>><target>`, `-` for a firer no longer on the board and a trailing `x`
when cancelled (`h1:Ne5>g6`, `h2:D->g6x`). The window is `<pull|push>:<now>:<from>:<generator>`.
"""

import re
from typing import Final

from domain.spacewar.board import NAMES, SIDE_LETTERS, SQUARES, parse_square, sort_key
from domain.spacewar.pieces import GENERATORS, KINDS, MISSILE, Piece
from domain.spacewar.state import COMBAT, LAUNCH, MOVE, REPLACE, Hit, State, Window, phase_kind
from domain.spacewar.variant import Config

KEYS: Final = ("t", "p", "s", "a", "passes", "moved", "hit", "W", "B", "hits", "window",
               "pending")  # fmt: skip
_SQ = r"[a-p](?:1[0-2]|[1-9])"
_PIECE = re.compile(rf"([KDENRP])({_SQ})([smafl]*)")
_HIT = re.compile(rf"h([1-9][0-9]*):([DEN])({_SQ}|-)>({_SQ})(x?)")
_WINDOW = re.compile(rf"(pull|push):({_SQ}):({_SQ}):({_SQ})")
_STEPS: Final = {"movement": (MOVE,), "force combat": (COMBAT, REPLACE),
                 "missile": (LAUNCH, REPLACE)}  # fmt: skip


def _piece_text(sq: int, p: Piece) -> str:
    flags = "".join(flag for flag, on in (("s", p.small), ("m", p.moved), ("a", p.anchored),
                                          ("f", p.fired), ("l", p.launched)) if on)  # fmt: skip
    return f"{p.kind}{NAMES[sq]}{flags}"


def _hit_text(h: Hit) -> str:
    firer = "-" if h.firer is None else NAMES[h.firer]
    return f"h{h.id}:{h.kind}{firer}>{NAMES[h.target]}{'x' if h.cancelled else ''}"


def format_position(state: State) -> str:
    sides = []
    for side in (0, 1):
        pieces = [_piece_text(sq, p) for sq in sorted(range(SQUARES), key=sort_key)
                  if (p := state.board[sq]) is not None and p.owner == side]  # fmt: skip
        sides.append(",".join(pieces) or "-")
    hits = ",".join(_hit_text(h) for h in state.hits) or "-"
    w = state.window
    window = f"{w.attack}:{NAMES[w.now]}:{NAMES[w.origin]}:{NAMES[w.generator]}" if w else "-"
    moved = ",".join(map(str, state.groups)) or "-"
    return (f"t={state.turn} p={state.phase} s={state.step} a={SIDE_LETTERS[state.actor]} "
            f"passes={state.passes} moved={moved} hit={state.next_hit} W={sides[0]} "
            f"B={sides[1]} hits={hits} window={window} "
            f"pending={state.pending[0]},{state.pending[1]}")  # fmt: skip


def _square(text: str) -> int:
    sq = parse_square(text)
    if sq is None:
        raise ValueError(f"{text!r} is not a square")
    return sq


def _int(text: str, what: str, least: int) -> int:
    if not text.isdigit() or int(text) < least:
        raise ValueError(f"{what} must be an integer of at least {least}, not {text!r}")
    return int(text)


def parse_position(text: str, config: Config) -> State:
    """A state from the position notation; raises ValueError."""
    fields: dict[str, str] = {}
    for item in text.split():
        key, eq, value = item.partition("=")
        if not eq or key not in KEYS:
            raise ValueError(f"unknown field {item!r} (fields: {', '.join(KEYS)})")
        if key in fields:
            raise ValueError(f"field {key} given twice")
        fields[key] = value
    missing = [k for k in KEYS if k not in fields]
    if missing:
        raise ValueError(f"missing fields: {', '.join(missing)}")
    turn = _int(fields["t"], "t", 1)
    phase = _int(fields["p"], "p", 1)
    if phase > 8:
        raise ValueError("p is a phase 1 to 8")
    step = fields["s"]
    if step not in _STEPS[phase_kind(phase)]:
        allowed = " or ".join(_STEPS[phase_kind(phase)])
        raise ValueError(f"phase {phase} is a {phase_kind(phase)} phase: s={allowed}")
    if fields["a"] not in SIDE_LETTERS:
        raise ValueError("a is w or b")
    actor = SIDE_LETTERS.index(fields["a"])
    passes = _int(fields["passes"], "passes", 0)
    if passes > 1:
        raise ValueError("passes is 0 or 1: two passes in a row end the step")
    groups: tuple[int, ...] = ()
    if fields["moved"] != "-":
        groups = tuple(_int(g, "a moved group", 1) for g in fields["moved"].split(","))
        if any(g > 4 for g in groups) or len(groups) > 4:
            raise ValueError("moved lists up to 4 groups, each 1 to 4")
    next_hit = _int(fields["hit"], "hit", 1)
    board: list[Piece | None] = [None] * SQUARES
    for side, key in enumerate("WB"):
        if fields[key] == "-":
            continue
        for token in fields[key].split(","):
            m = _PIECE.fullmatch(token)
            if not m:
                raise ValueError(f"bad piece {token!r} (e.g. Kb2, Pe5f, Db3sma)")
            kind, sq, flags = m.group(1), _square(m.group(2)), m.group(3)
            if board[sq] is not None:
                raise ValueError(f"two pieces on {NAMES[sq]}")
            if len(set(flags)) != len(flags):
                raise ValueError(f"{token}: a flag written twice")
            allowed = "fl" if kind == MISSILE else "sma"
            if not set(flags) <= set(allowed):
                raise ValueError(f"{token}: flags of a {'missile' if kind == MISSILE else 'ship'} "
                                 f"are {allowed}")  # fmt: skip
            if "a" in flags and kind not in GENERATORS:
                raise ValueError(f"{token}: only Tractors, Pressors and Immobilizers anchor")
            if "l" in flags and "f" not in flags:
                raise ValueError(f"{token}: a launched missile is fired")
            assert kind in KINDS
            board[sq] = Piece(side, kind, "s" in flags, "m" in flags, "a" in flags,
                              "f" in flags, "l" in flags)  # fmt: skip
    hits: list[Hit] = []
    if fields["hits"] != "-":
        for token in fields["hits"].split(","):
            m = _HIT.fullmatch(token)
            if not m:
                raise ValueError(f"bad hit {token!r} (e.g. h1:Ne5>g6, h2:D->g6x)")
            firer = None if m.group(3) == "-" else _square(m.group(3))
            hit = Hit(int(m.group(1)), m.group(2), firer, _square(m.group(4)), m.group(5) == "x")
            if board[hit.target] is None:
                raise ValueError(f"{token}: no piece on {NAMES[hit.target]}")
            if hit.id >= next_hit or any(h.id == hit.id for h in hits):
                raise ValueError(f"{token}: hit ids are distinct and below hit={next_hit}")
            hits.append(hit)
    window = None
    if fields["window"] != "-":
        m = _WINDOW.fullmatch(fields["window"])
        if not m:
            raise ValueError("bad window (e.g. push:h7:g6:e5)")
        window = Window(m.group(1), _square(m.group(2)), _square(m.group(3)), _square(m.group(4)))
        if board[window.now] is None or board[window.origin] is not None:
            raise ValueError("the window's piece stands on its first square, its origin is empty")
        if step != COMBAT:
            raise ValueError("a response window is open only in force combat")
    pending_text = fields["pending"].split(",")
    if len(pending_text) != 2:
        raise ValueError("pending is two counts, White's and Black's: 0,1")
    pw, pb = (_int(t, "pending", 0) for t in pending_text)
    if step == REPLACE and not (pw or pb):
        raise ValueError("a replacement step has a replacement to place")
    if step == REPLACE and not (pw, pb)[actor]:
        raise ValueError("the side to act in a replacement step has a replacement to place")
    return State(config, tuple(board), turn, phase, step, actor, passes, groups, False,
                 tuple(hits), next_hit, window, (pw, pb))  # fmt: skip
