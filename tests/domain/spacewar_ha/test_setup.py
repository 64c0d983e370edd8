"""Setup, configuration, board and position notation (HA-0, HA-1, HA-2, HA-3)."""

import pytest

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.core.variant import describe
from domain.spacewar_ha import SPACEWAR_HA, parse_variant
from tests.domain.spacewar_ha.helpers import BASES, at, legal, new, pieces

START = (
    "w 1 0 Ra1:9/6,Nb1:3/3,Bc1:6/9,Qd1:3/9,Ke1:9/18/6,Bf1:6/9,Ng1:3/3,Rh1:9/6,"
    "ra8:9/6,nb8:3/3,bc8:6/9,qd8:3/9,ke8:9/18/6,bf8:6/9,ng8:3/3,rh8:9/6 " + BASES + " -"
)


def test_start_position() -> None:
    """HA-3.1, HA-3.2, HA-3.3, HA-2.1, HA-R2, HA-R3: the chess back ranks with each piece
    replaced, no pawns, every value at its start, Bases d2 e2 / d7 e7; White acts first
    (HA-0.1); the board is 8 x 8 (HA-1.1, HA-R1)."""
    state = new()
    assert SPACEWAR_HA.position(state) == START
    assert state.pos.board.width == state.pos.board.height == 8
    assert SPACEWAR_HA.to_act(state) == {0}
    assert state.pos.holds == ()


def test_start_legal_actions_by_hand() -> None:
    """HA-4.1, HA-5.2–HA-5.6: White's 47 opening actions, derived by hand: Shooters 4+4,
    Medic 6 (no Repair or Supply: all full, HA-R25), Scouts 3+3, Tractor 6 moves and 5 forces
    (d8 along the file, c1 and e1 both ways), Defenders 2 moves and 6 fire amounts each at the
    Defender on their file."""
    acts = legal(new())
    assert len(acts) == 47
    assert {a for a in acts if a.startswith("Q")} == {
        "Qd1-b3", "Qd1-c2", "Qd1-d2", "Qd1-d3", "Qd1-e2", "Qd1-f3",
        "Qd1>c1<", "Qd1>c1>", "Qd1>d8<", "Qd1>e1<", "Qd1>e1>",
    }  # fmt: skip
    assert {a for a in acts if a.startswith("K")} == {
        "Ke1-c3", "Ke1-d2", "Ke1-e2", "Ke1-e3", "Ke1-f2", "Ke1-g3"}  # fmt: skip
    assert {a for a in acts if a.startswith("Ra1")} == {"Ra1-a2", "Ra1-a3"} | {
        f"Ra1*a8({k})" for k in range(1, 7)}  # fmt: skip


def test_bases_are_marked_squares() -> None:
    """HA-0.2, HA-1.3, HA-R4: a Base is a square, not a piece; the checkering is irrelevant."""
    state = new()
    assert len(state.pos.pieces) == 16
    assert [(x.owner, state.pos.board.name(x.square)) for x in state.pos.bases] == [
        (0, "d2"), (0, "e2"), (1, "d7"), (1, "e7")]  # fmt: skip


def test_values_per_kind() -> None:
    """HA-2.1, HA-2.2, HA-R21: the values of each kind are state; the Medic has no Ammo."""
    state = new()
    by = {(p.kind, p.owner): p for p in state.pos.pieces}
    assert (by["Q", 0].health, by["Q", 0].ammo) == (3, 9)
    assert (by["R", 0].health, by["R", 0].ammo) == (9, 6)
    assert (by["N", 0].health, by["N", 0].ammo) == (3, 3)
    assert (by["B", 0].health, by["B", 0].ammo) == (6, 9)
    medic = by["K", 1]
    assert (medic.health, medic.ammo, medic.repair, medic.supply) == (9, 0, 18, 6)
    assert all((x.repair, x.supply) == (36, 72) for x in state.pos.bases)


