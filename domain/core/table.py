"""A table: one game of any ruleset, inside the fair-play protocol.

The table is what the rules service decides and evolves; the ruleset only ever sees its own
game. Around it the table runs, as pure data (docs/fair-play.md):
- the seed protocol (section 1): the server's commitment first, then every seat commits to a
  client seed, then reveals it; no game action before the mix is known;
- draws (section 2): a ruleset asks for outcomes (`NeedDraws`), the table numbers them with the
  game's next nonces, and records each outcome as an event before the ruleset's own events, so
  replay never needs the randomness service. A ruleset whose events depend on where in the
  action a draw fell (Yavoch reshuffles cards discarded earlier in the same action) records
  the draw events itself, in place; the table then checks them against the outcomes;
- the hidden simultaneous setup (section 3): commitments, then reveals checked against them and
  against the ruleset's placement rules; an illegal reveal loses the game;
- visibility: who may see what of each event; after the game everything is public.

Platform actions are plain text, like a ruleset's: `seed-commit <sha256>`,
`seed-reveal <client seed>`, `setup-commit <sha256>`, `setup-reveal <nonce> <setup>`, and
`claim-timeout` (a waiting seat, once the seats owing a step are past the game's deadline, or
in play the seats to act past its time per move, `GameCreated.move_deadline_ms`), and `flag`
(anyone, the service's timer first: a clock has run out).
- clocks (`GameCreated.clock`, domain.core.clock): each command in play records the clocks
  after it (ClockCharged, last of its events); a command that finds a seat's time run out
  ends the game on time instead (ClockFlagged), whatever it asked.
A ruleset whose games have seeds or a hidden setup declares the `Forfeit` capability (and
`HiddenSetup` for a hidden setup): `open_table` refuses a game it could not end.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import msgspec

from contracts.errors import ErrorCode
from contracts.events import (
    CardDealt,
    ClientSeedCommitted,
    ClientSeedRevealed,
    ClockCharged,
    ClockFlagged,
    DeckShuffled,
    Event,
    GameCreated,
    GameEnded,
    GameSealed,
    RandomDrawn,
    SeedCommitted,
    SeedRevealed,
    SetupCommitted,
    SetupRevealed,
    SetupsDiscarded,
    TimedOut,
)
from domain import fairplay
from domain.core import clock
from domain.core.outcome import Outcome, Sides, draw, ended, lose
from domain.core.ruleset import (
    Decided,
    Decision,
    DrawRequest,
    DrawResult,
    Forfeit,
    HiddenSetup,
    NeedDraws,
    Rejection,
    Ruleset,
    can_win_of,
    forfeit_of,
    hidden_setup_of,
)

NONCED = frozenset({"die", "uniform", "shuffle"})
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
MOVE_DEADLINE = "move-deadline"  # the clause of a refused move-time claim (docs/gateway.md)
CLOCK = "clock"  # the clause of a refused flag (docs/clocks.md)
# Events the table keeps for itself; every other event is the ruleset's to evolve.
_TABLE_ONLY = (SeedCommitted, ClientSeedCommitted, ClientSeedRevealed, SetupCommitted,
               SeedRevealed, TimedOut, ClockCharged, ClockFlagged)  # fmt: skip
# Every event the table looks at itself; any other goes straight to the ruleset (the hot path).
_TABLE_EVENTS = (*_TABLE_ONLY, RandomDrawn, DeckShuffled, SetupRevealed, SetupsDiscarded,
                 GameSealed)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Fair:
    """The seed protocol's state (section 1)."""

    commitment: str
    client_commitments: tuple[str, ...]  # "" until the seat has committed
    client_seeds: tuple[str, ...]  # "" until the seat has revealed
    next_nonce: int = 0
    server_seed: str = ""  # revealed once the game has ended

    @property
    def committed(self) -> bool:
        return all(self.client_commitments)

    @property
    def ready(self) -> bool:
        return all(self.client_seeds)

    @property
    def mix(self) -> str:
        return fairplay.mix(self.client_seeds)


