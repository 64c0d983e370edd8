"""The Yiora ruleset: decide (checked) and evolve (unchecked) for Primary Basic and the two
Secondary variations, the end of each game (YI-4.4) and of the match (YI-8.4.3)."""

from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any, Final, NamedTuple

from contracts.errors import ErrorCode
from contracts.events import (
    DrawAccepted,
    DrawDeclined,
    DrawOffered,
    Event,
    GameCreated,
    GameEnded,
    Resigned,
)
from contracts.yiora import (
    EVENTS,
    GameDrawAccepted,
    GameDrawDeclined,
    GameDrawOffered,
    GameFinished,
    MovePlayed,
)
from domain.core import Capability, Decided, Decision, DrawResult, Outcome, Rejection, VariantError
from domain.core import agreement as agreements
from domain.core.agreement import Agreement
from domain.core.outcome import WIN, ended, win
from domain.core.outcome import of as outcome_of
from domain.core.ruleset import with_state
from domain.yiora import display
from domain.yiora.geometry import (
    COLOUR,
    COLOUR_NAMES,
    KIND_NAMES,
    MAGE,
    MAGE_RAYS,
    NAMES,
    OVERLORD,
    PAWN,
    PAWN_PATHS,
    RING_RAYS,
    kind_of,
    side_of,
)
from domain.yiora.moves import is_legal, targets
from domain.yiora.notation import (
    Action,
    Command,
    Malformed,
    Move,
    Verb,
    format_command,
    format_move,
    parse,
)
from domain.yiora.notation import parse_stored as stored_move
from domain.yiora.position import (
    GAME_IDS,
    SIDE_NAMES,
    EndRules,
    Position,
    format_match,
    game_end,
    generate_legal_moves,
    parse_match,
    perft,
    play,
    start_position,
)
from domain.yiora.seats import (
    games_of,
    match_outcome,
    match_reason,
    next_game,
    seat_count,
    seats_of,
    side_in,
    teams,
)
from domain.yiora.variant import SECONDARY_BASIC, VARIANTS, Config, parse_variant


class Game(NamedTuple):
    """One game on the board: its position, its draw offers (`agreement`, indexed by side),
    its result once ended (scores per side) and its last move."""

    pos: Position
    agreement: Agreement = Agreement()
    result: Outcome | None = None
    last: str = ""

    @property
    def turn(self) -> int | None:
        """The side to move, None once the game has ended."""
        return None if self.result else self.pos.turn


class State(NamedTuple):
    config: Config
    games: tuple[Game, ...]  # (bsq,) in Primary Basic, (bsq, wsq) in a Secondary variation
    outcome: Outcome | None = None  # the whole game's (the match's), per seat

    @property
    def secondary(self) -> bool:
        return len(self.games) == 2

    def due(self) -> int | None:
        """In lockstep, the game whose move is due (YI-8.4.1); else None."""
        if not self.config.lockstep:
            return None
        return next_game(self.config, [g.turn for g in self.games])


def _illegal(reason: str, clause: str) -> Rejection:
    return Rejection(ErrorCode.ILLEGAL_ACTION, reason, clause)


def _malformed(reason: str, clause: str = "YI-1.7") -> Rejection:
    return Rejection(ErrorCode.MALFORMED_ACTION, reason, clause)


def _put(games: tuple[Game, ...], index: int, game: Game) -> tuple[Game, ...]:
    return (*games[:index], game, *games[index + 1 :])


def _game_index(name: str) -> int:
    return GAME_IDS.index(name) if name else 0


