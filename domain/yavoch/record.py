"""The position record (docs/rules/yavoch.md, "Hand-set positions"): `format_record` writes
the field and the mover as one line, `read_position` reads one back as a game's starting
position.
"""

from dataclasses import replace

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.yavoch.actions import LETTERS
from domain.yavoch.board import Board, Ship, capacity
from domain.yavoch.field import Position
from domain.yavoch.notation import Kind, format_position, parse_position
from domain.yavoch.pieces import Gate
from domain.yavoch.state import State


def format_record(state: State) -> str:
    """The field as one line: `<player><letter><Lxy>[:<energy>]` for ships, gates (`1G125`,
    pairs in order) and mines (`2M333`), `E<Lxy>:<k>` for energy tokens; then the mover."""
    board = state.board
    items = [
        f"{s.owner}{s.kind.value}{format_position(p)}" + (f":{s.energy}" if s.energy else "")
        for p, s in sorted(board.ships.items())
    ]
    gates = sorted(board.gates.items(), key=lambda pg: (pg[1].owner, pg[1].pair, pg[0]))
    items += [f"{g.owner}G{format_position(p)}" for p, g in gates]
    items += [f"{o}M{format_position(p)}" for p, o in sorted(board.mines.items())]
    items += [f"E{format_position(p)}:{k}" for p, k in sorted(board.tokens.items())]
    return " ".join(items) + f" / {state.mover + 1}"


def read_position(state: State, text: str) -> State:
    """A hand-set position (`format_record`'s form): setup skipped, levels 1-2 for player one."""
    body, _, mover = text.rpartition("/")
    if mover.strip() not in ("1", "2"):
        raise VariantError(ErrorCode.BAD_POSITION, "a position ends with ` / 1` or ` / 2`")
    ships: dict[Position, Ship] = {}
    gates: dict[Position, Gate] = {}
    mines: dict[Position, int] = {}
    tokens: dict[Position, int] = {}
    pairs: dict[int, int] = {}
    try:
        for item in body.split():
            head, _, energy = item.partition(":")
            if head[0] == "E":
                tokens[parse_position(head[1:])] = int(energy)
                continue
            owner, kind, p = int(head[0]), LETTERS[head[1]], parse_position(head[2:])
            if owner not in (1, 2):
                raise ValueError(f"player {owner}")
            if kind is Kind.GATE:
                gates[p] = Gate(owner, pairs.get(owner, 0) // 2)
                pairs[owner] = pairs.get(owner, 0) + 1
            elif kind is Kind.MINE:
                mines[p] = owner
            else:
                ships[p] = Ship(kind, owner, int(energy or 0))
                if ships[p].energy > capacity(state.cfg, kind):
                    raise ValueError(f"{item}: over capacity (Y-5.50)")
        board = Board(ships, gates, mines, tokens)
        board.occupancy  # noqa: B018  # validates what stands where (Y-0.3)
    except (ValueError, KeyError, IndexError) as exc:
        raise VariantError(ErrorCode.BAD_POSITION, f"bad Yavoch position: {exc}") from None
    seat = int(mover.strip()) - 1  # a position without a Command ship is over (rules.py)
    return replace(state, board=board, levels=(1, 2), placed=(True, True), mover=seat, number=1)