@dataclass(frozen=True, slots=True)
class Screen:
    """The hidden simultaneous setup's state (section 3)."""

    commitments: tuple[str, ...]
    revealed: tuple[bool, ...]

    @property
    def closed(self) -> bool:
        """Every seat has committed: reveals may begin."""
        return all(self.commitments)

    @property
    def done(self) -> bool:
        return all(self.revealed)


class Table(NamedTuple):
    """Immutable (a NamedTuple: built per event, so it must be cheap to build)."""

    ruleset: Ruleset[Any, Any]
    game_id: str
    created: GameCreated
    game: Any  # the ruleset's state
    fair: Fair | None = None
    screen: Screen | None = None
    sealed: bool = False
    clocks: clock.Clocks | None = None  # a game with clocks (GameCreated.clock)

    def _with(self, **changes: Any) -> "Table":
        return self._replace(**changes)


def open_table(ruleset: Ruleset[Any, Any], game_id: str, created: GameCreated) -> Table:
    if (created.randomness or created.hidden_setup) and forfeit_of(ruleset) is None:
        raise ValueError(f"{ruleset.name} games with seeds or a hidden setup need a forfeit")
    if created.hidden_setup and hidden_setup_of(ruleset) is None:
        raise ValueError(f"{ruleset.name} declares no hidden setup")
    screen = None
    if created.hidden_setup:
        screen = Screen(("",) * created.seats, (False,) * created.seats)
    clocks = clock.start(created.clock, created.seats) if created.clock else None
    return Table(ruleset, game_id, created, ruleset.start(created), screen=screen, clocks=clocks)


def fold(ruleset: Ruleset[Any, Any], game_id: str, events: Iterable[Event]) -> Table:
    it = iter(events)
    created = next(it, None)
    if not isinstance(created, GameCreated):
        raise ValueError("a game's log must start with GameCreated")
    table = open_table(ruleset, created.game_id or game_id, created)
    for event in it:
        table = evolve(table, event)
    return table


def _put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*values[:i], value, *values[i + 1 :])


def evolve(table: Table, event: Event) -> Table:
    """Apply a recorded event, unchecked."""
    if not isinstance(event, _TABLE_EVENTS):
        return Table(table.ruleset, table.game_id, table.created,
                     table.ruleset.evolve(table.game, event), table.fair, table.screen,
                     table.sealed, table.clocks)  # fmt: skip  # the hot path: one ruleset event
    fair, screen = table.fair, table.screen
    if isinstance(event, SeedCommitted):
        seats = table.created.seats
        return table._with(fair=Fair(event.commitment, ("",) * seats, ("",) * seats))
    if isinstance(event, ClientSeedCommitted):
        assert fair is not None
        commitments = _put(fair.client_commitments, event.seat, event.commitment)
        return table._with(fair=replace(fair, client_commitments=commitments))
    if isinstance(event, ClientSeedRevealed):
        assert fair is not None
        seeds = _put(fair.client_seeds, event.seat, event.seed)
        return table._with(fair=replace(fair, client_seeds=seeds))
    if isinstance(event, SeedRevealed):
        assert fair is not None
        return table._with(fair=replace(fair, server_seed=event.server_seed))
    if isinstance(event, TimedOut):
        return table  # the forfeit that follows ends the game
    if isinstance(event, ClockCharged):
        assert table.clocks is not None
        assert table.created.clock is not None
        paid = clock.Charge(event.seat, event.charged_ms, event.compensation_ms)
        running = to_act(table) if phase(table) == "play" else frozenset()
        return table._with(clocks=clock.after(table.clocks, table.created.clock, paid,
                                              event.at_ms, running))  # fmt: skip
    if isinstance(event, ClockFlagged):
        assert table.clocks is not None
        assert table.created.clock is not None
        return table._with(clocks=clock.after(table.clocks, table.created.clock, clock.NOBODY,
                                              event.at_ms, frozenset()))  # fmt: skip
    if isinstance(event, SetupsDiscarded):  # every seat commits and reveals again
        assert screen is not None
        seats = table.created.seats
        return table._with(screen=Screen(("",) * seats, (False,) * seats),
                           game=table.ruleset.evolve(table.game, event))  # fmt: skip
    if isinstance(event, SetupCommitted):
        assert screen is not None
        commitments = _put(screen.commitments, event.seat, event.commitment)
        return table._with(screen=replace(screen, commitments=commitments))
    if isinstance(event, GameSealed):
        return table._with(sealed=True, game=table.ruleset.evolve(table.game, event))
    if isinstance(event, SetupRevealed):
        assert screen is not None
        screen = replace(screen, revealed=_put(screen.revealed, event.seat, True))
        game = table.game if event.rejected else table.ruleset.evolve(table.game, event)
        return table._with(screen=screen, game=game)
    # RandomDrawn / DeckShuffled: the nonce is spent; the ruleset may keep the outcome.
    assert fair is not None
    fair = replace(fair, next_nonce=event.nonce + 1)
    return table._with(fair=fair, game=table.ruleset.evolve(table.game, event))


