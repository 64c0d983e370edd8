"""The hidden setup: setup bytes, their validation (CY-3.2-3.4, CY-R01..R06), random setups
and play starting through the table (fair-play 3)."""

import random

import msgspec
import pytest

from contracts.events import GameEnded, SetupRevealed, SetupsDiscarded
from domain import fairplay
from domain.core import table as tables
from domain.cyvasse import CYVASSE, State, geometry
from domain.cyvasse.board import COLOURS, DRAGON, KING
from domain.cyvasse.movegen import attacked
from domain.cyvasse.setup import (
    Placement,
    fallback_mountains,
    mountain_problem,
    parse_setup,
    sealed,
)
from tests.domain.cyvasse.helpers import setup_bytes
from tests.rulesets.driver import LocalGame

ARMY = [*"KDTTEEHHCCLLSSSSRRRR"]  # CY-2.1 without the Mountains
NONCES = ("1" * 64, "2" * 64)


def men(seat: int, mountains: list[str], n: int = 8, reserve: bool = False) -> dict[str, str]:
    """A full setup for `seat` with these Mountains, the other men on the first free squares
    of the own half (White from a1, Black from the top rank down)."""
    geo = geometry(n)
    half = sorted(geo.halves[seat], reverse=bool(seat))
    free = [geo.names[s] for s in half if geo.names[s] not in mountains]
    army = [k for k in ARMY if not (reserve and k == "D")]
    placed = dict(zip(free, army, strict=False))
    placed.update(dict.fromkeys(mountains, "M"))
    return placed


SAFE = ["a4", "c4", "e4", "g4", "b3", "h2"]


def fresh(variant: str = "A") -> State:
    return CYVASSE.start(CYVASSE.create(variant))


def check(setup: bytes, seat: int = 0, variant: str = "A") -> str | None:
    problem = CYVASSE.check_setup(fresh(variant), seat, setup)
    return None if problem is None else f"{problem.clause}: {problem.reason}"


def test_a_complete_legal_setup_is_accepted_for_both_seats_and_boards() -> None:
    """26 men in the own half, Mountains leaving a pass: accepted (both seats, 8x8 and
    10x10); with dragon-reserve 25 men without the Dragon."""
    # CY-3.2, CY-3.3, CY-R01, CY-R03
    assert check(setup_bytes(men(0, SAFE))) is None
    assert check(setup_bytes(men(1, ["a5", "c5", "e5", "g5", "b6", "h7"])), seat=1) is None
    assert check(setup_bytes(men(0, SAFE, n=10)), variant="B+square10") is None
    assert check(setup_bytes(men(0, SAFE, reserve=True)), variant="A+dragon-reserve") is None


@pytest.mark.parametrize(
    ("setup", "seat", "variant", "expected"),
    [
        (b"not json", 0, "A", "CY-1.3.4: the setup is not JSON"),
        (b"[1,2]", 0, "A", "CY-1.3.4: a setup is a JSON object"),
        (b'{"men":{},"terrain":{}}', 0, "A", "CY-1.3.4: a setup is a JSON object"),
        (b'{"men": {"a1": "K"}}', 0, "A", "CY-1.3.4: the setup must be compact JSON"),
        (b'{"men":{"b1":"K","a1":"D"}}', 0, "A", "CY-1.3.4: the setup must be compact JSON"),
        (b'{"men":{"a1":"K","a1":"D"}}', 0, "A", "CY-1.3.4: the setup must be compact JSON"),
        (b'{"men":{"i1":"K"}}', 0, "A", "CY-1.1.1: 'i1' is not a square of the 8x8 board"),
        (b'{"men":{"a1":"Q"}}', 0, "A", "CY-1.3.1: 'Q' on a1 is not a man's letter"),
        (b'{"men":{"a1":1}}', 0, "A", "CY-1.3.1: 1 on a1 is not a man's letter"),
        (b'{"men":{"a5":"K"}}', 0, "A", "CY-3.2: a5 is outside White's half (ranks 1-4)"),
        (b'{"men":{"a4":"K"}}', 1, "A", "CY-3.2: a4 is outside Black's half (ranks 5-8)"),
        (b'{"men":{"a6":"K"}}', 0, "A+square10", "CY-3.2: a6 is outside White's half (ranks 1-5)"),
        (b'{"men":{"a1":"K"}}', 0, "A", "CY-3.3: 0 Dragon placed; all 1 must be placed"),
    ],
)  # fmt: skip
def test_malformed_and_misplaced_setups(
    setup: bytes, seat: int, variant: str, expected: str
) -> None:
    """Anything but the sorted compact JSON object of the own men in the own half is refused
    with the clause."""
    # CY-1.1.1, CY-1.3.1, CY-1.3.4, CY-3.2, CY-3.3, CY-R01
    problem = check(setup, seat, variant)
    assert problem is not None
    assert problem.startswith(expected), problem


