"""Moving ships and gates: sections 5.1 and 5.2 (Y-5.1 to Y-5.16, Y-R8, Y-R10 to Y-R12,
Y-R15, Y-R25, Y-R31, Y-R61, Y-R67, Y-R70) and Appendix A's movement examples A1 to A5."""

import pytest

from domain.yavoch.field import POSITIONS, Position
from domain.yavoch.movement import (
    Landing,
    Occupancy,
    gate_destinations,
    landing,
    neornith_hops,
    reachable,
    ship_destinations,
    ship_moves,
)
from domain.yavoch.notation import Kind, Piece, format_position, parse_piece, parse_position
from domain.yavoch.pieces import Gate


def pos(text: str) -> Position:
    return parse_position(text)


def board(
    ships: str = "",
    gates: dict[str, Gate] | None = None,
    mines: dict[str, int] | None = None,
    energy: dict[str, int] | None = None,
) -> Occupancy:
    """`ships` like "1S333 2T334"; every ship carries 1 unit unless `energy` says otherwise."""
    placed = {pos(w[-3:]): parse_piece(w[:-3]) for w in ships.split()}
    units = dict.fromkeys(placed, 1) | {pos(k): v for k, v in (energy or {}).items()}
    return Occupancy(
        ships=placed,
        gates={pos(k): g for k, g in (gates or {}).items()},
        mines={pos(k): o for k, o in (mines or {}).items()},
        energy=units,
    )


def dests(occupancy: Occupancy, origin: str, intermediate_on_field: bool = True) -> set[str]:
    found = ship_destinations(occupancy, pos(origin), intermediate_on_field)
    return {format_position(p) for p in found}


def names(text: str) -> set[str]:
    return set(text.split())


def landing_at(occupancy: Occupancy, origin: str, destination: str) -> Landing | None:
    """The landing of the legal move origin -> destination, or None when it is not legal."""
    for move in ship_moves(occupancy, pos(origin)):
        if move.destination == pos(destination):
            return move.landing
    return None


# --- Appendix A on an empty field -------------------------------------------------------------


def test_a1_squam_at_333() -> None:
    # Y-5.11 / A1: long vectors, PU, PD
    assert dests(board("1S333"), "333") == names("311 315 322 324 342 344 351 355 422 511 244 155")


def test_a2_archid_at_333() -> None:
    # Y-5.12 / A2: short vectors, SU, SD
    assert dests(board("1A333"), "333") == names("313 323 331 332 334 335 343 353 433 533 233 133")


@pytest.mark.parametrize("origin", POSITIONS)
def test_a2_archid_has_12_destinations_everywhere(origin: Position) -> None:
    # Y-5.12 / A2: 12 destinations from every position on an empty field
    occupancy = Occupancy(ships={origin: Piece(Kind.ARCHID, 1)}, energy={origin: 1})
    assert len(ship_destinations(occupancy, origin)) == 12


def test_a3_command_ship_at_333_and_111() -> None:
    # Y-5.14 / A3: 8 adjacent, PU, PD, SU, SD
    assert dests(board("1C333"), "333") == names("322 323 324 332 334 342 343 344 422 244 433 233")
    assert dests(board("1C111"), "111") == names("112 121 122 211")


def test_a4_trych_at_333_and_111() -> None:
    # Y-5.10 / A4: 8 adjacent, PU, PD; not the slant column
    assert dests(board("1T333"), "333") == names("322 323 324 332 334 342 343 344 422 244")
    assert dests(board("1T111"), "111") == names("112 121 122")


def test_a5_neornith_at_333() -> None:
    # Y-5.13 / A5: 16 destinations
    assert dests(board("1N333"), "333") == names(
        "233 234 235 243 245 253 254 255 411 412 413 421 423 431 432 433"
    )


def test_a5_neornith_at_111_and_151() -> None:
    # Y-5.13 / Y-R8 / A5
    assert dests(board("1N111"), "111") == {"211"}
    assert dests(board("1N151"), "151") == {"231", "241"}
    assert dests(board("1N151"), "151", intermediate_on_field=False) == {"231", "241", "251"}


def test_neornith_at_most_16_destinations() -> None:
    # Y-5.13: at most 16 destinations, from anywhere, either setting
    for p in POSITIONS:
        assert len(neornith_hops(p)) <= 16
        assert len(neornith_hops(p, intermediate_on_field=False)) <= 16