def outcome(table: Table) -> Outcome | None:
    return table.ruleset.outcome(table.game)


def seal_due(table: Table) -> bool:
    """Whether the append that leaves the table in this state seals the log: the game has
    ended and nothing is left to reveal (a game with seeds seals once its seed is revealed,
    in the append that reveals it)."""
    if table.sealed or outcome(table) is None:
        return False
    return table.fair is None or bool(table.fair.server_seed)


def finish_due(table: Table) -> bool:
    """Whether the game has ended but its seed is still to be revealed (and the log sealed)."""
    return table.fair is not None and not table.sealed and outcome(table) is not None


def phase(table: Table) -> str:
    """ "seeding", "setup", "play" or "ended"."""
    if outcome(table) is not None:
        return "ended"
    if table.created.randomness and (table.fair is None or not table.fair.ready):
        return "seeding"  # (fair is None only before the server's commitment is recorded)
    if table.screen is not None and not table.screen.done:
        return "setup"
    return "play"


def to_act(table: Table) -> frozenset[int]:
    current = phase(table)
    if current == "ended":
        return frozenset()
    if current == "seeding":
        fair = table.fair
        if fair is None:
            return frozenset()  # waiting for the server's commitment
        if not fair.committed:
            return frozenset(s for s, c in enumerate(fair.client_commitments) if not c)
        return frozenset(s for s, c in enumerate(fair.client_seeds) if not c)
    if current == "setup":
        assert table.screen is not None
        screen = table.screen
        if not screen.closed:
            return frozenset(s for s, c in enumerate(screen.commitments) if not c)
        return frozenset(s for s, r in enumerate(screen.revealed) if not r)
    return table.ruleset.to_act(table.game)


# -- deciding ----------------------------------------------------------------------------------


def _refuse(code: ErrorCode, reason: str, clause: str = "") -> Rejection:
    return Rejection(code, reason, clause)


def decide(
    table: Table,
    seat: int,
    text: str,
    draws: Sequence[DrawResult] = (),
    idle_ms: int = 0,
    now_ms: int = 0,
    lag_ms: int = 0,
) -> Decision:
    """Decide a seat's action (text) at this table; see the module docstring. Time comes in as
    data (the domain reads no clock), as the caller measured it: `idle_ms`, how long the table
    has waited since its last event, for `claim-timeout`; `now_ms`, the command's time, and
    `lag_ms`, the lag its client reported, for the clocks (domain.core.clock)."""
    if outcome(table) is not None:
        return _refuse(ErrorCode.GAME_ENDED, "the game has ended")
    if not 0 <= seat < table.created.seats:  # the seed and setup tuples are indexed by seat
        return _refuse(ErrorCode.UNKNOWN_SEAT, f"seat {seat} is not at this table")
    clocks = table.clocks
    if clocks is None:
        return _decide(table, seat, text, draws, idle_ms)
    if flagged := clocks.flagged(now_ms):  # whatever was asked: time ran out first
        return _flag(table, clocks, flagged, now_ms)
    if text.strip() == "flag":
        return _refuse(ErrorCode.ILLEGAL_ACTION, "no clock has run out", CLOCK)
    decision = _decide(table, seat, text, draws, idle_ms)
    if isinstance(decision, Rejection | NeedDraws):
        return decision
    return _clocked(table, clocks, decision, seat, now_ms, lag_ms)


