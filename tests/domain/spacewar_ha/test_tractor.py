"""The Tractor: forcing, immobilising, releasing (HA-5.20–HA-5.22, HA-R12, HA-R13, HA-R22,
HA-R23, HA-R24, HA-R26, HA-R28)."""

import pytest

from contracts.spacewar_ha import ActionPlayed
from domain.core import VariantError, fold
from domain.spacewar_ha import SPACEWAR_HA
from tests.domain.spacewar_ha.helpers import (
    BASES,
    act,
    at,
    clause,
    field,
    legal_from,
    new,
    pieces,
    play,
)


def test_pull_and_push() -> None:
    """HA-5.20, HA-R12, HA-1.4: 1 Ammo, the first piece on a line, one square closer (<) or
    farther (>)."""
    state = at("Qd1:3/9,rd5:9/6")
    pulled, _ = act(state, "Qd1>d5<")
    assert pieces(pulled) == "Qd1:3/8,rd4:9/6"
    pushed, _ = act(state, "Qd1>d5>")
    assert pieces(pushed) == "Qd1:3/8,rd6:9/6"


def test_force_lists_by_hand() -> None:
    """HA-5.20: every line's first piece, friend or foe, both ways unless off the board."""
    state = at("Qa1:3/1,Ra4:9/0,rh8:9/6,bc1:6/9,Ke1:9/18/6", bases="Wh2:36/72,Bd7:36/72")
    assert {t for t in legal_from(state, "a1") if ">" in t} == {
        "Qa1>a4<", "Qa1>a4>", "Qa1>h8<", "Qa1>c1<", "Qa1>c1>"}  # fmt: skip
    assert clause(state, "Qa1>h8>") == "HA-5.20"  # off the board


def test_only_the_first_piece_and_ammo_needed() -> None:
    """HA-R12, HA-5.20."""
    state = at("Qd1:3/9,rd4:9/6,rd6:9/6")
    assert clause(state, "Qd1>d6<") == "HA-R12"
    assert clause(at("Qd1:3/0,rd4:9/6"), "Qd1>d4<") == "HA-5.20"
    assert clause(at("Rd1:9/6,rd4:9/6"), "Rd1>d4<") == "HA-5.20"  # only a Tractor forces
    assert clause(at("Rd1:9/6,rd4:9/6"), "Qd1>d4<") == "HA-2.1"  # d1 holds no Tractor


def test_pull_from_adjacent_crashes_into_the_tractor() -> None:
    """HA-5.20, HA-5.30, HA-R11: "or to the same square": the forced piece is the mover."""
    state, _ = act(at("Qa1:3/9,rb2:9/6"), "Qa1>b2<")
    assert pieces(state) == "ra1:6/6"


def test_push_into_a_piece_crashes_into_anything() -> None:
    """HA-R11, HA-5.30: a forced piece crashes into a friend or a foe."""
    state, _ = act(at("Qd1:3/9,rd4:9/6,Rd5:9/6,ka8:9/18/6"), "Qd1>d4>")
    assert pieces(state) == "Qd1:3/8,ka8:9/18/6"
    friends, _ = act(at("Qd1:3/9,Rd4:9/6,Nd5:3/3"), "Qd1>d4>")
    assert pieces(friends) == "Qd1:3/8,Rd5:6/6"


def test_forced_onto_a_base_captures_it_whoever_forced_it() -> None:
    """HA-R26, HA-5.50, HA-8.1, HA-R18: White pushes a Black piece onto White's last Base:
    the Base is captured and Black wins."""
    state = at("Qd5:3/9,rd3:9/6", bases="Wd2:36/72,We2:x,Bd7:36/72")
    after, _events = act(state, "Qd5>d3>")
    assert "Wd2:x" in field(after, 4)
    outcome = SPACEWAR_HA.outcome(after)
    assert outcome is not None
    assert (outcome.result, outcome.reason) == ("0-1", "bases")


def test_immobilise_and_its_limits() -> None:
    """HA-5.21, HA-R13, HA-R22, HA-1.4: an adjacent enemy, free; not a friend, not the piece
    already held; immobilising another releases the first."""
    state = at("Qd4:3/9,Rc4:9/6,re5:9/6,rd5:9/6")
    assert clause(state, "Qd4#c4") == "HA-R13"
    assert clause(state, "Qd4#d6") == "HA-5.21"
    held, _ = act(state, "Qd4#e5")
    assert field(held, 5) == "d4#e5"
    assert pieces(held).startswith("Rc4:9/6,Qd4:3/9")
    again = at("Qd4:3/9,re5:9/6,rd5:9/6", holds="d4#e5")
    assert clause(again, "Qd4#e5") == "HA-R22"
    other, _ = act(again, "Qd4#d5")
    assert field(other, 5) == "d4#d5"