def test_neornith_hop_may_equal_a_slant_step() -> None:
    # Y-5.13: (0,+1,+1) + PU = SU, so 333 -> 433 and likewise 333 -> 233 (SD)
    assert {pos("433"), pos("233")} <= set(neornith_hops(pos("333")))


def test_intermediate_rule_matters_only_at_15_and_51() -> None:
    # Y-R8: affects only positions with (x, y) = (1, 5) or (5, 1)
    differ = {
        (p.x, p.y)
        for p in POSITIONS
        if set(neornith_hops(p)) != set(neornith_hops(p, intermediate_on_field=False))
    }
    assert differ == {(1, 5), (5, 1)}


def test_level_three_is_open_to_every_ship() -> None:
    # Y-R31: no asteroid restriction on movement
    for letter, origin in (("T", "244"), ("S", "244"), ("A", "233"), ("N", "234"), ("C", "244")):
        assert any(d.startswith("3") for d in dests(board(f"1{letter}{origin}"), origin))


# --- Y-5.1 energy to move ---------------------------------------------------------------------


@pytest.mark.parametrize("letter", ["C", "N", "S", "A"])
def test_no_energy_no_move(letter: str) -> None:
    # Y-5.1: C N S A need at least 1 unit (attacks included)
    occupancy = board(f"1{letter}333 2T334", energy={"333": 0})
    assert ship_moves(occupancy, pos("333")) == ()


def test_trych_moves_without_energy() -> None:
    # Y-5.1: a Trych needs none
    assert len(dests(board("1T333", energy={"333": 0}), "333")) == 10


# --- Y-5.2 blocking ---------------------------------------------------------------------------


def test_slide_stops_at_a_ship_which_it_may_attack() -> None:
    # Y-5.2 / Y-5.3: nothing beyond the first occupant; the occupant itself is a battle
    occupancy = board("1S333 2T344")
    assert "344" in dests(occupancy, "333")
    assert "355" not in dests(occupancy, "333")
    assert landing_at(occupancy, "333", "344") is Landing.BATTLE


def test_own_ship_blocks_a_slide() -> None:
    # Y-5.2: ships of either side block; Y-5.3: own non-Command ship is a battle target
    occupancy = board("1A333 1T335")
    assert "335" in dests(occupancy, "333")
    assert landing_at(occupancy, "333", "335") is Landing.BATTLE
    occupancy = board("1A333 1T334")
    assert "335" not in dests(occupancy, "333")


def test_gate_blocks_a_slide() -> None:
    # Y-5.2: "Teleport Gates block another ship's movements"
    occupancy = board("1A333", gates={"343": Gate(2)})
    assert "343" in dests(occupancy, "333")
    assert "353" not in dests(occupancy, "333")


def test_mine_blocks_a_slide() -> None:
    # Y-5.2 / Y-5.43: mines block like any occupied position
    occupancy = board("1S333", mines={"422": 1})
    assert "422" in dests(occupancy, "333")
    assert "511" not in dests(occupancy, "333")


def test_blocking_in_every_slide_direction_is_independent() -> None:
    # Y-5.2: one blocked line does not shorten the others (A2 set minus 335, 533)
    occupancy = board("1A333 2T334 2T433")
    assert dests(occupancy, "333") == names("313 323 331 332 334 343 353 433 233 133")


def test_neornith_is_never_blocked() -> None:
    # Y-5.13 / Y-5.2: the intermediate positions may hold anything
    around = "322 323 324 332 334 342 343 344 422 244"
    occupancy = board("1N333 " + " ".join(f"2T{p}" for p in around.split()))
    assert len(dests(occupancy, "333")) == 16


def test_one_step_pieces_ignore_occupants_elsewhere() -> None:
    # Y-5.2: one-step pieces have no intermediate positions
    occupancy = board("1C333 2T311 2T355")
    assert len(dests(occupancy, "333")) == 12


# --- Y-5.3 destination table ------------------------------------------------------------------

