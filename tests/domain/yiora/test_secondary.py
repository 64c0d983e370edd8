"""The Secondary variations: two games on one board, seats, teams, turns and results (YI-8)."""

import pytest

from contracts.events import GameCreated, GameEnded, Resigned
from contracts.yiora import (
    GameDrawAccepted,
    GameDrawDeclined,
    GameDrawOffered,
    GameFinished,
    MovePlayed,
)
from domain.core import VariantError
from domain.yiora import YIORA, Command, Move, Verb
from domain.yiora.position import generate_legal_moves
from tests.domain.yiora.helpers import START, WSQ_START, act, legal_texts, new, play, refuse

BASIC = "secondary_basic"
COMPLEX = "secondary_complex"
PARALLEL = "secondary_complex+complex_turn_mode=parallel"
TEAMS = "secondary_complex+teams"
# Game bsq: White mates at once with A7-A9 (YI-10.5 b); game wsq: Gold mates with A8-A10.
MATES = ("bsq:w W:OA1,MA7,PO15 B:OA19,MR20 0 1 | "
         "wsq:g G:OA2,MA8,PO16 S:OA20,MR21 0 1")  # fmt: skip


def finished(events: tuple[object, ...]) -> list[GameFinished]:
    return [e for e in events if isinstance(e, GameFinished)]


def match_end(events: tuple[object, ...]) -> GameEnded:
    assert isinstance(events[-1], GameEnded), events
    return events[-1]


def test_the_white_square_game_is_the_black_square_game_one_column_on() -> None:
    """Game wsq: Gold v Silver on the white squares, the setup shifted by c ↦ c ⊕ 1, Gold
    first; a configured setup is shifted too."""
    # YI-8.1, YI-R21, YI-3.4
    state = new(variant=BASIC)
    assert YIORA.position(state) == f"bsq:{START} | wsq:{WSQ_START}"
    assert YIORA.view(state, None)["games"][1]["to_move"] == "Gold"
    custom = new(variant=f"{BASIC}+setup_white=OA1/MA3/MA35/MR2/MR36/PO3/PO5/PO31/PO35")
    assert "PO32" in YIORA.position(custom).split(" | ")[1]


def test_the_games_never_interact() -> None:
    """A wsq man between two bsq squares blocks nothing: game bsq's moves are those of the same
    Primary Basic position; a move in one game leaves the other's state alone."""
    # YI-8.2, YI-R24, YI-R05
    bsq = "w W:OA1,MA7 B:OA19,MR18,MR20,PO27 0 1"
    wsq = "g G:OA2,MA8,MA10 S:OA20,MA14,MA16 0 1"  # on A-8 … A-16: "between"
    state = new(f"bsq:{bsq} | wsq:{wsq}", BASIC)
    primary = new(bsq)
    assert legal_texts(primary) == {t.removeprefix("bsq:") for t in legal_texts(state, seat=0)}
    assert "A7-A17" in legal_texts(primary)  # along ring A past the Gold Mages
    after, _ = act(state, "wsq:A8-A4", seat=2)
    assert after.games[0] == state.games[0]
    after, _ = act(state, "bsq:A7-A17", seat=0)
    assert after.games[1] == state.games[1]


def test_each_game_keeps_its_own_counts() -> None:
    """The no-capture count of one game does not run in the other."""
    # YI-8.2, YI-7.5
    state = new("bsq:w W:OA1,MR2 B:OA19,MR20 99 50 | wsq:g G:OA2,MR3 S:OA20,MR21 0 1", BASIC)
    after, events = act(state, "wsq:R3-I3", seat=2)
    assert not finished(events)
    after, events = act(after, "bsq:R2-I2", seat=0)
    assert [(e.game, e.result, e.reason) for e in finished(events)] == [
        ("bsq", "1/2-1/2", "no_capture")
    ]
    assert YIORA.outcome(after) is None


def test_secondary_basic_four_players_scheduled_independently() -> None:
    """Seats 0 White, 1 Black, 2 Gold, 3 Silver; White and Gold may both move at once; each
    player gets his own game's result; the match ends when both games have ended."""
    # YI-8.3, YI-R21
    state = new(variant=BASIC)
    created = YIORA.create(BASIC)
    assert (created.seats, created.teams) == (4, [])
    assert YIORA.to_act(state) == {0, 2}
    after, _ = act(state, "wsq:O4-O8", seat=2)
    assert YIORA.to_act(after) == {0, 3}
    assert refuse(after, "bsq:O17-O13", seat=1).clause == "YI-4.1"
    mates = new(MATES, BASIC)
    after, events = act(mates, "bsq:A7-A9", seat=0)
    assert [(e.game, e.result, e.reason) for e in finished(events)] == [("bsq", "1-0", "checkmate")]
    assert YIORA.to_act(after) == {2}
    after, events = act(after, "resign", seat=3)  # Silver resigns game wsq
    assert events[0] == Resigned(seat=3)
    end = match_end(events)
    assert (end.result, end.reason, end.winners) == ("1-0-1-0", "bsq checkmate, wsq resignation",
                                                     [0, 2])  # fmt: skip