class Yiora:
    """Yiora (Primary Basic, Secondary Basic, Secondary Complex) per the Yiora ruling v1.0."""

    name = "yiora"
    capabilities = frozenset({Capability.PERFT, Capability.BOT_POLICY})
    variants = VARIANTS
    events: tuple[type[Event], ...] = EVENTS

    # Game lifecycle -----------------------------------------------------------------------

    def create(self, variant: str, position: str = "") -> GameCreated:
        config = parse_variant(variant)
        for pos in _parse_position(position, config) if position else ():
            over = game_end(config.end_rules, pos)
            if over:  # a game that starts finished could never be played
                game = f"game {GAME_IDS[pos.colour]} " if config.games == 2 else ""
                raise VariantError(ErrorCode.BAD_POSITION, f"bad Yiora position: {game}would "
                                   f"already be over ({over.reason}): nothing to play")  # fmt: skip
        return GameCreated(ruleset=self.name, variant=config.variant, seats=seat_count(config),
                           teams=[list(team) for team in teams(config)],
                           position=position)  # fmt: skip

    def start(self, created: GameCreated) -> State:
        """The first state. A position in which a game is over by YI-4.4 (which `create`
        refuses for a new game) is loaded with that game's result, as a chess tool loads a
        mate, and with the match's once no game is left."""
        config = parse_variant(created.variant)
        if not created.position:
            white, black = config.white_men, config.black_men
            positions = tuple(start_position(white, black, colour, config.first)
                              for colour in range(config.games))  # fmt: skip
            return State(config, tuple(Game(pos) for pos in positions))
        positions = _parse_position(created.position, config)
        results = [game_end(config.end_rules, pos) for pos in positions]
        games = tuple(Game(pos, result=r) for pos, r in zip(positions, results, strict=True))
        done = [result for result in results if result]
        if len(done) < len(games):
            return State(config, games)
        if config.games == 1:
            return State(config, games, done[0])  # Primary Basic: the seats are the sides
        reason = match_reason([result.reason for result in done])
        return State(config, games, match_outcome(config, done, reason))

    def to_act(self, state: State) -> frozenset[int]:
        if state.outcome:
            return frozenset()
        config = state.config
        due = state.due()
        games = range(len(state.games)) if due is None else (due,)
        return frozenset(seat for g in games if (turn := state.games[g].turn) is not None
                         for seat in seats_of(config, g, turn))  # fmt: skip

    # Actions ------------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        if state.outcome or not 0 <= seat < seat_count(state.config):
            return []
        actions: list[Action] = []
        for g in self._movable(state, seat):
            pos = state.games[g].pos
            actions.extend(sorted(Move(g, fr, to) for fr, to in generate_legal_moves(pos)))
        for verb in Verb:
            for g in (-1,) if verb is Verb.RESIGN else range(len(state.games)):
                command = Command(verb, g)
                if not isinstance(self._command(state, seat, command), Rejection):
                    actions.append(command)
        return actions

    def _movable(self, state: State, seat: int) -> list[int]:
        """The games in which `seat` may move now."""
        due = state.due()
        return [g for g in games_of(state.config, seat)
                if state.games[g].turn == side_in(state.config, seat, g)
                and due in (None, g)]  # fmt: skip

    def parse_action(self, state: State, seat: int, text: str) -> Action | Rejection:
        action = parse(text)
        if isinstance(action, Malformed):
            return _malformed(action.reason, action.clause)
        config = state.config
        if action.game == 1 and not state.secondary:
            return _malformed("Primary Basic is one game, on the black squares: no wsq: prefix")
        if action.game >= 0 or (isinstance(action, Command) and action.verb is Verb.RESIGN):
            return action
        if isinstance(action, Move):  # no prefix: the game of the squares' colour
            return action._replace(game=COLOUR[action.from_square] if state.secondary else 0)
        if not state.secondary:
            return action._replace(game=0)
        if config.variation == SECONDARY_BASIC:
            own = games_of(config, seat)
            return action._replace(game=own[0] if own else 0)
        unfinished = [g for g, game in enumerate(state.games) if game.result is None]
        if len(unfinished) == 1:
            return action._replace(game=unfinished[0])
        verb = action.verb.value
        return _malformed(f"name the game: bsq:{verb} or wsq:{verb} (draw offers are made per "
                          "game)", "YI-8.4.3")  # fmt: skip

    def format_action(self, state: State, action: Action) -> str:
        if isinstance(action, Command):
            return format_command(action, state.secondary)
        return format_move(state.games[action.game].pos.board, action, state.secondary)

    def decide(
        self, state: State, seat: int, action: Action, draws: Sequence[DrawResult] = ()
    ) -> Decision:
        if state.outcome:
            return Rejection(ErrorCode.GAME_ENDED, "the game has ended")
        if not 0 <= seat < seat_count(state.config):
            return Rejection(ErrorCode.UNKNOWN_SEAT, f"seat {seat} does not play this Yiora game")
        if isinstance(action, Command):
            return with_state(self.evolve, state, self._command(state, seat, action))
        return self._move(state, seat, action)

    # Non-move actions (YI-4.3, YI-7.6, YI-7.7, YI-8.4.3) ---------------------------------------

    def _command(self, state: State, seat: int, command: Command) -> Decision:
        config = state.config
        if command.verb is Verb.RESIGN:
            return self._resign(state, seat)
        g = max(command.game, 0)
        game_id = GAME_IDS[g]
        side = side_in(config, seat, g) if g < len(state.games) else None
        if side is None:
            return _illegal(f"you play no side in game {game_id}", "YI-8.3")
        game = state.games[g]
        if game.result:
            return _illegal(f"game {game_id} has ended ({game.result.result})", "YI-8.2")
        # YI-4.3: an offer is made on one's turn; in lockstep that is while the game due is one
        # of the player's (YI-8.4.1), in a game where the player is still to move.
        due = state.due()
        turn = due is None or state.games[due].turn == side_in(config, seat, due)
        decision = agreements.decide(command.verb.value, side, game.agreement, "YI-7.6",
                                     may_offer=turn and game.pos.turn == side)  # fmt: skip
        if isinstance(decision, Rejection):
            if decision.code is ErrorCode.NOT_YOUR_TURN:
                return replace(decision, clause="YI-4.3")
            return decision
        assert isinstance(decision, tuple)  # agreement draws nothing
        if not state.secondary:
            return decision  # the platform's events, seat = side in Primary Basic
        events: list[Event] = []
        for event in decision:
            if isinstance(event, DrawOffered):
                events.append(GameDrawOffered(seat=seat, game=game_id))
            elif isinstance(event, DrawDeclined):
                events.append(GameDrawDeclined(seat=seat, game=game_id))
            elif isinstance(event, DrawAccepted):
                events.append(GameDrawAccepted(seat=seat, game=game_id))
            elif isinstance(event, GameEnded):  # the draw is agreed: this game is over
                events += self._finish(state, {g: outcome_of(event)})
        return tuple(events)

    def _resign(self, state: State, seat: int) -> Decision:
        """YI-7.7, YI-8.4.3: every unfinished game of the seat's side ends, the opponent
        winning; in Primary Basic that is the game."""
        config = state.config
        mine = [g for g in games_of(config, seat) if state.games[g].result is None]
        if not mine:
            return _illegal("you have no unfinished game to resign", "YI-7.7")
        finished: dict[int, Outcome] = {}
        for g in mine:
            side = side_in(config, seat, g)
            assert side is not None
            finished[g] = win(side ^ 1, "resignation")
        return (Resigned(seat=seat), *self._finish(state, finished))

    def _finish(self, state: State, finished: dict[int, Outcome]) -> list[Event]:
        """The events that end the games in `finished` (results per side) and, once no game is
        left, the whole game (Primary Basic: its one game's result)."""
        if not state.secondary:
            return [ended(finished[0])]
        events: list[Event] = [GameFinished(game=GAME_IDS[g], result=result.result,
                                            reason=result.reason)
                               for g, result in sorted(finished.items())]  # fmt: skip
        results = [finished.get(g, game.result) for g, game in enumerate(state.games)]
        if all(results):
            done = [r for r in results if r is not None]
            reason = match_reason([r.reason for r in done])
            events.append(ended(match_outcome(state.config, done, reason)))
        return events

    # Moves ----------------------------------------------------------------------------------

    def _move(self, state: State, seat: int, move: Move) -> Decision:
        config = state.config
        g = move.game
        if not 0 <= g < len(state.games):
            return _malformed("Primary Basic is one game, on the black squares: no wsq: prefix")
        game_id = GAME_IDS[g]
        game = state.games[g]
        if game.result:
            return _illegal(f"game {game_id} has ended ({game.result.result})", "YI-8.2")
        side = side_in(config, seat, g)
        if side is None:
            return _illegal(f"you play no side in game {game_id}", "YI-8.3")
        pos = game.pos
        if pos.turn != side:
            whose = SIDE_NAMES[pos.colour][pos.turn]
            where = f" in game {game_id}" if state.secondary else ""
            return Rejection(ErrorCode.NOT_YOUR_TURN, f"it is {whose}'s turn{where}", "YI-4.1")
        due = state.due()
        if due is not None and due != g:
            reason = f"this turn moves in game {GAME_IDS[due]} now: game bsq first, then wsq"
            return Rejection(ErrorCode.NOT_YOUR_TURN, reason, "YI-8.4.1")
        problem = _check_move(state, pos, move)
        if problem:
            return problem
        nxt = play(pos, (move.from_square, move.to_square))
        text = format_move(pos.board, move, False)
        events: list[Event] = []
        after = state
        if agreements.pending(game.agreement, side):  # YI-7.6: the move declines the offer
            events.append(GameDrawDeclined(seat=seat, game=game_id) if state.secondary
                          else DrawDeclined(seat=seat))  # fmt: skip
            after = self.evolve(after, events[-1])
        events.append(MovePlayed(seat=seat, move=text, game=game_id if state.secondary else "",
                                 check=nxt.check))  # fmt: skip
        after = _played(after, g, nxt, text)
        end = game_end(config.end_rules, nxt)  # YI-4.4
        if end:
            for event in self._finish(after, {g: end}):
                events.append(event)
                after = self.evolve(after, event)
        return Decided(events, after)

    # Events -------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        if isinstance(event, MovePlayed):
            g = _game_index(event.game)
            nxt = play(state.games[g].pos, stored_move(event.move), event.check)
            return _played(state, g, nxt, event.move)
        if isinstance(event, GameFinished):
            g = _game_index(event.game)
            result = _result(event.result, event.reason)
            return state._replace(
                games=_put(state.games, g, state.games[g]._replace(result=result))
            )
        if isinstance(event, GameDrawOffered | GameDrawDeclined | GameDrawAccepted):
            g = _game_index(event.game)
            side = side_in(state.config, event.seat, g)
            local = {GameDrawOffered: DrawOffered, GameDrawDeclined: DrawDeclined,
                     GameDrawAccepted: DrawAccepted}[type(event)](seat=side or 0)  # fmt: skip
            return _agreed(state, g, local)
        if isinstance(event, DrawOffered | DrawDeclined | DrawAccepted):
            return _agreed(state, 0, event)
        if isinstance(event, GameEnded):
            outcome = outcome_of(event)
            if not state.secondary:
                return state._replace(outcome=outcome,
                                      games=(state.games[0]._replace(result=outcome),))  # fmt: skip
            return state._replace(outcome=outcome)
        return state  # GameCreated, Resigned (its GameFinished / GameEnded follow), GameSealed …

    # Projections --------------------------------------------------------------------------

    def outcome(self, state: State) -> Outcome | None:
        return state.outcome

    def position(self, state: State) -> str:
        return format_match(tuple(game.pos for game in state.games))

    def render(self, state: State) -> str:
        return display.render(state, self.position(state))

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return display.view(state, self.position(state), sorted(self.to_act(state)))

    def visible(self, event: Event, seat: int | None) -> Event | None:
        return event  # no hidden information

    def perft(self, state: State, depth: int) -> int:
        """Leaf nodes of the legal-move tree `depth` plies deep; in a Secondary variation a node's
        moves are those of every unfinished game (in lockstep: of the game due), and a game
        that ends has no moves after it (nor has the match once both have ended)."""
        if depth <= 0:
            return 1
        if state.outcome:
            return 0
        rules = state.config.end_rules
        if not state.secondary:
            return perft(state.games[0].pos, depth, rules)
        positions = tuple(None if game.result else game.pos for game in state.games)
        return _match_perft(positions, depth, rules, state.config)

    def bot_action(self, state: State, seat: int, choose: Callable[[int], int]) -> Any:
        """A random legal move for a bot, a capture four times in five when there is one; None
        when the seat has no move (it then waits). The platform's default policy cannot tell the
        per-game draw actions (`bsq:offer-draw`) from moves, hence this one."""
        moves = [a for a in self.legal_actions(state, seat) if isinstance(a, Move)]
        if not moves:
            return None
        captures = [m for m in moves if state.games[m.game].pos.board[m.to_square]]
        pool = captures if captures and choose(5) < 4 else moves
        return pool[choose(len(pool))]