# What the destination D holds, for a mover of player 1: (ships, gates, mines).
SETTINGS: dict[str, tuple[str, dict[str, Gate], dict[str, int]]] = {
    "nothing": ("", {}, {}),
    "own gate": ("", {"D": Gate(1)}, {}),
    "enemy gate": ("", {"D": Gate(2)}, {}),
    "enemy ship on enemy gate": ("2TD", {"D": Gate(2)}, {}),
    "own mine": ("", {}, {"D": 1}),
    "enemy mine": ("", {}, {"D": 2}),
    "enemy ship": ("2SD", {}, {}),
    "own ship": ("1SD", {}, {}),
    "own ship on own gate": ("1SD", {"D": Gate(1)}, {}),
    "own ship on enemy gate": ("1SD", {"D": Gate(2)}, {}),
    "enemy ship on own gate": ("2SD", {"D": Gate(1)}, {}),
    "own CS": ("1CD", {}, {}),
}
TABLE = {
    # destination: (Trych, Neornith/Squam/Archid, Command ship)
    "nothing": (Landing.MOVE, Landing.MOVE, Landing.MOVE),
    "own gate": (Landing.ON_OWN_GATE, Landing.ON_OWN_GATE, Landing.ON_OWN_GATE),
    "enemy gate": (Landing.DESTROYED_BY_GATE, Landing.DESTROYED_BY_GATE, Landing.ON_ENEMY_GATE),
    "enemy ship on enemy gate": (None, Landing.GATE_CLASH, Landing.BATTLE),
    "own mine": (None, Landing.ABSORB_MINE, Landing.ABSORB_MINE),
    "enemy mine": (None, Landing.MINE_SACRIFICE, None),
    "enemy ship": (None, Landing.BATTLE, Landing.BATTLE),
    "own ship": (None, Landing.BATTLE, Landing.BATTLE),
    "own ship on own gate": (None, Landing.BATTLE, Landing.BATTLE),
    "own ship on enemy gate": (None, Landing.BATTLE, Landing.BATTLE),
    "enemy ship on own gate": (None, Landing.BATTLE, Landing.BATTLE),
    "own CS": (None, None, None),
}


def setting(holds: str, letter: str, destination: str) -> Occupancy:
    ships, gates, mines = SETTINGS[holds]
    return board(
        f"1{letter}333 {ships.replace('D', destination)}",
        gates={k.replace("D", destination): g for k, g in gates.items()},
        mines={k.replace("D", destination): m for k, m in mines.items()},
    )


@pytest.mark.parametrize("holds", list(TABLE))
@pytest.mark.parametrize(
    ("column", "letter", "destination"),
    [(0, "T", "334"), (1, "A", "334"), (1, "S", "344"), (1, "N", "423"), (2, "C", "334")],
)
def test_destination_table(holds: str, column: int, letter: str, destination: str) -> None:
    # Y-5.3 (Y-5.6, Y-5.7, Y-5.8, Y-5.10, Y-5.41, Y-5.42, Y-R10, Y-R11, Y-R15, Y-R25); a single
    # own gate is singular, so no teleport here (Y-5.5, tested below)
    occupancy = setting(holds, letter, destination)
    assert landing_at(occupancy, "333", destination) is TABLE[holds][column]


def test_enemy_command_ship_on_its_own_gate_is_a_gate_clash() -> None:
    # Y-5.8 / Y-R12: no battle but a roll against the Command ship (decided in section 5.3)
    occupancy = board("1A333 2C334", gates={"334": Gate(2)})
    assert landing_at(occupancy, "333", "334") is Landing.GATE_CLASH


def test_destination_differs_from_origin() -> None:
    # Y-5.3: the destination is different from the origin
    assert landing(board("1A333"), pos("333"), pos("333")) is None


def test_command_ship_may_not_be_attacked_by_its_own_side() -> None:
    # Y-5.3 / Y-R15: no attack on one's own Command ship, by any piece
    for letter in "NSAT":
        occupancy = board(f"1{letter}333 1C334 1C423 1C344")
        assert not dests(occupancy, "333") & {"334", "423", "344"}


# --- Y-5.5 teleport, Y-5.9 leaving a gate, Y-R67, Y-R70 -------------------------------------


