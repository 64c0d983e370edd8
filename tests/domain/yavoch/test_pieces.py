"""Pieces and counts of section 2 (Y-2.1 to Y-2.8, Y-R6, Y-R7, Y-R33, Y-R34) and the piece
data of Y-5.1 and Y-5.50."""

from collections import Counter

import pytest

from domain.yavoch.notation import Kind
from domain.yavoch.pieces import (
    COMPONENTS,
    DECK,
    DEFAULT_FLEET,
    DIE_FACES,
    IMPACTS,
    PIECE_SPECS,
    RECIPES,
    RULESETS,
    Fleet,
    Gate,
    Ruleset,
    capacity,
    default_fleet,
    needs_energy_to_move,
)


def test_default_fleet_counts() -> None:
    # Y-2.1 / Y-R6 / Y-0.4: 1 C, 3 N, 4 S, 2 A, 10 T, 1 gate pair
    assert DEFAULT_FLEET.counts() == {
        Kind.COMMAND: 1,
        Kind.NEORNITH: 3,
        Kind.SQUAM: 4,
        Kind.ARCHID: 2,
        Kind.TRYCH: 10,
        Kind.GATE: 2,
    }


def test_default_fleet_is_22_pieces_20_ships() -> None:
    # Y-2.1: 22 pieces, 20 of them ships; Y-0.3 / Y-R7: gates are not ships
    assert DEFAULT_FLEET.pieces == 22
    assert DEFAULT_FLEET.ships == 20


@pytest.mark.parametrize("ruleset", RULESETS)
def test_both_rulesets_use_the_same_fleet(ruleset: Ruleset) -> None:
    # Y-0.1: full is decker plus cards, events and weapons; Y-2.1: each side the same fleet
    assert default_fleet(ruleset) == Fleet()


def test_unknown_ruleset_is_refused() -> None:
    # Y-0.1: exactly two rulesets
    with pytest.raises(ValueError, match=r"Y-0\.1"):
        default_fleet("chess")  # type: ignore[arg-type]


def test_fleet_must_fit_two_home_levels() -> None:
    # Y-2.1: at most 50 pieces
    assert Fleet(trych=38).pieces == 50
    with pytest.raises(ValueError, match=r"Y-2\.1"):
        Fleet(trych=39)


def test_fleet_counts_are_not_negative() -> None:
    # Y-2.1 (configurable `fleet.*`, Y-0.4)
    with pytest.raises(ValueError, match=r"Y-2\.1"):
        Fleet(squam=-1)


def test_gate_pairs_count_two_gates_each() -> None:
    # Y-2.1 / Y-2.2: a pair is 2 gates
    assert Fleet(gate_pairs=2).counts()[Kind.GATE] == 4


def test_partner_is_same_owner_same_pair_only() -> None:
    # Y-2.2: same player, same pair; never another pair or the other player
    assert Gate(1, 0).is_partner_of(Gate(1, 0))
    assert not Gate(1, 0).is_partner_of(Gate(1, 1))
    assert not Gate(1, 0).is_partner_of(Gate(2, 0))


def test_gate_owner_is_a_player() -> None:
    # Y-0.2 / Y-2.2
    with pytest.raises(ValueError, match=r"Y-0\.2"):
        Gate(3)


def test_capacities() -> None:
    # Y-2.3 / Y-5.50: 5 for C N S A, 1 for a Trych, 0 for a gate
    for kind in (Kind.COMMAND, Kind.NEORNITH, Kind.SQUAM, Kind.ARCHID):
        assert capacity(kind) == 5
        assert PIECE_SPECS[kind].capacity == 5
    assert capacity(Kind.TRYCH) == 1
    assert capacity(Kind.GATE) == 0


def test_capacities_are_configurable() -> None:
    # Y-0.4 `capacity.ship`, `capacity.trych`
    assert capacity(Kind.SQUAM, ship=7) == 7
    assert capacity(Kind.TRYCH, trych=2) == 2


def test_mines_and_tokens_have_no_capacity() -> None:
    # Y-0.3: mines and energy tokens are not ships
    with pytest.raises(ValueError, match=r"Y-2\.3"):
        capacity(Kind.MINE)


def test_energy_needed_to_move() -> None:
    # Y-2.3 / Y-5.1: C N S A need energy to move; Trych and gates do not
    assert {k for k in PIECE_SPECS if needs_energy_to_move(k)} == {
        Kind.COMMAND,
        Kind.NEORNITH,
        Kind.SQUAM,
        Kind.ARCHID,
    }


def test_piece_summary_specials() -> None:
    # Y-2.3: Trych attacks by detonation only, gates never; C never teleports; gates teleport
    # others but are not teleported (Y-5.5: "a ship other than a Command ship")
    assert {k for k, s in PIECE_SPECS.items() if s.attacks} == {
        Kind.COMMAND,
        Kind.NEORNITH,
        Kind.SQUAM,
        Kind.ARCHID,
    }
    assert {k for k, s in PIECE_SPECS.items() if s.teleports} == {
        Kind.NEORNITH,
        Kind.SQUAM,
        Kind.ARCHID,
        Kind.TRYCH,
    }
    # Y-5.40: a Trych never lays mines
    assert not PIECE_SPECS[Kind.TRYCH].lays_mines


def test_die_of_fate() -> None:
    # Y-2.6: one ten-sided die showing 0-9
    assert DIE_FACES == (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)


def test_deck_is_56_cards_in_canonical_order() -> None:
    # Y-2.7 [FULL] / Y-R33: 50 component cards then 6 impact cards
    assert len(DECK) == 56
    assert len(set(DECK)) == 56
    assert DECK[:6] == ("C-AMI-T", "C-AMI-S", "C-AMI-N", "C-AMI-A", "C-AMI-X", "C-DEC-T")
    assert DECK[49] == "C-ANY-X"
    assert DECK[50:] == ("I-EF", "I-ED", "I-CA", "I-CD", "I-MAS", "I-UAI")
    assert len(IMPACTS) == 6


def test_recipes_three_components_each() -> None:
    # Y-2.8 [FULL] / Y-R34: each weapon needs exactly 3 components; 7 offensive, 2 defensive
    assert all(len(parts) == 3 for _, parts in RECIPES.values())
    kinds = Counter(kind for kind, _ in RECIPES.values())
    assert kinds == {"offensive": 7, "defensive": 2}
    assert RECIPES["TB"] == ("offensive", frozenset({"FEE", "GRP", "MMP"}))
    assert RECIPES["SD"] == ("defensive", frozenset({"AMI", "WHI", "MMP"}))


def test_each_component_in_exactly_three_recipes() -> None:
    # Y-2.8 [FULL]: each component appears in exactly three recipes (the wild card in none)
    uses = Counter(c for _, parts in RECIPES.values() for c in parts)
    assert {c: uses[c] for c in COMPONENTS} == {c: (0 if c == "ANY" else 3) for c in COMPONENTS}
