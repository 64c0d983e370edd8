"""Properties over whole random-bot games of both rulesets, played through the fair-play table
with real seeds (tests.rulesets.driver): replay equals the live game, energy stays within
capacity, pieces never overlap, the nonces run without a gap, and no seat's fold of its own
feed ever holds the other's hand faces or the seed."""

import random
from dataclasses import replace

import pytest

from contracts.events import (
    CardDealt,
    DeckShuffled,
    Event,
    GameEnded,
    RandomDrawn,
    SeedRevealed,
)
from contracts.yavoch import CardTaken
from domain.core import table as tables
from domain.core.outcome import win
from domain.yavoch.board import capacity
from domain.yavoch.rules import YAVOCH
from domain.yavoch.state import State
from tests.rulesets.driver import LocalGame, client_seed

GAMES = 25  # per ruleset; a game plays a few hundred to a few thousand actions


def play(seed: int, variant: str, check: bool = True) -> LocalGame:
    """A random-bot game to its end, checking the invariants after every action."""
    rng = random.Random(seed)
    game = LocalGame.create(rng.randbytes(32).hex(), f"prop-{seed}", YAVOCH, variant)
    game.seed([client_seed(rng), client_seed(rng)])
    while tables.outcome(game.table) is None:
        (seat,) = tables.to_act(game.table)
        state = game.table.game
        action = YAVOCH.bot_action(state, seat, rng.randrange)
        assert action is not None, (state.phase, seat)
        game.must(seat, YAVOCH.format_action(state, action))
        if check:
            invariants(game.table.game)
    game.reveal_server_seed()
    return game


def invariants(state: State) -> None:
    board = state.board
    for p, ship in board.ships.items():
        assert 0 <= ship.energy <= capacity(state.cfg, ship.kind), (p, ship)  # Y-5.50
    assert not set(board.mines) & (set(board.ships) | set(board.gates))  # Y-0.3
    hands = state.cards.hands
    assert not {h.position for h in hands[0]} & {h.position for h in hands[1]}
    if state.phase != "discard":  # Y-6.13: only between the draw and the discard
        assert all(len(h) <= state.cfg.hand_limit for h in hands)


def seat_feed(game: LocalGame, seat: int) -> list[Event]:
    """The events as `seat` receives them, each projected by the table at the time."""
    table = tables.fold(YAVOCH, game.game_id, game.log[:1])
    out: list[Event] = [game.log[0]]
    for event in game.log[1:]:
        after = tables.evolve(table, event)
        shown = tables.visible(after, event, seat)
        if shown is not None:
            out.append(shown)
        table = after
    return out


@pytest.fixture(scope="module", params=["decker", "full"])
def games(request: pytest.FixtureRequest) -> list[LocalGame]:
    return [play(seed, str(request.param)) for seed in range(GAMES)]


def test_every_game_ends_with_a_result(games: list[LocalGame]) -> None:
    """Y-8: random bots always reach one of the ends of section 8."""
    for game in games:
        outcome = tables.outcome(game.table)
        assert outcome is not None
        assert outcome.reason in {"command_ship_destroyed", "command_ships_destroyed",
                                  "surviving_command_ship_without_energy", "dead_command_ship",
                                  "lost_fleet", "both_lost", "immobilized"}  # fmt: skip


def test_replay_from_the_log_equals_the_live_game(games: list[LocalGame]) -> None:
    """Y-6.1: replay folds the log and never draws; the result is the live state."""
    for game in games:
        replayed = tables.fold(YAVOCH, game.game_id, game.log)
        assert replayed.game == game.table.game


def test_the_nonces_run_from_zero_without_a_gap(games: list[LocalGame]) -> None:
    """Y-6.4 / fair-play 2: every draw takes the next nonce, in play order."""
    drawn = 0
    for game in games:
        nonces = [e.nonce for e in game.log if isinstance(e, RandomDrawn | DeckShuffled)]
        assert nonces == list(range(len(nonces)))
        drawn += len(nonces)
    assert drawn  # the games did roll


def test_no_seat_ever_holds_the_other_hand_or_the_seed(games: list[LocalGame]) -> None:
    """Y-7.3 / Y-7.5: folding its own feed, a seat never knows a face of the other's hand or
    the deck order before the end (except a card the other took from it: Y-7.4); the seed
    arrives only after it."""
    for game in games:
        for seat in (0, 1):
            feed = seat_feed(game, seat)
            end = next(i for i, e in enumerate(feed) if isinstance(e, GameEnded))
            for e in feed[:end]:
                assert not isinstance(e, SeedRevealed)
                if isinstance(e, DeckShuffled):
                    assert e.order == []
                if isinstance(e, CardDealt) and e.seat != seat:
                    assert (e.card, e.salt) == ("", "")
            table = tables.open_table(YAVOCH, game.game_id, game.table.created)
            known: set[int] = set()  # Y-7.4: cards the other took from this seat
            for e in feed[1:end]:
                table = tables.evolve(table, e)
                if isinstance(e, CardTaken) and e.from_seat == seat:
                    known.add(e.position)
                other = table.game.cards.hands[seat ^ 1]
                assert all(h.card == "" for h in other if h.position not in known), e
            # what the seat folded of the public game is the game (Y-7.2): field, turn, window
            served = tables.fold(YAVOCH, game.game_id, game.log[:end]).game
            mine = table.game
            assert (mine.board, mine.mover, mine.turn, mine.window) == (
                served.board, served.mover, served.turn, served.window)  # fmt: skip
            assert [len(h) for h in mine.cards.hands] == [len(h) for h in served.cards.hands]
            assert len(mine.cards.discard) == len(served.cards.discard)


def test_a_seats_view_shows_its_own_faces_and_only_positions_of_the_other() -> None:
    """Y-7.2 / Y-7.3: mid-game, `view` gives a seat its own faces, the other's positions, and a
    spectator no face at all."""
    game = LocalGame.create("ab" * 32, "view-1", YAVOCH, "full")
    rng = random.Random(3)
    game.seed([client_seed(rng), client_seed(rng)])
    while not all(game.table.game.cards.hands) and tables.outcome(game.table) is None:
        (seat,) = tables.to_act(game.table)
        state = game.table.game
        game.must(seat, YAVOCH.format_action(state, YAVOCH.bot_action(state, seat, rng.randrange)))
    state = game.table.game
    assert state.outcome is None
    for seat in (0, 1, None):
        view = YAVOCH.view(state, seat)
        for holder, hand in enumerate(view["hands"]):
            assert [c["position"] for c in hand] == [h.position for h in state.cards.hands[holder]]
            assert all(("card" in c) == (holder == seat) for c in hand)
    ended = YAVOCH.view(replace(state, outcome=win(0, "resignation")), None)
    assert all("card" in c for hand in ended["hands"] for c in hand)  # Y-7.7