def start_clocks(table: Table, now_ms: int) -> tuple[Event, ...]:
    """The event that starts the clocks of a game made in play (no seeds nor hidden setup to
    come first): its creation's, recorded with it. Nothing for any other game."""
    if table.clocks is None or phase(table) != "play":
        return ()
    started = _clocked(table, table.clocks, (), -1, now_ms, 0)
    return tuple(started)


def loses_at_once(seat: int, text: str, events: Sequence[Event]) -> GameEnded | None:
    """The end a decided action brings at once against the seat making it (its side loses),
    as a person would not mean to: not a resignation, nor a clock that had run out anyway."""
    if text.strip() == "resign" or any(isinstance(e, ClockFlagged) for e in events):
        return None
    end = next((e for e in events if isinstance(e, GameEnded)), None)
    if end is None or not end.winners or seat in end.winners:
        return None
    return end


def _clocked(table: Table, clocks: clock.Clocks, decision: Sequence[Event], seat: int,
             now_ms: int, lag_ms: int) -> tuple[Event, ...]:  # fmt: skip
    """`decision` with the clocks after it (ClockCharged, last), in play or as play begins."""
    was_playing = phase(table) == "play"
    after = decision.state if isinstance(decision, Decided) else _fold(table, decision)
    if not was_playing and phase(after) != "play":
        return tuple(decision)  # no clock runs before play
    paid = clock.charge(clocks, seat, now_ms, lag_ms) if was_playing else clock.NOBODY
    running = to_act(after) if phase(after) == "play" else frozenset()
    assert table.created.clock is not None
    clocks_after = clock.after(clocks, table.created.clock, paid, now_ms, running)
    charged = ClockCharged(seat=paid.seat, at_ms=now_ms,
                           lag_ms=lag_ms if paid.seat >= 0 else 0, charged_ms=paid.charged_ms,
                           compensation_ms=paid.compensation_ms,
                           remaining_ms=list(clocks_after.remaining))  # fmt: skip
    events = (*decision, charged)
    return Decided(events, evolve(after, charged)) if isinstance(decision, Decided) else events


def _fold(table: Table, events: Iterable[Event]) -> Table:
    for event in events:
        table = evolve(table, event)
    return table


def _flag(table: Table, clocks: clock.Clocks, seats: tuple[int, ...], now_ms: int) -> Decision:
    """The flagged seats lose on time, unless no other side could have won: a draw then, where
    the ruleset says so (3-D Chess: a lone King)."""
    flagged = ClockFlagged(seats=list(seats), at_ms=now_ms, remaining_ms=clocks.lefts(now_ms))
    sides = Sides.of(table.created)
    losers = {s for seat in seats for s in sides.side(seat)}
    others = [s for s in range(table.created.seats) if s not in losers]
    can_win = can_win_of(table.ruleset)
    if can_win is not None and not any(can_win.can_win(table.game, s) for s in others):
        return (flagged, ended(draw("time_vs_insufficient_material", sides)))
    return (flagged, ended(lose(seats, "time", sides)))