def test_composition_must_be_exact() -> None:
    """A missing or extra man, or a placed Dragon with dragon-reserve, is refused."""
    # CY-2.1, CY-3.3, CY-R03, CY-6.4.2
    placed = men(0, SAFE)
    del placed[next(sq for sq, k in placed.items() if k == "R")]
    assert check(setup_bytes(placed)) == "CY-3.3: 3 Rabble placed; all 4 must be placed [CY-R03]"
    placed = men(0, SAFE)
    placed["h4"] = "S"
    assert check(setup_bytes(placed)) == "CY-3.3: 5 Spears placed; all 4 must be placed [CY-R03]"
    problem = check(setup_bytes(men(0, SAFE)), variant="A+dragon-reserve")
    assert problem == "CY-6.4.2: with dragon-reserve the Dragon is not placed in the setup"
    placed = men(0, SAFE[:5])
    placed["h4"] = "K"
    problem = check(setup_bytes({k: v for k, v in placed.items() if k != "a1"}))
    assert problem is not None
    assert problem.startswith("CY-3.3: 5 Mountain placed")


@pytest.mark.parametrize(
    ("mountains", "closed"),
    [
        ("a2 b1", "a1"),
        ("c3 d2 e3 d4", "d3"),
        ("b1 b2 b3 a4 c1 d1", "a1, a2, a3"),
        ("a4 b4 c4 d4 e4 f4", ""),
        ("a3 b3 c3 d3 e3 f3", ""),
        ("c4 e4 d3", ""),
        ("g4 h3 f4 e3 d2", ""),
        ("a1 b1 c1 d1 e1 f1", ""),
        ("g1 h2", "h1"),
        ("a4 b4 c4 d4 e4 f4 g4 h4", "a1, b1, c1, d1, e1, f1, g1, h1, a2"),
    ],
)
def test_mountain_rule_examples(mountains: str, closed: str) -> None:
    """The ruling's examples: a set of one player's Mountains is valid iff the rest of the
    whole board stays orthogonally connected; the sealed squares are named."""
    # CY-3.4, CY-9.6, CY-R04, CY-R05
    geo = geometry(8)
    cut = sealed(geo, {geo.square_of[name] for name in mountains.split()})
    assert ", ".join(geo.names[s] for s in cut).startswith(closed)
    assert bool(cut) == bool(closed)


def test_mountain_rule_in_a_full_setup_names_the_mountains() -> None:
    """A full setup whose Mountains close a corner is refused, naming the Mountains and the
    closed squares; men of either side never count (only Mountains are obstacles)."""
    # CY-3.4, CY-R04, CY-R05
    problem = check(setup_bytes(men(0, ["d4", "e4", "f4", "a2", "b1", "h4"])))
    assert problem == ("CY-3.4: mountains at b1, a2 close a1 off from orthogonal movement "
                       "(a pass must remain) [CY-R04]")  # fmt: skip
    geo = geometry(8)
    assert mountain_problem(geo, {geo.square_of[s] for s in ("c3", "d2", "e3", "d4")}) == (
        "mountains at d2, c3, e3, d4 close d3 off from orthogonal movement (a pass must remain)"
    )
    # Black's mirror: h7 + g8 around h8.
    problem = check(setup_bytes(men(1, ["h7", "g8", "a5", "c5", "e5", "a8"])), seat=1)
    assert problem is not None
    assert "close h8 off" in problem


@pytest.mark.parametrize("variant", ["A", "B+square10", "A+dragon-reserve"])
def test_random_setups_are_legal(variant: str) -> None:
    """random_setup gives a legal setup for either seat, its choices from `choose`, and the
    same choices give the same bytes."""
    # CY-3.3, CY-3.4
    state = fresh(variant)
    for seed in range(20):
        for seat in (0, 1):
            setup = CYVASSE.random_setup(state, seat, random.Random(seed).randrange)
            assert CYVASSE.check_setup(state, seat, setup) is None
            assert setup == CYVASSE.random_setup(state, seat, random.Random(seed).randrange)


