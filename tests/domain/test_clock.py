"""Chess clocks at the table (domain/core/clock.py, domain/core/table.py): Fischer increments,
Lichess's lag compensation, flags with their grace, a draw on time against a lone King, a
clock per seat in four-seat games; and every clock replays exactly from the log and is decided
again by the audit (domain/redecide.py). Clauses cited are docs/clocks.md's (issue 23's text).
"""

import random
from dataclasses import dataclass, field
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.errors import ErrorCode
from contracts.events import ClockCharged, ClockFlagged, Event, GameCreated, GameEnded, TimeControl
from domain.chess3d import CHESS3D
from domain.core import Decided, NeedDraws, Rejection, Ruleset
from domain.core import clock as clocks
from domain.core import table as tables
from domain.redecide import redecide
from domain.registry import find_ruleset
from tests.domain.chess3d.helpers import fen_of

ONE_PLUS_ONE = TimeControl(base_ms=60_000, increment_ms=1_000)
T0 = 1_700_000_000_000  # the creation's time (ms)


@dataclass
class Clocked:
    """A game with clocks at the table, each command decided at a given time and checked as
    the audit checks it: decided again from the table before it, with the recorded times."""

    table: tables.Table
    log: list[Event] = field(default_factory=list)
    last_ms: int = T0

    @classmethod
    def create(cls, ruleset: Ruleset[Any, Any], tc: TimeControl = ONE_PLUS_ONE,
               variant: str = "", position: str = "") -> "Clocked":  # fmt: skip
        created = msgspec.structs.replace(ruleset.create(variant, position), game_id="g-clock",
                                          clock=tc)  # fmt: skip
        game = cls(tables.open_table(ruleset, "g-clock", created), [created])
        game.apply(tables.start_clocks(game.table, T0))
        return game

    def apply(self, events: tuple[Event, ...] | list[Event]) -> None:
        for e in events:
            self.table = tables.evolve(self.table, e)
            self.log.append(e)

    def act(self, seat: int, text: str, now_ms: int, lag_ms: int = 0) -> tuple[Event, ...]:
        before = self.table
        idle = now_ms - self.last_ms
        decision = tables.decide(before, seat, text, idle_ms=idle, now_ms=now_ms, lag_ms=lag_ms)
        assert not isinstance(decision, Rejection | NeedDraws), (text, decision)
        events = tuple(decision)
        self.apply(events)
        if isinstance(decision, Decided):  # the state decide gave is the fold of its events
            assert decision.state.clocks == self.table.clocks
        assert redecide(before, seat, text, idle, events, now_ms) is None
        self.last_ms = now_ms
        return events

    def first_legal(self, seat: int) -> str:
        rs = self.table.ruleset
        return str(rs.format_action(self.table.game, rs.legal_actions(self.table.game, seat)[0]))

    def charged(self) -> ClockCharged:
        last = self.log[-1]
        assert isinstance(last, ClockCharged)
        return last


def test_quota_gain_is_scalachess_s() -> None:
    # docs/clocks.md "Lag": min(1 s, (base + 40 inc) s · 2/5 cs + 15 cs), whole seconds
    assert clocks.quota_gain(TimeControl(base_ms=60_000)) == 390  # 1+0: 60 s -> 24 + 15 cs
    assert clocks.quota_gain(ONE_PLUS_ONE) == 550  # 1+1: 100 s -> 40 + 15 cs
    assert clocks.quota_gain(TimeControl(base_ms=180_000, increment_ms=2_000)) == 1000  # capped
    assert clocks.quota_gain(TimeControl(base_ms=15_000)) == 210  # 1/4+0: 15 s -> 6 + 15 cs


def test_a_game_made_in_play_starts_the_first_seat_s_clock_at_its_creation() -> None:
    # docs/clocks.md "Running": a clock runs while its seat is to act in play
    game = Clocked.create(CHESS3D)
    assert game.charged() == ClockCharged(seat=-1, at_ms=T0, remaining_ms=[60_000, 60_000])
    assert game.table.clocks is not None
    assert game.table.clocks.since == (T0, None)
    assert game.table.clocks.quota == (1650, 1650)  # 3 gains


def test_a_move_is_charged_its_time_less_the_lag_and_gains_the_increment() -> None:
    # docs/clocks.md "Charging" and "Lag": compensation <= reported lag and the quota
    game = Clocked.create(CHESS3D)
    game.act(0, game.first_legal(0), T0 + 5_000, lag_ms=400)
    assert game.charged() == ClockCharged(seat=0, at_ms=T0 + 5_000, lag_ms=400,
                                          charged_ms=4_600, compensation_ms=400,
                                          remaining_ms=[56_400, 60_000])  # fmt: skip
    assert game.table.clocks is not None
    assert game.table.clocks.since == (None, T0 + 5_000)  # Black's runs from White's move
    assert game.table.clocks.quota == (1650 + 550 - 400, 1650)
    # A lag beyond the quota is compensated only up to it
    game.act(1, game.first_legal(1), T0 + 15_000, lag_ms=9_000)
    assert (game.charged().compensation_ms, game.charged().charged_ms) == (1650, 10_000 - 1650)


def test_the_quota_is_capped_at_seven_gains() -> None:
    # docs/clocks.md "Lag": quota starts at 3 gains, at most 7
    game = Clocked.create(CHESS3D)
    now = T0
    for _ in range(10):
        for seat in (0, 1):
            now += 1_000
            game.act(seat, game.first_legal(seat), now)
    assert game.table.clocks is not None
    assert game.table.clocks.quota == (7 * 550, 7 * 550)


