"""The board, the pieces, the setup and the configuration (SW-0 to SW-3)."""

import pytest

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.spacewar import SPACEWAR, parse_variant
from domain.spacewar.board import FILES, NAMES, RANKS, distance, forward
from tests.domain.spacewar.helpers import new, piece, pieces_text, sq


def test_board_is_16_files_by_12_ranks() -> None:
    # SW-1.1, SW-R1: 16 files a-p, 12 ranks; the 16-square side is the back rank
    assert (FILES, RANKS, len(NAMES)) == (16, 12, 192)
    # SW-1.2: squares are file letter + rank number
    assert NAMES[0] == "a1"
    assert NAMES[-1] == "p12"
    assert sq("h6") == 5 * 16 + 7


def test_distance_is_the_king_metric() -> None:
    # SW-1.3, SW-R16: range 3 covers a 7x7 area, range 2 a 5x5 one
    assert distance(sq("e5"), sq("g6")) == 2
    assert sum(distance(sq("h6"), s) <= 3 for s in range(192)) == 49
    assert sum(distance(sq("h6"), s) <= 2 for s in range(192)) == 25


def test_forward_is_up_for_white_down_for_black() -> None:
    # SW-1.4
    assert (forward(0), forward(1)) == (1, -1)


def test_start_position_has_the_ruled_setup() -> None:
    # SW-3.1, SW-3.2, SW-3.3, SW-R2: missiles on the back ranks, ships on ranks 2 and 11
    state = new()
    rank2 = "".join(p.kind for f in "abcdefghijklmnop" if (p := piece(state, f"{f}2")))
    assert rank2 == "RKNEDENRRNEDENKR"
    for f in "abcdefghijklmnop":
        white, black = piece(state, f"{f}1"), piece(state, f"{f}12")
        assert white
        assert white.kind == "P"
        assert white.owner == 0
        assert not white.fired
        assert black
        assert black.kind == "P"
        assert black.owner == 1
        low, high = piece(state, f"{f}2"), piece(state, f"{f}11")
        assert low
        assert high
        assert low.kind == high.kind
        assert high.owner == 1
    # SW-3.4: all ships large, no hits, no anchors; SW-3.5: turn 1 phase 1
    assert all(not p.small and not p.anchored for p in state.board if p)
    assert (state.turn, state.phase, state.step, state.actor, state.hits) == (1, 1, "move", 0, ())


def test_fleet_counts() -> None:
    # SW-2.1, SW-R3: 2 K, 2 D, 4 E, 4 N, 4 R, 16 P per side
    state = new()
    for side in (0, 1):
        counts: dict[str, int] = {}
        for p in state.board:
            if p and p.owner == side:
                counts[p.kind] = counts.get(p.kind, 0) + 1
        assert counts == {"K": 2, "D": 2, "E": 4, "N": 4, "R": 4, "P": 16}


def test_king_placement_outside() -> None:
    # SW-3.2, SW-0.3 king_placement
    state = new(variant="king_placement=outside")
    rank2 = "".join(p.kind for f in "abcdefghijklmnop" if (p := piece(state, f"{f}2")))
    assert rank2 == "KRNEDENRRNEDENRK"


def test_smaller_fleet_leaves_out_inner_pieces() -> None:
    # SW-2.1 fleet (decision: the innermost pieces of a kind are left out)
    state = new(variant="fleet=K1/D2/E4/N4/R4/P8")
    assert piece(state, "b2")
    assert not piece(state, "o2")
    assert piece(state, "a1")
    assert not piece(state, "h1")
    assert piece(state, "p1")
    with pytest.raises(VariantError):
        parse_variant("fleet=K1/K2/E4/N4/R4/P8")


def test_configuration_defaults_and_alternatives() -> None:
    # SW-0.3, SW-R35, SW-R42: defaults are the official rules; the author's values are config
    config = parse_variant("")
    assert (config.missile_step, config.range_tp, config.range_i) == (2, 3, 2)
    assert (config.king_placement, config.beam_hits_reset) == ("inside", "phase")
    assert config.launch_flips
    assert config.auto_pass
    assert config.turn_limit == 0
    other = parse_variant("missile_step=1+range_tp=2+turn_limit=5+auto_pass=false")
    assert other.variant == "auto_pass=false+missile_step=1+range_tp=2+turn_limit=5"
    with pytest.raises(VariantError) as exc:
        SPACEWAR.create("range_tp=0")
    assert exc.value.code is ErrorCode.BAD_VARIANT


def test_pieces_and_states() -> None:
    # SW-0.1, SW-0.2, SW-2.2, SW-2.3, SW-2.4, SW-R13: ships have a side, missiles a status
    state = new()
    k, m = piece(state, "b2"), piece(state, "b1")
    assert k
    assert m
    assert k.owner == 0
    assert not k.small
    assert m.kind == "P"
    assert not m.fired
    assert "W=Pa1,Ra2" in pieces_text(state)


def test_names_are_as_ruled() -> None:
    # SW-R4: Gunboat R, Tractor D, Pressor E, Immobilizer N, Mothership K
    from domain.spacewar.pieces import KIND_NAMES

    assert KIND_NAMES["R"] == "Gunboat"
    assert KIND_NAMES["D"] == "Tractor"
