"""Shared helpers for the 3-D Chess rules tests."""

from domain.chess3d import CHESS3D, Move, State
from domain.chess3d.geometry import NAMES, square
from tests.rulesets.referee import Referee


def fen_of(men: dict[str, str], side: str = "w", rest: str = "- - - 0 1 -") -> str:
    """A 3D-FEN with `men` ({"IE1": "K", ...}) and the given side and remaining fields."""
    levels = []
    for z in range(3):
        ranks = []
        for y in range(7, -1, -1):
            text, run = "", 0
            for x in range(8):
                man = men.get(NAMES[square(x, y, z)])
                if man is None:
                    run += 1
                    continue
                if run:
                    text, run = text + str(run), 0
                text += man
            ranks.append(text + (str(run) if run else ""))
        levels.append("/".join(ranks))
    return f"{'|'.join(levels)} {side} {rest}"


REFEREE = Referee(CHESS3D, lambda state: state.pos.turn)
act = REFEREE.act  # (state, text, seat=None): must succeed
play = REFEREE.play  # (state, *texts), each by the side to move
refuse = REFEREE.refuse  # (state, text, seat=None): the Rejection from parsing or deciding


def new(position: str = "", variant: str = "") -> State:
    return REFEREE.start(variant, position)


def moves_from(state: State, cube: str) -> set[str]:
    """Destination cubes of the legal moves from `cube` (promotions collapsed)."""
    return {
        NAMES[a.to_square]
        for a in CHESS3D.legal_actions(state, state.pos.turn)
        if isinstance(a, Move) and NAMES[a.from_square] == cube
    }


def legal_texts(state: State) -> set[str]:
    """Canonical texts of the side to move's legal moves."""
    return REFEREE.legal_texts(state, keep=lambda a: isinstance(a, Move))