@pytest.mark.parametrize("letter", ["T", "N", "S", "A"])
def test_landing_on_own_gate_teleports_to_partner(letter: str) -> None:
    # Y-5.5: a ship other than a Command ship ending on its own empty gate goes to the partner
    target = {"T": "334", "N": "423", "S": "344", "A": "334"}[letter]
    occupancy = board(f"1{letter}333", gates={target: Gate(1), "111": Gate(1)})
    (move,) = (m for m in ship_moves(occupancy, pos("333")) if m.destination == pos(target))
    assert move.landing is Landing.TELEPORT
    assert move.exit == pos("111")


def test_command_ship_never_teleports() -> None:
    # Y-5.5 / Y-5.7 / Y-R11
    occupancy = board("1C333", gates={"334": Gate(1), "111": Gate(1)})
    assert landing_at(occupancy, "333", "334") is Landing.ON_OWN_GATE


def test_teleport_blocked_by_a_ship_on_the_partner() -> None:
    # Y-5.5: "If a gate is occupied ... then teleporting is blocked" (either side's ship)
    for occupant in ("1T111", "2T111"):
        occupancy = board(f"1A333 {occupant}", gates={"334": Gate(1), "111": Gate(1)})
        (move,) = (m for m in ship_moves(occupancy, pos("333")) if m.destination == pos("334"))
        assert move.landing is Landing.ON_OWN_GATE
        assert move.exit is None


def test_singular_gate_never_teleports() -> None:
    # Y-5.36 / Y-R61: a gate without partner never teleports
    occupancy = board("1A333", gates={"334": Gate(1)})
    assert landing_at(occupancy, "333", "334") is Landing.ON_OWN_GATE


def test_singular_enemy_gate_still_destroys() -> None:
    # Y-5.6 / Y-R61: a singular enemy gate still destroys an enemy lander
    occupancy = board("1S333", gates={"344": Gate(2)})
    assert landing_at(occupancy, "333", "344") is Landing.DESTROYED_BY_GATE


def test_gates_of_another_pair_do_not_link() -> None:
    # Y-2.2: a gate links only to the other gate of its own pair
    occupancy = board("1A333", gates={"334": Gate(1, 0), "111": Gate(1, 1), "155": Gate(2, 0)})
    assert landing_at(occupancy, "333", "334") is Landing.ON_OWN_GATE


def test_battle_on_own_gate_does_not_teleport() -> None:
    # Y-5.5: only a landing on a gate with no ship on it teleports
    occupancy = board("1A333 2T334", gates={"334": Gate(1), "111": Gate(1)})
    (move,) = (m for m in ship_moves(occupancy, pos("333")) if m.destination == pos("334"))
    assert move.landing is Landing.BATTLE
    assert move.exit is None


def test_leaving_a_gate_is_a_normal_move() -> None:
    # Y-5.9: a ship on a gate leaves by a normal move, without teleporting
    occupancy = board("1A333", gates={"333": Gate(1), "111": Gate(1)})
    moves = ship_moves(occupancy, pos("333"))
    assert len(moves) == 12
    assert all(m.landing is Landing.MOVE and m.exit is None for m in moves)


def test_no_move_from_own_gate_onto_its_partner() -> None:
    # Y-R67: a ship on its own gate may not end a move on the partner gate
    occupancy = board("1A333", gates={"333": Gate(1), "335": Gate(1)})
    assert "335" not in dests(occupancy, "333")
    assert "334" in dests(occupancy, "333")


def test_no_plain_move_from_own_gate_onto_its_partner_for_every_teleporting_ship() -> None:
    # Y-R67 / Y-R70: every ship other than the Command ship (Trych included) is refused the
    # plain move onto the partner of the own gate it stands on
    for letter in "TA":
        occupancy = board(f"1{letter}333", gates={"333": Gate(1), "334": Gate(1)})
        assert "334" not in dests(occupancy, "333")
        assert landing(occupancy, pos("333"), pos("334")) is None


def test_command_ship_may_move_onto_the_partner_of_its_own_gate() -> None:
    # Y-R70 / Y-5.7: a Command ship never teleports; it lands on the partner and stays there
    occupancy = board("1C333", gates={"333": Gate(1), "334": Gate(1)})
    assert landing(occupancy, pos("333"), pos("334")) == (Landing.ON_OWN_GATE, None)