def test_held_piece_fires_and_can_be_forced() -> None:
    """HA-5.21: it may still fire and be forced; HA-R23: forced and still adjacent, it stays
    held; HA-5.22: no longer adjacent, it is free."""
    state = at("Qd4:3/9,Qe6:3/9,re5:9/6", holds="d4#e5")
    stays, _ = act(state, "Qe6>e5>")  # e5 pushed to e4: still adjacent to d4
    assert field(stays, 5) == "d4#e4"
    black = at("Qd4:3/9,re5:9/6", holds="d4#e5", side="b")
    assert legal_from(black, "e5") == {f"Re5*e2({k})" for k in range(1, 7)}
    freed, _ = act(at("Qd4:3/9,Qg5:3/9,re5:9/6", holds="d4#e5"), "Qg5>e5<")
    assert field(freed, 5) == "-"  # pulled to f5: not adjacent to d4


def test_hold_ends_when_the_tractor_moves_or_is_captured() -> None:
    """HA-5.22: the Tractor changing square ends it; so does its capture."""
    state = at("Qd4:3/9,re5:9/6,rh4:9/6", holds="d4#e5")
    moved, _ = act(state, "Qd4-c4")
    assert field(moved, 5) == "-"
    black = at("Qd4:3/9,re5:9/6,rh4:9/6", holds="d4#e5", side="b")
    captured, _ = act(black, "Rh4*d4(3)")
    assert field(captured, 5) == "-"


def test_release_is_a_free_declaration() -> None:
    """HA-4.1, HA-R24, HA-5.22, HA-1.4: `Qd4~` before the action; the same player acts again."""
    state = at("Qd4:3/9,re5:9/6", holds="d4#e5")
    released, _ = act(state, "Qd4~")
    assert field(released, 5) == "-"
    assert SPACEWAR_HA.to_act(released) == {0}
    assert clause(released, "Qd4~") == "HA-5.22"
    assert clause(state, "Qd4~", 1) == "HA-4.1"


def test_a_released_piece_is_not_held_again_in_the_same_turn() -> None:
    """HA-R28: after `Qd4~` the Tractor may not immobilise that piece again this turn (refused
    citing HA-R28, not listed); another piece it may; on its next turn it may hold it again."""
    # HA-R28, HA-R22, HA-R24
    state = at("Qd4:3/9,re5:9/6,rd5:9/6,rh8:9/6", holds="d4#e5")
    released, _ = act(state, "Qd4~")
    assert clause(released, "Qd4#e5") == "HA-R28"
    assert "Qd4#e5" not in legal_from(released, "d4")
    assert "Qd4#d5" in legal_from(released, "d4")
    other, _ = act(released, "Qd4#d5")
    assert field(other, 5) == "d4#d5"
    later = play(other, "Rh8-h7")  # White's next turn: e5 was released last turn
    assert len(SPACEWAR_HA.position(later).split()) == 6  # the turn ended: no releases
    assert "Qd4#e5" in legal_from(later, "d4")


def test_this_turns_releases_are_in_the_position() -> None:
    """HA-R28, HA-R21: the releases of the turn are a seventh field, written only when there is
    one: positions without it read as before; the turn's action clears it."""
    # HA-R28, HA-R21
    state = at("Qd4:3/9,re5:9/6,rd5:9/6", holds="d4#e5")
    released, _ = act(state, "Qd4~")
    text = SPACEWAR_HA.position(released)
    assert text.split()[5:] == ["-", "d4~e5"]
    again = new(text)  # the field survives a round trip and still forbids the re-hold
    assert SPACEWAR_HA.position(again) == text
    assert clause(again, "Qd4#e5") == "HA-R28"
    assert len(SPACEWAR_HA.position(state).split()) == 6
    moved, _ = act(released, "Qd4#d5")
    assert len(SPACEWAR_HA.position(moved).split()) == 6
    for bad in ("d4e5", "d4~d4", "e5~d4", "d4~h8"):
        with pytest.raises(VariantError):
            SPACEWAR_HA.create("", f"{' '.join(text.split()[:6])} {bad}")


def test_the_release_is_derived_from_the_log() -> None:
    """HA-R28: replay (`evolve`) derives the release from the release event itself; a log that
    re-held the released piece, written before HA-R28, still replays (evolve is unchecked)."""
    # HA-R28
    created = SPACEWAR_HA.create("", "w 1 0 Qd4:3/9,re5:9/6 " + BASES + " d4#e5")
    seat = {"seat": 0}
    log = [created, ActionPlayed(**seat, action="Qd4~")]
    assert field(fold(SPACEWAR_HA, log), 6) == "d4~e5"
    old = fold(SPACEWAR_HA, [*log, ActionPlayed(**seat, action="Qd4#e5")])
    assert SPACEWAR_HA.position(old).split()[0::5] == ["b", "d4#e5"]