def _decide(
    table: Table, seat: int, text: str, draws: Sequence[DrawResult], idle_ms: int
) -> Decision:
    verb, _, rest = text.strip().partition(" ")
    if verb in ("seed-commit", "seed-reveal"):
        return _seed_action(table, seat, verb, rest.strip())
    if verb in ("setup-commit", "setup-reveal"):
        return _setup_action(table, seat, verb, rest.strip())
    if verb == "claim-timeout":
        return _claim_timeout(table, seat, idle_ms)
    current = phase(table)
    if current == "seeding":
        return _refuse(ErrorCode.NOT_STARTED, "waiting for every seat's client seed",
                       "fair-play 1.3")  # fmt: skip
    if current == "setup":
        return _refuse(ErrorCode.NOT_STARTED, "the hidden setup is still open", "fair-play 3")
    rs = table.ruleset
    action = rs.parse_action(table.game, seat, text)
    if isinstance(action, Rejection):
        return action
    decision = rs.decide(table.game, seat, action, draws)
    if isinstance(decision, NeedDraws):
        return _number(table, decision, draws)
    if isinstance(decision, Rejection):
        return decision
    if not draws:
        return _at_table(table, decision)
    recorded = _draw_events(table, draws)
    own = [e for e in decision if isinstance(e, RandomDrawn | DeckShuffled)]
    if not own:
        return (*recorded, *decision)
    if own != recorded:  # a ruleset that places its draws records each one, as drawn
        raise ValueError(f"{rs.name} recorded its draws differently from the outcomes given")
    assert table.fair is not None
    return _at_table(table, decision, replace(table.fair, next_nonce=own[-1].nonce + 1))


def _at_table(table: Table, events: tuple[Event, ...], fair: Fair | None = None
              ) -> tuple[Event, ...]:  # fmt: skip
    """A ruleset's decision at the table: with the table it leads to when the ruleset computed
    its state (`Decided`) and no event but its own recorded draws (`fair`: the seed protocol
    after them) is the table's; else the events alone (never the ruleset's `Decided`), for the
    caller to fold."""
    drawn = (RandomDrawn, DeckShuffled) if fair is not None else ()
    if not isinstance(events, Decided) or any(
        isinstance(e, _TABLE_EVENTS) and not isinstance(e, drawn) for e in events
    ):
        return tuple(events)
    return Decided(events, Table(table.ruleset, table.game_id, table.created, events.state,
                                 fair or table.fair, table.screen, table.sealed,
                                 table.clocks))  # fmt: skip


def _number(table: Table, need: NeedDraws, given: Sequence[DrawResult]) -> NeedDraws:
    """Give each nonce-consuming request the game's next nonce, in order. A ruleset may ask
    again once it has seen some outcomes (a reshuffle until a card shows, a die whose range
    depends on an earlier roll): the caller then passes every draw so far, and the new
    requests take the nonces after them."""
    if table.fair is None or not table.fair.ready:
        raise ValueError(f"{table.ruleset.name} drew at random in a game without seeds")
    nonce = table.fair.next_nonce + sum(d.kind in NONCED for d in given)
    numbered = []
    for request in need.requests:
        if request.kind in NONCED:
            numbered.append(replace(request, nonce=nonce))
            nonce += 1
        else:
            numbered.append(replace(request, nonce=None))
    return NeedDraws(tuple(numbered))


def fulfil(
    requests: Sequence[DrawRequest], server_seed: str, game_id: str, mix: str
) -> list[DrawResult]:
    """What the randomness service answers to the table's numbered draw requests (fair-play 2),
    for play in process (a duel, the tests): the same functions of the seeds."""
    results = []
    for r in requests:
        if r.kind == "salt":
            salt = fairplay.card_salt(server_seed, game_id, r.n)
            results.append(DrawResult(None, r.kind, r.n, r.purpose, salt=salt))
            continue
        assert r.nonce is not None, "the table numbers every nonce-consuming request"
        args = (server_seed, game_id, mix, r.nonce, r.n)
        if r.kind == "die":
            values: tuple[int, ...] = (fairplay.die(*args),)
        elif r.kind == "uniform":
            values = (fairplay.uniform(*args),)
        elif r.kind == "shuffle":
            values = tuple(fairplay.shuffle(*args))
        else:
            raise ValueError(f"unknown draw kind {r.kind!r}")
        results.append(DrawResult(r.nonce, r.kind, r.n, r.purpose, values))
    return results