def test_secondary_complex_two_players() -> None:
    """Seat 0 plays White and Gold, seat 1 Black and Silver (YI-R23, kept by YI-R25); Gold
    moves first in game wsq, so seat 0 moves first in both games; the match scores sum the
    games."""
    # YI-8.4, YI-R22, YI-R23, YI-R25, YI-8.4.3
    created = YIORA.create(COMPLEX)
    assert (created.seats, created.teams) == (2, [])
    state = new(variant=COMPLEX)
    view = YIORA.view(state, None)
    assert [g["seats"] for g in view["games"]] == [[[0], [1]], [[0], [1]]]
    assert [g["to_move"] for g in view["games"]] == ["White", "Gold"]
    after, events = act(new(MATES, COMPLEX), "bsq:A7-A9", seat=0)
    after, events = act(after, "wsq:A8-A10", seat=0)
    end = match_end(events)
    assert (end.result, end.reason, end.winners) == ("2-0", "checkmate", [0])


def test_lockstep_one_move_in_each_unfinished_game_bsq_first() -> None:
    """A turn is bsq then wsq; once a game has ended, the other alone. A lockstep turn is one
    side's move in each game: side 1 (seat 0) moves first in both."""
    # YI-8.4.1, YI-R22, YI-R25
    state = new(variant=COMPLEX)
    assert YIORA.to_act(state) == {0}
    assert {a.game for a in YIORA.legal_actions(state, 0) if isinstance(a, Move)} == {0}
    refused = refuse(state, "wsq:O4-O8", seat=0)
    assert refused.clause == "YI-8.4.1"
    state = play(state, "bsq:O3-O7")
    assert YIORA.to_act(state) == {0}
    assert {a.game for a in YIORA.legal_actions(state, 0) if isinstance(a, Move)} == {1}
    state = play(state, "wsq:O4-O8")
    assert YIORA.to_act(state) == {1}
    state = play(state, "bsq:O17-O13", "wsq:O18-O14")
    assert YIORA.to_act(state) == {0}
    after, _ = act(new(MATES, COMPLEX), "bsq:A7-A9", seat=0)  # bsq ends: wsq only from now
    assert YIORA.to_act(after) == {0}
    after = play(after, "wsq:A8-A6")
    assert YIORA.to_act(after) == {1}
    assert {a.game for a in YIORA.legal_actions(after, 1) if isinstance(a, Move)} == {1}


def test_parallel_each_game_on_its_own() -> None:
    """Either game may move whenever its side is to move."""
    # YI-8.4.2
    state = new(variant=PARALLEL)
    assert {a.game for a in YIORA.legal_actions(state, 0) if isinstance(a, Move)} == {0, 1}
    after, _ = act(state, "wsq:O4-O8", seat=0)
    assert YIORA.to_act(after) == {0, 1}
    after, _ = act(after, "wsq:O18-O14", seat=1)
    assert YIORA.to_act(after) == {0}


def test_teams_of_two_share_control() -> None:
    """Four seats in teams [[0, 2], [1, 3]]; either member moves either of the team's sides;
    one member's resignation resigns both games for the team."""
    # YI-8.4, YI-8.4.3
    created = YIORA.create(TEAMS)
    assert (created.seats, created.teams) == (4, [[0, 2], [1, 3]])
    state = new(variant=TEAMS)
    assert YIORA.to_act(state) == {0, 2}
    state, _ = act(state, "bsq:O3-O7", seat=2)
    state, _ = act(state, "wsq:O4-O8", seat=0)
    assert YIORA.to_act(state) == {1, 3}
    _, events = act(state, "resign", seat=3)
    assert [(e.game, e.result) for e in finished(events)] == [("bsq", "1-0"), ("wsq", "1-0")]
    end = match_end(events)
    assert (end.result, end.reason, end.winners) == ("2-0-2-0", "resignation", [0, 2])


def test_resigning_resigns_both_unfinished_games() -> None:
    """In Secondary Complex a resignation ends every game still going on."""
    # YI-8.4.3
    after, _ = act(new(MATES, COMPLEX), "bsq:A7-A9", seat=0)
    after, events = act(after, "resign", seat=0)
    assert [(e.game, e.result, e.reason) for e in finished(events)] == [
        ("wsq", "0-1", "resignation")
    ]
    end = match_end(events)
    assert (end.result, end.reason, end.winners) == ("1-1", "bsq checkmate, wsq resignation", [])


