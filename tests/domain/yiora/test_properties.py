"""Properties over random-bot games of every variation: each decision equals folding its
events, replay (also through JSON) equals the live state, the positions stay valid, and the
two games of a Secondary variation never interact."""

import random
from functools import reduce

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.events import Event, GameEnded
from contracts.yiora import GameFinished, MovePlayed
from domain.core import Decided, fold
from domain.registry import event_decoder
from domain.yiora import YIORA, Command, Move, State, Verb
from domain.yiora.geometry import COLOUR, MAGE, OVERLORD, PAWN, kind_of, side_of
from domain.yiora.moves import attacked
from domain.yiora.position import generate_legal_moves
from domain.yiora.seats import seat_count

VARIANTS = [
    "",
    "mate_rule=overlord_only+stalemate_result=loss+no_capture_limit=15",
    "secondary_basic",
    "secondary_basic+first_player=Black+no_capture_limit=20",
    "secondary_complex",
    "secondary_complex+complex_turn_mode=parallel",
    "secondary_complex+teams",
    "secondary_complex+teams+complex_turn_mode=parallel+repetition_count=2",
]
MAX_ACTIONS = 500
DECODE = event_decoder("yiora")


def valid(state: State) -> None:
    """Each game: one Overlord a side, at most 4 Mages and 4 Pawns (YI-2.1), men on the game's
    colour only (YI-1.6, YI-8.2), the side not to move never threatened (YI-6.1)."""
    for game in state.games:
        pos = game.pos
        counts: dict[tuple[int, int], int] = {}
        for sq, code in enumerate(pos.board):
            if code:
                assert COLOUR[sq] == pos.colour
                key = (side_of(code), kind_of(code))
                counts[key] = counts.get(key, 0) + 1
        for side in (0, 1):
            assert counts.get((side, OVERLORD)) == 1
            assert counts.get((side, MAGE), 0) <= 4
            assert counts.get((side, PAWN), 0) <= 4
        waiting = pos.turn ^ 1
        assert not attacked(pos.board, pos.overlords[waiting], pos.turn)
        assert pos.check == attacked(pos.board, pos.overlords[pos.turn], waiting)


def choose_action(state: State, rng: random.Random) -> tuple[int, Move | Command]:
    """Mostly the bot's move for a seat to act; now and then a draw action or a resignation
    by any seat that may send one."""
    roll = rng.random()
    if roll < 0.06:
        seat = rng.randrange(seat_count(state.config))
        commands = [a for a in YIORA.legal_actions(state, seat) if isinstance(a, Command)
                    and (a.verb is not Verb.RESIGN or roll < 0.0015)]  # fmt: skip
        if commands:
            return seat, rng.choice(commands)
    seat = rng.choice(sorted(YIORA.to_act(state)))
    action = YIORA.bot_action(state, seat, rng.randrange)
    assert action is not None, (seat, YIORA.position(state))
    return seat, action


def play(variant: str, seed: int) -> tuple[State, list[Event]]:
    rng = random.Random(seed)
    created = YIORA.create(variant)
    state = YIORA.start(created)
    log: list[Event] = [created]
    for _ in range(MAX_ACTIONS):
        if YIORA.outcome(state) is not None:
            break
        seat, action = choose_action(state, rng)
        text = YIORA.format_action(state, action)
        assert YIORA.parse_action(state, seat, text) == action, text
        decided = YIORA.decide(state, seat, action)
        assert isinstance(decided, Decided), (text, decided)
        assert decided.state == reduce(YIORA.evolve, decided, state)  # decide = fold its events
        if state.secondary and isinstance(action, Move):
            other = 1 - action.game
            before = state.games[other]
            after = decided.state.games[other]
            # YI-8.2: a move in one game leaves the other's position, record and moves alone
            assert (after.pos, after.last, after.agreement) == (before.pos, before.last,
                                                                before.agreement)  # fmt: skip
            assert generate_legal_moves(after.pos) == generate_legal_moves(before.pos)
        state = decided.state
        log.extend(decided)
        valid(state)
    return state, log


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1))
def test_random_bot_games(variant: str, seed: int) -> None:
    """Replay by folding the events (also after a JSON round trip) equals the live state; an
    ended match has every game ended and scores per seat as YI-8.4.3 says."""
    # YI-4.4, YI-8.2, YI-8.3, YI-8.4, YI-8.4.1, YI-8.4.2, YI-8.4.3
    state, log = play(variant, seed)
    assert fold(YIORA, log) == state
    wire = [DECODE.decode(msgspec.json.encode(e)) for e in log[1:]]
    assert fold(YIORA, [log[0], *wire]) == state
    out = YIORA.outcome(state)
    if out is None:
        return
    assert YIORA.to_act(state) == frozenset()
    assert isinstance(log[-1], GameEnded)
    if state.secondary:
        finished = [e for e in log if isinstance(e, GameFinished)]
        assert sorted(e.game for e in finished) == ["bsq", "wsq"]
        assert all(game.result is not None for game in state.games)
        assert len(out.scores) == YIORA.create(variant).seats
        if state.config.variation == "secondary_complex":
            assert sum(out.scores) == 2 * (len(out.scores) // 2)  # each team's points sum to 2
    else:
        assert sum(out.scores) == 1


def test_lockstep_alternates_bsq_and_wsq_in_every_turn() -> None:
    """In lockstep every turn is one move in each unfinished game, bsq first (YI-8.4.1)."""
    # YI-8.4.1
    _, log = play("secondary_complex", 3)
    games = [e.game for e in log if isinstance(e, MovePlayed)]
    finished = next((i for i, e in enumerate(log) if isinstance(e, GameFinished)), len(log))
    early = [e.game for e in log[:finished] if isinstance(e, MovePlayed)]
    assert early[: len(early) // 2 * 2] == ["bsq", "wsq"] * (len(early) // 2)
    assert len(games) >= 20