def _played(state: State, g: int, nxt: Position, text: str) -> State:
    """The state after a move in game `g` reached `nxt` (the mover's offer mark is cleared)."""
    game = state.games[g]
    agreement = agreements.moved(game.agreement, game.pos.turn)
    return state._replace(games=_put(state.games, g, Game(nxt, agreement, game.result, text)))


def _agreed(state: State, g: int, event: Event) -> State:
    game = state.games[g]
    changed = agreements.changes(game.agreement, event)
    if changed is None:
        return state
    return state._replace(games=_put(state.games, g, game._replace(**changed)))


def _result(result: str, reason: str) -> Outcome:
    scores = tuple(Fraction(score) for score in result.split("-"))
    return Outcome(scores, reason, tuple(s for s, p in enumerate(scores) if p == WIN))


def _parse_position(text: str, config: Config) -> tuple[Position, ...]:
    try:
        return parse_match(text, config.games, config.first)
    except ValueError as exc:
        raise VariantError(ErrorCode.BAD_POSITION, f"bad Yiora position: {exc}") from None


def _match_perft(positions: tuple[Position | None, ...], depth: int, rules: EndRules,
                 config: Config) -> int:  # fmt: skip
    due = next_game(config, [p.turn if p else None for p in positions])
    if config.lockstep:
        games = [] if due is None else [due]
    else:
        games = [g for g, p in enumerate(positions) if p is not None]
    total = 0
    for g in games:
        pos = positions[g]
        assert pos is not None
        moves = generate_legal_moves(pos)
        if depth == 1:
            total += len(moves)
            continue
        for move in moves:
            nxt = play(pos, move)
            after = None if game_end(rules, nxt) else nxt
            total += _match_perft((*positions[:g], after, *positions[g + 1 :]), depth - 1,
                                  rules, config)  # fmt: skip
    return total