def _draw_events(table: Table, draws: Sequence[DrawResult]) -> list[Event]:
    """The events that record the draws, checked to be the game's next nonces in order."""
    assert table.fair is not None
    expected = table.fair.next_nonce
    events: list[Event] = []
    for d in draws:
        if d.kind not in NONCED:
            continue
        if d.nonce != expected:
            raise ValueError(f"draw nonce {d.nonce} given where {expected} is next")
        expected += 1
        if d.kind == "shuffle":
            events.append(DeckShuffled(nonce=d.nonce, n=d.n, purpose=d.purpose,
                                       order=list(d.values)))  # fmt: skip
        else:
            events.append(RandomDrawn(nonce=d.nonce, kind=d.kind, n=d.n, purpose=d.purpose,
                                      value=d.values[0]))  # fmt: skip
    return events


def _seed_action(table: Table, seat: int, verb: str, arg: str) -> Decision:
    fair = table.fair
    if fair is None and table.created.randomness:
        return _refuse(ErrorCode.NOT_STARTED, "waiting for the server's seed commitment",
                       "fair-play 1.1")  # fmt: skip
    if fair is None:
        return _refuse(ErrorCode.ILLEGAL_ACTION, "this game draws nothing at random: no seeds",
                       "fair-play 1")  # fmt: skip
    if verb == "seed-commit":
        if not _HEX64.match(arg):
            return _refuse(ErrorCode.MALFORMED_ACTION, "seed-commit takes a SHA-256 (64 hex)",
                           "fair-play 1.2")  # fmt: skip
        if fair.client_commitments[seat]:
            return _refuse(ErrorCode.ILLEGAL_ACTION, "you have committed your client seed",
                           "fair-play 1.2")  # fmt: skip
        return (ClientSeedCommitted(seat=seat, commitment=arg),)
    if not fair.committed:
        return _refuse(ErrorCode.NOT_YOUR_TURN, "reveal once every seat has committed",
                       "fair-play 1.3")  # fmt: skip
    if fair.client_seeds[seat]:
        return _refuse(ErrorCode.ILLEGAL_ACTION, "you have revealed your client seed",
                       "fair-play 1.3")  # fmt: skip
    if not fairplay.is_valid_client_seed(arg):
        return _refuse(ErrorCode.MALFORMED_ACTION, "a client seed is 16-64 of [A-Za-z0-9_-]",
                       "fair-play 1.2")  # fmt: skip
    if not fairplay.verify_client_seed(table.game_id, seat, arg,
                                       fair.client_commitments[seat]):  # fmt: skip
        return _refuse(ErrorCode.ILLEGAL_ACTION, "this seed does not match your commitment",
                       "fair-play 1.3")  # fmt: skip
    return (ClientSeedRevealed(seat=seat, seed=arg),)


def _claim_timeout(table: Table, seat: int, idle_ms: int) -> Decision:
    """A waiting seat claims the game from the seats it waits for, once they are past the
    deadline: a seed or setup step owed past the reveal deadline (fair-play 1.3, 3; the
    ruleset's forfeit ends the game), or in play a move past the game's time per move (they
    lose, `timeout`). The phase is never "ended" here: `decide` refused that already."""
    playing = phase(table) == "play"
    clause = MOVE_DEADLINE if playing else "fair-play 1.3"
    deadline = table.created.move_deadline_ms if playing else table.created.reveal_deadline_ms
    if playing and not deadline:
        return _refuse(ErrorCode.ILLEGAL_ACTION, "this game has no time per move", clause)
    laggards = sorted(to_act(table))
    if seat in laggards or not laggards:
        return _refuse(ErrorCode.ILLEGAL_ACTION, "only a seat kept waiting may claim", clause)
    if idle_ms < deadline:
        return _refuse(ErrorCode.ILLEGAL_ACTION,
                       f"the deadline is {deadline} ms; the table has waited {idle_ms} ms",
                       clause)  # fmt: skip
    if playing:
        ending: tuple[Event, ...] = (ended(lose(laggards, "timeout", Sides.of(table.created))),)
    else:
        ending = _forfeit(table).forfeit(table.game, laggards, "timeout")
    return (TimedOut(seats=laggards, idle_ms=idle_ms), *ending)