def test_a_seat_flags_only_past_its_grace_and_the_timer_s_flag_ends_the_game() -> None:
    # docs/clocks.md "Flag": time left below -min(quota, 2 s)
    game = Clocked.create(CHESS3D)
    assert game.table.clocks is not None
    due = game.table.clocks.due_ms()
    assert due == T0 + 60_000 + 1_650 + 1
    refused = tables.decide(game.table, 1, "flag", now_ms=due - 1)
    assert isinstance(refused, Rejection)
    assert (refused.code, refused.clause) == (ErrorCode.ILLEGAL_ACTION, tables.CLOCK)
    events = game.act(1, "flag", due)
    assert events == (ClockFlagged(seats=[0], at_ms=due, remaining_ms=[-1_651, 60_000]),
                      GameEnded(result="0-1", reason="time", winners=[1]))  # fmt: skip
    assert tables.outcome(game.table) is not None
    assert game.table.clocks is not None
    assert game.table.clocks.running == []


def test_a_move_made_after_the_flag_loses_on_time_instead() -> None:
    # docs/clocks.md "Flag": whatever a command asks, a clock run out ends the game first
    game = Clocked.create(CHESS3D)
    late = T0 + 70_000
    events = game.act(0, game.first_legal(0), late)
    assert isinstance(events[0], ClockFlagged)
    assert events[-1] == GameEnded(result="0-1", reason="time", winners=[1])


def test_a_flag_against_a_lone_king_s_opponent_is_a_draw() -> None:
    # docs/rules/chess3d.md "Loss on time": a lone King cannot mate (FIDE 6.9)
    position = fen_of({"IA1": "K", "IB1": "Q", "IIIH8": "k"})
    game = Clocked.create(CHESS3D, position=position)
    events = game.act(1, "flag", T0 + 62_000)
    assert events[-1] == GameEnded(result="1/2-1/2", reason="time_vs_insufficient_material")
    # The other way round, the side with the Queen wins when the lone King flags
    game = Clocked.create(CHESS3D, position=fen_of({"IA1": "k", "IB1": "q", "IIIH8": "K"}))
    events = game.act(1, "flag", T0 + 62_000)
    assert events[-1] == GameEnded(result="0-1", reason="time", winners=[1])


def test_nothing_is_charged_to_a_seat_whose_clock_is_stopped() -> None:
    # docs/clocks.md "Charging": a seat acting out of turn (a resignation) pays nothing; the
    # running seat's clock stops at the end with the time it ran
    game = Clocked.create(CHESS3D)
    game.act(1, "resign", T0 + 3_000)
    assert game.charged() == ClockCharged(seat=-1, at_ms=T0 + 3_000,
                                          remaining_ms=[57_000, 60_000])  # fmt: skip
    assert game.table.clocks is not None
    assert game.table.clocks.running == []


def test_four_seats_each_have_a_clock_running_only_while_to_act() -> None:
    # docs/clocks.md "Running": a clock per seat (Yiora Secondary)
    rs = find_ruleset("yiora")
    game = Clocked.create(rs, variant="secondary_basic")
    assert game.table.clocks is not None
    assert len(game.table.clocks.remaining) == 4
    now = T0
    for _ in range(12):
        seat = min(tables.to_act(game.table))
        waiting = {s: game.table.clocks.since[s] for s in tables.to_act(game.table) - {seat}}
        now += 700
        game.act(seat, game.first_legal(seat), now)
        assert game.table.clocks.running == sorted(tables.to_act(game.table))
        for s, since in waiting.items():  # seats to act at once each run from their own start
            if s in tables.to_act(game.table):
                assert game.table.clocks.since[s] == since


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), ruleset=st.sampled_from(["chess3d", "yiora", "yavoch"]))
def test_clocks_replay_exactly_from_the_log(seed: int, ruleset: str) -> None:
    """Random legal play at random times and lags: every command decided again gives its
    recorded events (Clocked.act checks it), and folding the log gives the same clocks."""
    # docs/clocks.md "Audit"
    rng = random.Random(seed)
    rs = find_ruleset(ruleset)
    variant = {"yiora": "primary", "yavoch": "decker"}.get(ruleset, "")
    tc = TimeControl(base_ms=rng.choice([15_000, 60_000, 180_000]),
                     increment_ms=rng.choice([0, 1_000, 2_000]))  # fmt: skip
    game = Clocked.create(rs, tc, variant)
    now = T0
    for _ in range(40):
        if tables.outcome(game.table) is not None:
            break
        acting = sorted(tables.to_act(game.table))
        if not acting or tables.phase(game.table) != "play":
            break
        seat = rng.choice(acting)
        legal = rs.legal_actions(game.table.game, seat)
        if not legal:
            break
        now += rng.randrange(0, 9_000)
        text = rs.format_action(game.table.game, rng.choice(legal))
        decision = tables.decide(game.table, seat, text, now_ms=now, lag_ms=rng.randrange(0, 900))
        if isinstance(decision, NeedDraws):  # a chance step: this test keeps to decisions
            break
        game.act(seat, text, now, lag_ms=rng.randrange(0, 900))
    created = game.log[0]
    assert isinstance(created, GameCreated)
    assert tables.fold(rs, "g-clock", game.log).clocks == game.table.clocks