# Move checking -----------------------------------------------------------------------------


def _check_move(state: State, pos: Position, move: Move) -> Rejection | None:
    """None if `move` is legal, else a Rejection citing the most specific clause."""
    b, side, colour = pos.board, pos.turn, pos.colour
    fr, to = move.from_square, move.to_square
    game = f"game {GAME_IDS[colour]}" if state.secondary else "Primary Basic"
    squares = f"the {COLOUR_NAMES[colour]} squares"
    for sq, primary_clause in ((fr, "YI-1.6"), (to, "YI-5.0")):
        if COLOUR[sq] != colour:
            clause = "YI-8.2" if state.secondary else primary_clause
            reason = f"{NAMES[sq]} is a {COLOUR_NAMES[COLOUR[sq]]} square: {game} is played on "
            return _illegal(reason + f"{squares} only", clause)
    code = b[fr]
    if not code or side_of(code) != side:
        return _illegal(f"there is no man of yours on {NAMES[fr]}", "YI-4.1")
    if b[to] and side_of(b[to]) == side:
        return _illegal(f"{NAMES[to]} holds a man of your own", "YI-5.0")
    if to not in targets(b, fr):
        return _illegal(*_explain(b, fr, to))
    if not is_legal(b, (fr, to), side, pos.overlords[side], pos.check):
        if kind_of(code) == OVERLORD:
            return _illegal(f"your Overlord would be threatened on {NAMES[to]}", "YI-6.1")
        if pos.check:
            return _illegal("your Overlord is threatened and this move does not end the threat",
                            "YI-4.2")  # fmt: skip
        return _illegal(f"moving the man on {NAMES[fr]} would leave your Overlord threatened",
                        "YI-6.1")  # fmt: skip
    return None