@pytest.mark.parametrize("letter", ["A", "C"])
@pytest.mark.parametrize("occupant", ["2T334", "2C334", "1S334"])
def test_attack_from_own_gate_onto_a_ship_on_its_partner(letter: str, occupant: str) -> None:
    # Y-R70 / Y-5.3: a battle onto the partner gate stays legal (enemy ship, enemy Command
    # ship, own ship other than the Command ship), and it never teleports (Y-R17, Y-5.5)
    occupancy = board(f"1{letter}333 {occupant}", gates={"333": Gate(1), "334": Gate(1)})
    assert landing(occupancy, pos("333"), pos("334")) == (Landing.BATTLE, None)


def test_attack_from_own_gate_onto_own_command_ship_on_its_partner_is_refused() -> None:
    # Y-R70 allows only the attacks section 5 allows: never the own Command ship (Y-R15);
    # a Trych never ends a move on a ship (Y-5.10)
    occupancy = board("1A333 1C334", gates={"333": Gate(1), "334": Gate(1)})
    assert landing(occupancy, pos("333"), pos("334")) is None
    occupancy = board("1T333 2S334", gates={"333": Gate(1), "334": Gate(1)})
    assert landing(occupancy, pos("333"), pos("334")) is None


def test_move_onto_enemy_gate_partner_is_not_affected_by_y_r67() -> None:
    # Y-R67 names the own gate's partner only; an enemy ship may land on it (and is destroyed)
    occupancy = board("2A333", gates={"333": Gate(1), "335": Gate(1)})
    assert landing_at(occupancy, "333", "335") is Landing.DESTROYED_BY_GATE


# --- Y-5.15, Y-5.16 gates ---------------------------------------------------------------------


def test_gate_moves_like_a_command_ship_without_energy() -> None:
    # Y-5.16: the Command ship's 12 positions; no energy needed
    occupancy = board(gates={"333": Gate(1)})
    assert {format_position(p) for p in gate_destinations(occupancy, pos("333"))} == names(
        "322 323 324 332 334 342 343 344 422 244 433 233"
    )


def test_gate_destination_must_be_unoccupied() -> None:
    # Y-5.16: no ship, gate or mine at the destination
    occupancy = board("2T334", gates={"333": Gate(1), "433": Gate(1)}, mines={"244": 2})
    found = gate_destinations(occupancy, pos("333"))
    assert len(found) == 9
    assert not {pos("334"), pos("433"), pos("244")} & found


def test_gate_with_a_ship_on_it_cannot_move() -> None:
    # Y-5.16
    occupancy = board("1A333", gates={"333": Gate(1)})
    assert gate_destinations(occupancy, pos("333")) == frozenset()


def test_no_other_movement() -> None:
    # Y-5.15 / Y-5.43: mines never move; only ships and gates have move shapes
    with pytest.raises(ValueError, match=r"Y-5\.15"):
        reachable(Kind.MINE, pos("333"), Occupancy())
    with pytest.raises(ValueError, match=r"Y-5\.15"):
        ship_moves(Occupancy(), pos("333"))
    with pytest.raises(ValueError, match=r"Y-5\.16"):
        gate_destinations(Occupancy(), pos("333"))


# --- Y-0.3 occupancy --------------------------------------------------------------------------


def test_energy_tokens_and_empty_positions_are_unoccupied() -> None:
    # Y-0.3: occupied = a ship, a gate or a mine
    occupancy = board("1A111", gates={"222": Gate(1)}, mines={"333": 2})
    assert [format_position(p) for p in POSITIONS if occupancy.is_occupied(p)] == [
        "111",
        "222",
        "333",
    ]


def test_occupancy_refuses_impossible_states() -> None:
    # Y-0.3 / Y-2.2 / Y-5.40
    with pytest.raises(ValueError, match=r"Y-0\.3"):
        Occupancy(ships={pos("111"): Piece(Kind.SQUAM)})  # no owner
    with pytest.raises(ValueError, match=r"Y-0\.3"):
        Occupancy(ships={pos("111"): Piece(Kind.GATE, 1)})  # a gate is not a ship
    with pytest.raises(ValueError, match=r"Y-5\.40"):
        board(gates={"111": Gate(1)}, mines={"111": 1})
    with pytest.raises(ValueError, match=r"Y-2\.2"):
        board(gates={"111": Gate(1), "112": Gate(1), "113": Gate(1)})
    with pytest.raises(ValueError, match=r"Y-0\.3"):
        Occupancy(energy={pos("111"): 1})