def test_configuration_parameters() -> None:
    """HA-0.3: board, setup, bases, cap_at_start, medic_can_jump, turn_limit; Black mirrors."""
    config = parse_variant("board=6x6+setup=Ka1/Qb2+bases=c2+turn_limit=5+medic_can_jump=true")
    assert (config.board, config.turn_limit, config.medic_can_jump) == ("6x6", 5, True)
    state = new(variant=config.variant)
    assert pieces(state) == "Ka1:9/18/6,Qb2:3/9,qb5:3/9,ka6:9/18/6"
    assert SPACEWAR_HA.position(state).split()[4] == "Wc2:36/72,Bc5:36/72"
    assert SPACEWAR_HA.create("").variant == ""
    assert [p["name"] for p in describe(SPACEWAR_HA.variants)["parameters"]] == [
        "board", "setup", "bases", "cap_at_start", "medic_can_jump", "turn_limit"]  # fmt: skip


@pytest.mark.parametrize("variant", ["board=9x9+setup=Ka5", "bases=none", "board=1x1",
                                     "setup=Ka1/Qa1", "turn_limit=0", "colour=red"])  # fmt: skip
def test_bad_variants(variant: str) -> None:
    """HA-0.3: a setup outside White's half, no Bases, an unknown item are refused."""
    with pytest.raises(VariantError) as err:
        SPACEWAR_HA.create(variant)
    assert err.value.code is ErrorCode.BAD_VARIANT


def test_position_round_trip_and_start_from_it() -> None:
    """HA-1.1: squares are written e4; a position prints as it parses, and a game starts from
    any position (CreateGame.position)."""
    text = "b 7 1 Qd4:2/0,Rh1:9/6,ke8:1/0/3,nc6:3/1 Wd2:x,We2:36/72,Bd7:10/2,Be7:x d4#e5"
    with pytest.raises(VariantError):  # d4 and e5: no piece on e5
        SPACEWAR_HA.create("", text)
    text = text.replace("nc6", "ne5")
    created = SPACEWAR_HA.create("", text)
    canonical = "b 7 1 Rh1:9/6,Qd4:2/0,ne5:3/1,ke8:1/0/3 Wd2:x,We2:36/72,Bd7:10/2,Be7:x d4#e5"
    assert created.position == canonical  # pieces by square
    state = SPACEWAR_HA.start(created)
    assert SPACEWAR_HA.position(state) == canonical
    assert state.pos.held(state.pos.board.parse("e5") or 0)


@pytest.mark.parametrize("text", [
    "w 1 0 Qd4:3/9,Qd4:3/9 " + BASES + " -",  # two pieces on a square
    "w 1 0 Qz4:3/9 " + BASES + " -",  # no such square
    "w 1 0 Qd4:0/9 " + BASES + " -",  # 0 Health: captured
    "w 1 0 Kd4:9/6 " + BASES + " -",  # a Medic has three values
    "w 1 0 qd2:3/9 " + BASES + " -",  # an enemy on an uncaptured Base
    "w 1 0 Qd4:3/9 Wd2:x,We2:x,Bd7:1/1 -",  # White's Bases all captured: over
    "x 1 0 - " + BASES + " -",
    "w 0 0 - " + BASES + " -",
    "w 1 0 -",
])  # fmt: skip
def test_bad_positions(text: str) -> None:
    """HA-8.1, HA-5.50: a position must be readable and not over."""
    with pytest.raises(VariantError) as err:
        SPACEWAR_HA.create("", text)
    assert err.value.code is ErrorCode.BAD_POSITION


def test_render_and_view() -> None:
    """HA-7.1: every value of every piece and Base is public: in the view and the picture."""
    state = at("Qd4:2/5,ke5:4/3/1", holds="d4#e5")
    for seat in (0, 1, None):
        view = SPACEWAR_HA.view(state, seat)
        assert view["pieces"][1] == {"square": "e5", "owner": 1, "kind": "K", "name": "Medic",
                                     "health": 4, "ammo": None, "repair": 3, "supply": 1,
                                     "immobilised": True}  # fmt: skip
    assert view["holds"] == [{"tractor": "d4", "held": "e5"}]
    text = SPACEWAR_HA.render(state)
    assert "e5 Black Medic: H4 R3 S1 immobilised" in text
    assert " 5 . . . . k . . ." in text