def test_random_setup_falls_back_to_a_legal_mountain_set() -> None:
    """The fallback Mountain sets (used if 64 shuffles all fail) obey the Mountain rule on
    both boards for both seats, and a degenerate `choose` still yields a legal setup."""
    # CY-3.4
    for n in (8, 10):
        geo = geometry(n)
        for seat in (0, 1):
            mountains = fallback_mountains(geo, seat)
            assert set(mountains) <= geo.halves[seat]
            assert len(set(mountains)) == 6
            assert sealed(geo, set(mountains)) == []
    state = fresh()
    for seat in (0, 1):
        assert (
            CYVASSE.check_setup(state, seat, CYVASSE.random_setup(state, seat, lambda n: 0)) is None
        )


# The bots' King squares per board and seat: the rear rank(s) of the half, bands 0-1 of the
# hex zone (the cells beyond every enemy capture at the reveal).
KING_SQUARES = {
    "square8": ({f"{f}1" for f in "abcdefgh"}, {f"{f}8" for f in "abcdefgh"}),
    "square10": ({f"{f}1" for f in "abcdefghij"}, {f"{f}10" for f in "abcdefghij"}),
    "hex91": ({"a1", "b1", "a2"}, {"k11", "j11", "k10"}),
}


@pytest.mark.parametrize(
    "variant",
    ["A", "B", "C", "A+dragon-reserve", "A+square10", "C+square10", "A+hex91",
     "C+hex91+sea-movement+super-trebuchet+dragonfyre"],
)  # fmt: skip
def test_random_setups_keep_the_king_out_of_reach_at_the_reveal(variant: str) -> None:
    """A bot's King stands on the rear squares of its half, where no enemy man reaches it at
    the reveal whatever the enemy's setup: every enemy man alone on every enemy square fails
    to threaten it (the own men guard the Dragon's lines on square8). The setups stay legal
    and deterministic."""
    # CY-3.3, CY-R60, CY-3.4, CY-3.6.2, CY-5.4.2
    state = fresh(variant)
    cfg, geo = state.config, state.geo
    # every kind but the Mountain (and the Dragon when it starts in reserve)
    enemy_kinds = [k for k in range(1, 10) if not (k == DRAGON and cfg.dragon_reserve)]
    for seed in range(12):
        for seat in (0, 1):
            setup = CYVASSE.random_setup(state, seat, random.Random(seed).randrange)
            assert CYVASSE.check_setup(state, seat, setup) is None
            assert setup == CYVASSE.random_setup(state, seat, random.Random(seed).randrange)
            placement = parse_setup(cfg, geo, seat, setup)
            assert isinstance(placement, Placement)
            king = next(s for s, kind in placement.men.items() if kind == KING)
            assert geo.names[king] in KING_SQUARES[geo.board][seat]
            board = bytearray(geo.size)
            for s, kind in placement.men.items():
                board[s] = COLOURS[seat] | kind
            for s in geo.halves[1 - seat]:
                for kind in enemy_kinds:
                    board[s] = COLOURS[1 - seat] | kind
                    assert not attacked(cfg, geo, bytes(board), king, 1 - seat), (seed, seat, s)
                board[s] = 0


def _table(variant: str = "A") -> LocalGame:
    return LocalGame.create("0" * 64, "cy-setup", CYVASSE, variant)


def test_reveals_place_the_men_and_white_moves_first() -> None:
    """Through the table: both commit, both reveal; the men stand where the setups put them
    and White moves first. Jointly sealed squares are accepted by default."""
    # CY-3.1.3, CY-3.5, CY-3.7, CY-R06, CY-R39
    game = _table()
    white = setup_bytes(men(0, ["d3", "c4", "e4", "a1", "h1", "h2"]))
    black = setup_bytes(men(1, ["d5", "a8", "b8", "h8", "a5", "h5"]))
    for seat, setup in enumerate((white, black)):
        game.commit_setup(seat, NONCES[seat], setup)
    assert tables.phase(game.table) == "setup"
    assert CYVASSE.view(game.table.game, 0)["phase"] == "setup"
    revealed = game.reveal_setup(1, NONCES[1], black)
    assert CYVASSE.visible(revealed[0], 0) is revealed[0]  # the table hid it until the reveal
    assert CYVASSE.view(game.table.game, 0)["setups_placed"] == [1]
    assert tables.to_act(game.table) == frozenset({0})  # the table still owes White's reveal
    game.reveal_setup(0, NONCES[0], white)
    assert tables.phase(game.table) == "play"
    assert tables.to_act(game.table) == frozenset({0})
    state = game.table.game
    position = CYVASSE.position(state)
    assert "white=Ma1 Kb1 Dc1 " in position
    assert " Md5 " in position
    assert CYVASSE.view(state, None)["phase"] == "play"
    assert CYVASSE.check_setup(state, 0, white) is not None  # already placed