def _explain(b: bytes, fr: int, to: int) -> tuple[str, str]:
    """(reason, clause) for a move the man's rules do not allow."""
    kind = kind_of(b[fr])
    name = KIND_NAMES[kind]
    if kind == OVERLORD:
        return "an Overlord steps to a diagonal neighbour only", "YI-5.1"
    if kind == PAWN:
        for path in PAWN_PATHS[fr]:
            if to in path:
                stop = next(s for s in path if b[s])
                reason = f"the Pawn's path to {NAMES[to]} is blocked by the man on {NAMES[stop]}"
                return f"{reason} (nothing jumps; a capture ends the move)", "YI-5.3.3"
        reason = f"{NAMES[to]} is not on a Pawn's path"
        return f"{reason}: 1 to 5 diagonal steps, turning back only at ring Y or A", "YI-5.3.2"
    assert kind == MAGE
    for ray in MAGE_RAYS[fr]:
        if to in ray:
            clause = "YI-5.2.1" if ray in RING_RAYS[fr] else "YI-5.2.2"
            stop = next(s for s in ray if b[s])
            return f"the {name} cannot pass the man on {NAMES[stop]} (nothing jumps)", clause
    if fr // 36 == to // 36:  # a column's squares of its colour are all within reach
        return "a Mage moves at most 5 squares of its colour along a ring", "YI-5.2.1"
    return "a Mage moves along its ring or its column, or one step diagonally", "YI-5.2"


YIORA: Final = Yiora()

__all__ = ["YIORA", "Action", "Command", "Game", "Move", "State", "Verb", "Yiora"]
