"""Perft data files (`*.perft`) run as tests, cross-checked against the naive reference."""

from pathlib import Path

import pytest

from domain.chess3d import CHESS3D, Move
from tests.domain.chess3d import reference
from tests.domain.chess3d.helpers import new

HERE = Path(__file__).parent


def _cases() -> list[tuple[str, int, int]]:
    cases = []
    for path in sorted(HERE.glob("*.perft")):
        for line in path.read_text().splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fen, depth, count = (part.strip() for part in line.split(";"))
            cases.append((fen, int(depth), int(count)))
    return cases


CASES = _cases()


def test_perft_files_cover_start_and_five_more_positions() -> None:
    """The data files hold the start position at depths 1-3 and at least five others."""
    # C3-9.1, C3-9.2
    fens = {fen for fen, _, _ in CASES}
    assert len(fens) >= 6
    start = CHESS3D.position(new())
    assert {d for fen, d, _ in CASES if fen == start} == {1, 2, 3}


@pytest.mark.parametrize(("fen", "depth", "count"), CASES)
def test_perft(fen: str, depth: int, count: int) -> None:
    """Move generation: the number of legal move sequences matches the data file."""
    # C3-4.2, sections 5 and 6
    assert CHESS3D.perft(new(fen), depth) == count


@pytest.mark.parametrize(("fen", "depth", "count"), [case for case in CASES if case[1] <= 2])
def test_perft_matches_reference_generator(fen: str, depth: int, count: int) -> None:
    """The naive reference generator agrees with the file (and so with the engine) at depth
    <= 2, and both list the same first moves."""
    # C3-4.2, sections 5 and 6
    position = reference.parse(fen)
    assert reference.perft(position, depth) == count
    if depth == 1:
        state = new(fen)
        engine = {
            CHESS3D.format_action(state, a).replace("x", "-")
            for a in CHESS3D.legal_actions(state, state.pos.turn)
            if isinstance(a, Move)
        }
        assert engine == reference.move_names(position)
