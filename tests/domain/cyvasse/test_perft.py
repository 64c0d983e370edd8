"""Perft data files (`*.perft`) run as tests, cross-checked against the naive reference."""

from pathlib import Path

import pytest

from domain.cyvasse import CYVASSE, Move
from tests.domain.cyvasse import reference

HERE = Path(__file__).parent


def _cases() -> list[tuple[str, str, int, int]]:
    cases = []
    for path in sorted(HERE.glob("*.perft")):
        for line in path.read_text().splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            variant, position, depth, count = (part.strip() for part in line.split(" ; "))
            cases.append((variant, position, int(depth), int(count)))
    return cases


CASES = _cases()


def test_perft_file_covers_versions_boards_and_options() -> None:
    """The data files hold A, B and C, all three boards, options b-g, the hex options and full
    setups at depth 1-3."""
    # CY-0.1, CY-9.1, CY-9.2, CY-9.3, CY-9.4, CY-9.5, CY-9.8, CY-9.9, CY-9.10
    variants = {variant for variant, _, _, _ in CASES}
    assert {"A", "B", "B+square10", "A+dragon-reserve+dragonfyre+super-trebuchet", "C",
            "C+square10", "C+dragonfyre+fortress-promotion+fortress-storming+wildfyre",
            "A+hex91", "B+hex91", "C+hex91", "B+hex91+sea-movement", "B+hex91+dragonfyre",
            } <= variants  # fmt: skip
    assert len({(variant, position) for variant, position, _, _ in CASES}) >= 10
    assert {depth for _, _, depth, _ in CASES} == {1, 2, 3}


@pytest.mark.parametrize(("variant", "position", "depth", "count"), CASES)
def test_perft(variant: str, position: str, depth: int, count: int) -> None:
    """Move generation: the number of legal action sequences matches the data file."""
    # CY-4.2, CY-5, CY-6.1, CY-6.2-6.4
    state = CYVASSE.start(CYVASSE.create(variant, position))
    assert CYVASSE.perft(state, depth) == count


@pytest.mark.parametrize(
    ("variant", "position", "depth", "count"), [case for case in CASES if case[2] <= 2]
)
def test_perft_matches_reference_generator(
    variant: str, position: str, depth: int, count: int
) -> None:
    """The naive reference generator agrees with the file (and so with the engine) at depth
    <= 2, and both list the same first actions."""
    # CY-4.2, CY-5, CY-6.1, CY-5.6, CY-6.2-6.4, CY-R15, CY-R19..R35, CY-R44..R46
    pos = reference.parse(variant, position)
    assert reference.perft(pos, depth) == count
    if depth == 1:
        state = CYVASSE.start(CYVASSE.create(variant, position))
        engine = {
            CYVASSE.format_action(state, a)
            for a in CYVASSE.legal_actions(state, state.pos.turn)
            if isinstance(a, Move)
        }
        assert engine == {reference.text(a) for a in reference.legal(pos)}