def test_draw_offers_are_per_game() -> None:
    """An offer in game bsq concerns bsq only; accepted, it ends bsq and the match goes on."""
    # YI-8.4.3, YI-7.6
    state = new(variant=PARALLEL)
    state, events = act(state, "bsq:offer-draw", seat=0)
    assert events == (GameDrawOffered(seat=0, game="bsq"),)
    assert state.games[1].agreement.offer == -1
    assert refuse(state, "wsq:accept-draw", seat=1).clause == "YI-7.6"
    state, events = act(state, "bsq:accept-draw", seat=1)
    assert events[0] == GameDrawAccepted(seat=1, game="bsq")
    assert [(e.game, e.result, e.reason) for e in finished(events)] == [
        ("bsq", "1/2-1/2", "agreement")
    ]
    assert YIORA.outcome(state) is None
    # with one game left, the unprefixed form means that game
    offer = YIORA.parse_action(state, 0, "offer-draw")
    assert offer == Command(Verb.OFFER_DRAW, 1)
    assert YIORA.format_action(state, offer) == "wsq:offer-draw"


def test_a_move_in_that_game_declines_the_offer() -> None:
    # YI-7.6, YI-8.4.3
    state = play(new(variant=COMPLEX), "bsq:offer-draw", "bsq:O3-O7", "wsq:O4-O8")
    state, events = act(state, "bsq:O17-O13")
    assert events[0] == GameDrawDeclined(seat=1, game="bsq")
    assert isinstance(events[1], MovePlayed)


def test_secondary_basic_draw_actions_need_no_prefix() -> None:
    """A Secondary Basic player plays one game: `offer-draw` means it."""
    # YI-8.3, YI-8.4.3
    _, events = act(new(variant=BASIC), "offer-draw", seat=2)
    assert events == (GameDrawOffered(seat=2, game="wsq"),)


def test_games_of_a_match_each_have_their_own_moves() -> None:
    """The match's positions are two separate games: each its own side to move and moves."""
    # YI-8.2, YI-8.3
    state = play(new(variant=COMPLEX), "bsq:O3-O7")
    assert state.games[0].pos.turn == 1
    assert state.games[1].pos.turn == 0
    assert len(generate_legal_moves(state.games[1].pos)) == 78


def test_in_lockstep_a_draw_is_offered_only_on_ones_own_turn() -> None:
    """After White's bsq move the turn is still player 1's (wsq is due): Black, to move in bsq,
    may not offer there until its own turn comes."""
    # YI-4.3, YI-8.4.1
    state = play(new(variant=COMPLEX), "bsq:O3-O7")
    assert refuse(state, "bsq:offer-draw", seat=1).clause == "YI-4.3"
    assert Command(Verb.OFFER_DRAW, 0) not in YIORA.legal_actions(state, 1)
    state = play(state, "wsq:O4-O8")
    _, events = act(state, "bsq:offer-draw", seat=1)
    assert events == (GameDrawOffered(seat=1, game="bsq"),)


def test_a_position_with_one_game_over_loads_for_analysis_but_starts_no_game() -> None:
    """`create` refuses a position in which a game is over (docs: Positions and setups); `start`
    loads it as chess tools load a mate, with that game's result: its sides have no move, the
    other game goes on (in lockstep alone, YI-8.4.1); with both over, the match's result."""
    # YI-4.4, YI-8.2, YI-8.4.1, YI-8.4.3
    mated = f"bsq:b W:OA1,MA9,PO15 B:OA19,MR20 0 1 | wsq:{WSQ_START}"
    for variant in (BASIC, COMPLEX):
        with pytest.raises(VariantError, match="game bsq would already be over"):
            YIORA.create(variant, mated)
    state = YIORA.start(GameCreated(ruleset="yiora", variant=COMPLEX, seats=2, position=mated))
    assert YIORA.outcome(state) is None
    assert [g["result"] for g in YIORA.view(state, None)["games"]] == ["1-0", None]
    assert YIORA.to_act(state) == {0}  # Gold, in game wsq
    assert {a.game for a in YIORA.legal_actions(state, 0) if isinstance(a, Move)} == {1}
    assert YIORA.perft(state, 1) == 78
    basic = YIORA.start(GameCreated(ruleset="yiora", variant=BASIC, seats=4, position=mated))
    assert YIORA.to_act(basic) == {2}  # Gold; White and Black (seats 0, 1) have nothing
    both = "bsq:b W:OA1,MA9,PO15 B:OA19,MR20 0 1 | wsq:s G:OA2,MA10,PO16 S:OA20,MR21 0 1"
    over = YIORA.start(GameCreated(ruleset="yiora", variant=COMPLEX, seats=2, position=both))
    assert over.outcome is not None
    assert (over.outcome.result, over.outcome.reason) == ("2-0", "checkmate")
    assert YIORA.to_act(over) == frozenset()
    assert YIORA.perft(over, 2) == 0