def test_an_illegal_reveal_loses() -> None:
    """A committed but illegal setup is rejected by the table with our reason, and the seat
    loses by illegal_setup."""
    # CY-3.1.1, CY-3.4, fair-play 3
    game = _table()
    bad = setup_bytes(men(0, ["a2", "b1", "d4", "e4", "f4", "h4"]))
    good = setup_bytes(men(1, ["a5", "c5", "e5", "g5", "b6", "h7"]))
    game.commit_setup(0, NONCES[0], bad)
    game.commit_setup(1, NONCES[1], good)
    events = game.reveal_setup(0, NONCES[0], bad)
    assert isinstance(events[0], SetupRevealed)
    assert events[0].rejected.startswith("mountains at b1, a2 close a1 off")
    assert events[0].rejected.endswith("[CY-3.4]")
    assert events[1] == GameEnded(result="0-1", reason="illegal_setup", winners=[1])
    assert tables.phase(game.table) == "ended"


def test_forfeit_reasons() -> None:
    """forfeit: the other seat wins; a timeout is named as such."""
    # CY-7, fair-play 1.3
    state = fresh()
    assert CYVASSE.forfeit(state, (1,), "timeout") == (
        GameEnded(result="1-0", reason="timeout", winners=[0]),
    )
    assert CYVASSE.forfeit(state, (0,), "bad") == (
        GameEnded(result="0-1", reason="illegal_setup", winners=[1]),
    )


def test_king_attacked_at_the_reveal_may_be_taken() -> None:
    """Version A: if the reveal leaves Black's King attacked, White may take it on the first
    move and wins by king_captured."""
    # CY-R60, CY-R55
    game = _table()
    white = men(0, SAFE)
    black = men(1, ["a5", "c5", "e5", "g5", "b6", "h7"])
    # A White Spears on d4 (from g2), Black's King on d5 (from h8).
    del white["g2"]
    white["d4"] = "S"
    del black["h8"]
    black["d5"] = "K"
    setups = (setup_bytes(white), setup_bytes(black))
    for seat in (0, 1):
        assert CYVASSE.check_setup(game.table.game, seat, setups[seat]) is None
        game.commit_setup(seat, NONCES[seat], setups[seat])
    for seat in (0, 1):
        game.reveal_setup(seat, NONCES[seat], setups[seat])
    events = game.must(0, "d4xd5")
    assert events[-1] == GameEnded(result="1-0", reason="king_captured", winners=[0])


def test_setup_bytes_commitment_round_trip() -> None:
    """The setup format is exactly what a client hashes: msgspec sorted JSON."""
    # CY-1.3.4, fair-play 3
    setup = setup_bytes(men(0, SAFE))
    assert setup == msgspec.json.encode(msgspec.json.decode(setup), order="sorted")
    commitment = fairplay.setup_commitment("cy-setup", 0, NONCES[0], setup)
    assert fairplay.verify_setup("cy-setup", 0, NONCES[0], setup, commitment)


def test_replace_discards_jointly_sealing_setups_and_both_set_up_again() -> None:
    """CY-3.5 `replace`: the ruling's example (White d3, c4, e4 and Black d5 around d4) seals
    d4 only jointly; both setups are discarded, both seats commit and reveal again, and a
    second, clean pair of setups starts play. The default (`none`) accepts it (test above)."""
    # CY-3.5, CY-0.2, fair-play 3
    game = _table("A+combined_mountain_check=replace")
    white = setup_bytes(men(0, ["d3", "c4", "e4", "a1", "h1", "h2"]))
    black = setup_bytes(men(1, ["d5", "a8", "b8", "h8", "a5", "h5"]))
    for seat, setup in enumerate((white, black)):
        game.commit_setup(seat, NONCES[seat], setup)
    game.reveal_setup(1, NONCES[1], black)
    events = game.reveal_setup(0, NONCES[0], white)
    assert isinstance(events[-1], SetupsDiscarded)
    assert "seal d4" in events[-1].reason
    assert events[-1].reason.endswith("[CY-3.5]")
    assert tables.phase(game.table) == "setup"
    assert tables.to_act(game.table) == frozenset({0, 1})  # both commit again
    assert game.table.game == fresh("A+combined_mountain_check=replace")  # an empty board
    clean_black = setup_bytes(men(1, ["a8", "b8", "h8", "a5", "h5", "c6"]))
    for seat, setup in enumerate((white, clean_black)):
        game.commit_setup(seat, NONCES[seat], setup)
    for seat, setup in enumerate((white, clean_black)):
        game.reveal_setup(seat, NONCES[seat], setup)
    assert tables.phase(game.table) == "play"
    replayed = tables.fold(CYVASSE, game.game_id, game.log)
    assert replayed.game == game.table.game