def _forfeit(table: Table) -> Forfeit[Any]:
    forfeit = forfeit_of(table.ruleset)
    assert forfeit is not None  # open_table made sure
    return forfeit


def _hidden_setup(table: Table) -> HiddenSetup[Any]:
    hidden = hidden_setup_of(table.ruleset)
    assert hidden is not None  # open_table made sure
    return hidden


def _setup_action(table: Table, seat: int, verb: str, arg: str) -> Decision:
    screen = table.screen
    if screen is None:
        return _refuse(ErrorCode.ILLEGAL_ACTION, "this game has no hidden setup", "fair-play 3")
    if phase(table) == "seeding":
        return _refuse(ErrorCode.NOT_STARTED, "waiting for every seat's client seed",
                       "fair-play 1.3")  # fmt: skip
    if verb == "setup-commit":
        if not _HEX64.match(arg):
            return _refuse(ErrorCode.MALFORMED_ACTION, "setup-commit takes a SHA-256 (64 hex)",
                           "fair-play 3")  # fmt: skip
        if screen.commitments[seat]:
            return _refuse(ErrorCode.ILLEGAL_ACTION, "you have committed your setup",
                           "fair-play 3")  # fmt: skip
        return (SetupCommitted(seat=seat, commitment=arg),)
    if not screen.closed:
        return _refuse(ErrorCode.NOT_YOUR_TURN, "reveal once every seat has committed",
                       "fair-play 3")  # fmt: skip
    if screen.revealed[seat]:
        return _refuse(ErrorCode.ILLEGAL_ACTION, "you have revealed your setup", "fair-play 3")
    nonce, _, setup = arg.partition(" ")
    if not _HEX64.match(nonce):
        return _refuse(ErrorCode.MALFORMED_ACTION,
                       "setup-reveal takes <nonce: 64 hex> <setup>", "fair-play 3")  # fmt: skip
    if not setup.isascii():
        return _refuse(ErrorCode.MALFORMED_ACTION, "a setup is ASCII (msgspec JSON)",
                       "fair-play 3")  # fmt: skip
    data = setup.encode()
    rejected = ""
    if not fairplay.verify_setup(table.game_id, seat, nonce, data, screen.commitments[seat]):
        rejected = "the revealed setup does not match its commitment"
    else:
        problem = _hidden_setup(table).check_setup(table.game, seat, data)
        if problem is not None:
            rejected = problem.reason + (f" [{problem.clause}]" if problem.clause else "")
    revealed = SetupRevealed(seat=seat, nonce=nonce, setup=setup, rejected=rejected)
    if not rejected:
        after = table.ruleset.evolve(table.game, revealed)
        if sum(screen.revealed) == len(screen.revealed) - 1:  # the last reveal
            conflict = _hidden_setup(table).combined_setup_problem(after)
            if conflict is not None:
                return (revealed, SetupsDiscarded(reason=conflict))
        # The last reveal may decide the game at once (a King already mated in Cyvasse A):
        # the log then says so, as after any other action.
        end = table.ruleset.outcome(after)
        return (revealed,) if end is None else (revealed, ended(end))
    forfeit = _forfeit(table).forfeit(table.game, (seat,), rejected)
    return (revealed, *forfeit)


# -- who sees what ----------------------------------------------------------------------------


def visible(table: Table, event: Event, seat: int | None) -> Event | None:
    """`event` as `seat` (None: a spectator) may see it now. After the game, all of it."""
    if outcome(table) is not None:
        return event
    if isinstance(event, DeckShuffled):
        return msgspec.structs.replace(event, order=[])  # nobody sees the deck order before the end
    if isinstance(event, CardDealt):
        return event if seat == event.seat else msgspec.structs.replace(event, card="", salt="")
    return table.ruleset.visible(event, seat)


def audience(event: Event) -> tuple[int, ...]:
    """Seats that see more of `event` than a spectator does (for sealed delivery). Private
    information is the platform's CardDealt; a ruleset deals its secrets through it."""
    if isinstance(event, CardDealt):
        return (event.seat,)
    return ()
