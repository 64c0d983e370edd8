"""Perft data files (`*.perft`) run as tests, cross-checked against the naive reference."""

from math import comb
from pathlib import Path

import pytest

from domain.yiora import YIORA, Move
from domain.yiora.geometry import NAMES
from domain.yiora.position import format_position, play
from tests.domain.yiora import reference
from tests.domain.yiora.helpers import START, new

HERE = Path(__file__).parent
REFERENCE_LIMIT = 12_000  # counts the naive reference re-checks on every run


def _cases() -> list[tuple[str, int, int, str]]:
    cases = []
    for path in sorted(HERE.glob("*.perft")):
        for line in path.read_text().splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            position, depth, count, *variant = (part.strip() for part in line.split(";"))
            cases.append((position, int(depth), int(count), variant[0] if variant else ""))
    return cases


CASES = _cases()


def _rules(variant: str) -> reference.RefRules:
    return reference.RefRules(
        overlord_only="mate_rule=overlord_only" in variant,
        repetition_count=2 if "repetition_count=2" in variant else 3,
        no_capture_limit=0 if "no_capture_limit=off" in variant else 50,
    )


def test_perft_files_cover_the_start_and_the_named_positions() -> None:
    """The start at depths 1-3 and positions for wrap-around, reflection, checks and mates, the
    automatic draws and the Secondary variations."""
    # YI-10.1, YI-10.2
    positions = {position for position, _, _, _ in CASES}
    assert len(positions) >= 15
    assert {d for p, d, _, v in CASES if p == START and not v} == {1, 2, 3}
    assert {v for _, _, _, v in CASES} >= {"", "secondary_basic", "secondary_complex",
                                           "mate_rule=overlord_only"}  # fmt: skip


@pytest.mark.parametrize(("position", "depth", "count", "variant"), CASES)
def test_perft(position: str, depth: int, count: int, variant: str) -> None:
    """Move generation and the end of the game: the leaf count matches the data file."""
    # sections 5 and 6, YI-4.2, YI-4.4, YI-8.2
    assert YIORA.perft(new(position, variant), depth) == count


@pytest.mark.parametrize(
    ("position", "depth", "count", "variant"), [c for c in CASES if c[2] <= REFERENCE_LIMIT]
)
def test_perft_matches_the_reference_generator(
    position: str, depth: int, count: int, variant: str
) -> None:
    """The naive reference agrees with the file (so with the engine), and at depth 1 both list
    the same moves."""
    # sections 5 and 6, YI-4.2, YI-4.4, YI-8.2
    rules = _rules(variant)
    if variant.startswith("secondary"):
        lockstep = variant == "secondary_complex"
        assert reference.match_perft(reference.parse_match(position), depth, rules,
                                     lockstep) == count  # fmt: skip
        return
    ref = reference.parse(position)
    assert reference.perft(ref, depth, rules) == count
    if depth == 1:
        state = new(position, variant)
        engine = {
            YIORA.format_action(state, a).replace("x", "-")
            for a in YIORA.legal_actions(state, state.games[0].pos.turn)
            if isinstance(a, Move)
        }
        assert engine == reference.move_names(ref)


def test_perft_2_and_the_twelve_moves_that_cut_black_s_replies() -> None:
    """6052 = the sum of Black's replies to White's 78 moves; twelve moves leave Black fewer
    than 78, A-35 to A-25 leaves 72."""
    # YI-10.2
    state = new()
    assert YIORA.perft(state, 2) == 6052
    pos = state.games[0].pos
    replies = {}
    for action in YIORA.legal_actions(state, 0):
        if isinstance(action, Move):
            after = play(pos, (action.from_square, action.to_square))
            replies[f"{NAMES[action.from_square]}-{NAMES[action.to_square]}"] = YIORA.perft(
                YIORA.start(YIORA.create("", format_position(after))), 1
            )
    assert sum(replies.values()) == 6052
    assert len([n for n in replies.values() if n < 78]) == 12
    assert replies["A35-A25"] == 72


def test_secondary_perft_is_the_two_games_interleaved() -> None:
    """The games never interact: a Secondary Basic (or parallel) count is the sum over the
    interleavings of the two games' own counts, and lockstep's is their product per turn."""
    # YI-8.2, YI-8.3, YI-8.4.1, YI-8.4.2, YI-R24
    one = [1, 78, 6052]
    for variant in ("secondary_basic", "secondary_complex+complex_turn_mode=parallel"):
        state = new(variant=variant)
        for depth in (1, 2):
            expected = sum(comb(depth, k) * one[k] * one[depth - k] for k in range(depth + 1))
            assert YIORA.perft(state, depth) == expected
    lockstep = new(variant="secondary_complex")
    assert [YIORA.perft(lockstep, d) for d in (1, 2, 3)] == [78, 78 * 78, 6052 * 78]
