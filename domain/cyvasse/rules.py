"""The Cyvasse ruleset: decide (checked) and evolve (unchecked), the hidden setup, the notation
(CY-1.3.3), the checking of an action and the end of the game (CY-4.4, CY-7), versions A, B and
C on square and hex boards with options b-g and the hex options. What version C alone checks
(terrain, ranged attacks, its values, Fortress Storming and Promotion) is in version_c.py."""

import re
from collections.abc import Callable, Sequence
from enum import StrEnum
from functools import lru_cache
from typing import Any, Final, NamedTuple

from contracts.cyvasse import EVENTS, DrawDeclined, MovePlayed
from contracts.errors import ErrorCode
from contracts.events import (
    Event,
    GameCreated,
    SetupRevealed,
    SetupsDiscarded,
)
from domain.core import (
    Capability,
    Decided,
    Decision,
    DrawResult,
    Outcome,
    Rejection,
    VariantError,
    agreement,
)
from domain.core.agreement import Agreement
from domain.core.outcome import draw, ended, lose, win
from domain.core.ruleset import with_state
from domain.cyvasse import version_c
from domain.cyvasse.board import (
    COLOURS,
    DRAGON,
    KIND,
    KIND_OF_LETTER,
    KING,
    LETTERS,
    MOUNTAIN,
    NAMES_OF_KIND,
    TREBUCHET,
    VALUE,
    Geometry,
    Position,
    format_position,
    fortress_cells,
    geometry,
    owner,
    parse_position,
    parse_square,
)
from domain.cyvasse.board import render as render_board
from domain.cyvasse.move import (
    CAPTURE,
    DROP,
    MOVE,
    PASS,
    PASS_MOVE,
    RUIN,
    SHOOT,
    Move,
    captures_king,
    drop_zone,
    how,
    illegal,
    no_ranged_attack,
)
from domain.cyvasse.movegen import (
    capture_allowed,
    has_legal_move,
    in_check,
    is_legal,
    legal_moves,
    perft,
    play,
    pseudo_from,
    threateners,
)
from domain.cyvasse.setup import Placement, encode_setup, parse_setup, random_placement, sealed
from domain.cyvasse.terrain import BURNING, PROMOTION
from domain.cyvasse.variant import VARIANTS, Config, parse_variant


class Command(StrEnum):
    """The non-board actions (CY-1.3.3, CY-7.8)."""

    RESIGN = "resign"
    OFFER_DRAW = "offer-draw"
    ACCEPT_DRAW = "accept-draw"
    DECLINE_DRAW = "decline-draw"


Action = Move | Command


class State(NamedTuple):
    config: Config
    geo: Geometry
    pos: Position
    placed: int = 3  # bit per seat whose setup is on the board; 3 = play
    agreement: Agreement = Agreement()  # draw offers and resignation (CY-7.8)
    outcome: Outcome | None = None


_SIDE: Final = ("White", "Black")
_MARK: Final = "-x*"


def _patterns(cell: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    return (re.compile(rf"^({cell})([-x*])({cell})(?:=([A-Z]))?$"),
            re.compile(rf"^D@({cell})$"), re.compile(rf"^ruin@({cell})$"))  # fmt: skip


_CELL_CLAUSE: Final = ("CY-1.1.1", "CY-1.2.2")  # by geo.hex
# move, drop and ruin patterns: square boards (CY-1.1.1), hex (CY-1.2.2)
_SQUARE_RES: Final = _patterns(r"[a-j](?:10|[1-9])")
_HEX_RES: Final = _patterns(r"[a-k](?:1[01]|[1-9])")


def _played(state: State, seat: int, nxt: Position) -> State:
    """The state after `seat` moved to position `nxt` (moving declines a standing offer and
    clears the mover's own offer mark)."""
    return state._replace(pos=nxt, agreement=agreement.moved(state.agreement, seat))


class Cyvasse:
    """Cyvasse (Jeff C. Caird) per the Cyvasse ruling v1.0: versions A, B, C, square and hex."""

    name = "cyvasse"
    capabilities = frozenset(
        {Capability.PERFT, Capability.FORFEIT, Capability.HIDDEN_SETUP, Capability.RANDOM_SETUP}
    )
    variants = VARIANTS
    events: tuple[type[Event], ...] = EVENTS

    # Game lifecycle -----------------------------------------------------------------------

    def create(self, variant: str, position: str = "") -> GameCreated:
        config = parse_variant(variant)
        if position:
            pos = _parse_position(config, position)
            if _already_over(config, geometry(config.board), pos):
                raise VariantError(ErrorCode.BAD_POSITION, "the side to move has no legal "
                                   "action: the game is already over (CY-7.1, CY-7.2)")  # fmt: skip
        return GameCreated(ruleset=self.name, variant=config.variant, seats=2,
                           hidden_setup=not position, position=position)  # fmt: skip

    def start(self, created: GameCreated) -> State:
        config = parse_variant(created.variant)
        geo = geometry(config.board)
        if created.position:  # one whose game is over (refused by `create`) loads as over
            pos = _parse_position(config, created.position)
            return State(config, geo, pos, outcome=_already_over(config, geo, pos))
        return _unplaced(config, geo)

    def to_act(self, state: State) -> frozenset[int]:
        if state.outcome or state.placed != 3:
            return frozenset()
        return frozenset((state.pos.turn,))

    # The hidden setup (CY-3) --------------------------------------------------------------

    def combined_setup_problem(self, state: State) -> str | None:
        """CY-3.5 with `replace`: both sides' Mountains together may not seal squares."""
        if not state.config.combined_replace or state.placed != 3:
            return None
        board = state.pos.board
        mountains = {s for s in range(state.geo.size) if board[s] & KIND == MOUNTAIN}
        cut = sealed(state.geo, mountains)
        if not cut:
            return None
        names = ", ".join(state.geo.names[s] for s in cut)
        return f"the Mountains of both sides together seal {names}: set up again [CY-3.5]"

    def check_setup(self, state: State, seat: int, setup: bytes) -> Rejection | None:
        if state.placed == 3:
            return illegal("this game started from a position: it has no setup", "CY-3.1")
        if state.placed >> seat & 1:
            return illegal("your setup is already on the board", "CY-3.1.3")
        placement = parse_setup(state.config, state.geo, seat, setup)
        if not isinstance(placement, Placement):
            clause, reason = placement
            return illegal(reason, clause)
        return None

    def forfeit(self, state: State, losers: Sequence[int], reason: str) -> tuple[Event, ...]:
        why = "timeout" if reason == "timeout" else "illegal_setup"
        return (ended(lose(losers, why)),)

    def random_setup(self, state: State, seat: int, choose: Callable[[int], int]) -> bytes:
        cfg = state.config
        placement = random_placement(cfg, state.geo, seat, choose)
        return encode_setup(state.geo, placement, cfg.terrain)

    # Actions ------------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        if state.outcome or state.placed != 3 or seat not in (0, 1):
            return []
        actions: list[Action] = []
        if seat == state.pos.turn:
            actions.extend(legal_moves(state.config, state.geo, state.pos))
        actions.extend(_legal_commands(state.agreement, seat, seat == state.pos.turn))
        return actions

    def parse_action(self, state: State, seat: int, text: str) -> Action | Rejection:
        return parse_action(state.geo, text)

    def format_action(self, state: State, action: Action) -> str:
        return action.value if isinstance(action, Command) else format_move(state.geo, action)

    def decide(
        self, state: State, seat: int, action: Action, draws: Sequence[DrawResult] = ()
    ) -> Decision:
        if state.outcome:
            return Rejection(ErrorCode.GAME_ENDED, "the game has ended")
        if seat not in (0, 1):
            return Rejection(ErrorCode.UNKNOWN_SEAT, f"seat {seat} does not play Cyvasse")
        if state.placed != 3:
            return Rejection(ErrorCode.NOT_STARTED, "the setup is still behind the screen",
                             "CY-3.1.3")  # fmt: skip
        if isinstance(action, Command):
            return with_state(self.evolve, state, self._command(state, seat, action))
        return self._move(state, seat, action)

    def _command(self, state: State, seat: int, command: Command) -> Decision:
        return _command_decision(command, seat, state.agreement, seat == state.pos.turn)

    def _move(self, state: State, seat: int, move: Move) -> Decision:
        pos, cfg, geo = state.pos, state.config, state.geo
        if seat != pos.turn:
            return Rejection(ErrorCode.NOT_YOUR_TURN, f"it is {_SIDE[pos.turn]}'s turn",
                             "CY-4.1")  # fmt: skip
        problem = check_move(cfg, geo, pos, move)
        if problem is not None:
            return problem
        nxt = play(cfg, pos, move)
        text = format_move(geo, move)
        events: list[Event] = []
        after = state  # kept as the events are made: the move is not played again
        if agreement.pending(state.agreement, seat):  # moving declines a standing offer
            events.append(DrawDeclined(seat=seat))
            after = self.evolve(after, events[-1])
        check = not cfg.values and in_check(cfg, geo, nxt.board, nxt.turn)
        events.append(MovePlayed(seat=seat, action=text, check=check))
        after = _played(after, seat, nxt)
        end = game_end(cfg, geo, pos.board, move, nxt)
        if end:
            events.append(ended(end))
            after = self.evolve(after, events[-1])
        return Decided(events, after)

    # Events -------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        if isinstance(event, MovePlayed):
            move = parse_action(state.geo, event.action)
            assert isinstance(move, Move), move
            return _played(state, event.seat, play(state.config, state.pos, move))
        if isinstance(event, SetupRevealed):
            return _place(state, event)
        if isinstance(event, SetupsDiscarded):  # CY-3.5 replace: an empty board again
            return _unplaced(state.config, state.geo)
        if (changed := agreement.changes(state.agreement, event)) is not None:
            return state._replace(**changed)
        return state  # GameCreated, GameSealed and unknown events leave the state unchanged

    # Projections --------------------------------------------------------------------------

    def outcome(self, state: State) -> Outcome | None:
        return state.outcome

    def position(self, state: State) -> str:
        return format_position(state.geo, state.pos)

    def render(self, state: State) -> str:
        return render_board(state.geo, state.pos)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        pos, cfg, out = state.pos, state.config, state.outcome
        playing = state.placed == 3
        check = playing and not cfg.values and in_check(cfg, state.geo, pos.board, pos.turn)
        return {
            "position": format_position(state.geo, pos),
            "variant": cfg.variant,
            "phase": "ended" if out else "play" if playing else "setup",
            "setups_placed": [seat for seat in (0, 1) if state.placed >> seat & 1],
            "to_move": pos.turn if playing else None,
            "side_to_move": ("white", "black")[pos.turn] if playing else None,
            "in_check": check,
            "reserve": [seat for seat in (0, 1) if pos.reserve >> seat & 1],
            "draw_offer": state.agreement.offer if state.agreement.offer >= 0 else None,
            "plies_since_progress": pos.quiet,
            "result": out.result if out else None,
            "reason": out.reason if out else None,
            "winners": list(out.winners) if out else [],
        }

    def visible(self, event: Event, seat: int | None) -> Event | None:
        return event  # setups are hidden by the table's commitments; what is stored is public

    def perft(self, state: State, depth: int) -> int:
        return perft(state.config, state.geo, state.pos, depth)


def _command_decision(command: Command, seat: int, agreed: Agreement, on_turn: bool) -> Decision:
    return agreement.decide(command, seat, agreed, "CY-7.8", may_offer=on_turn)


@lru_cache(maxsize=1024)
def _legal_commands(agreed: Agreement, seat: int, on_turn: bool) -> tuple[Command, ...]:
    """The commands `_command_decision` accepts, in `Command` order: the same few inputs recur in
    nearly every state, so the answer is kept rather than decided again for each list."""
    return tuple(
        c for c in Command if not isinstance(_command_decision(c, seat, agreed, on_turn), Rejection)
    )


# Notation (CY-1.3.3) -----------------------------------------------------------------------


def format_move(geo: Geometry, move: Move) -> str:
    mode, fr, to, promote = move
    if mode == PASS:
        return "pass"
    if mode == DROP:
        return f"D@{geo.names[to]}"
    if mode == RUIN:
        return f"ruin@{geo.names[to]}"
    suffix = f"={LETTERS[promote]}" if promote else ""
    return f"{geo.names[fr]}{_MARK[mode]}{geo.names[to]}{suffix}"


def parse_action(geo: Geometry, text: str) -> Action | Rejection:
    word = text.strip()
    if word.lower() in Command._value2member_map_:
        return Command(word.lower())
    if word == "pass":
        return PASS_MOVE
    move_re, drop_re, ruin_re = _HEX_RES if geo.hex else _SQUARE_RES
    m = move_re.match(word)
    if m:
        fr, to = parse_square(geo, m[1]), parse_square(geo, m[3])
        if fr is None or to is None:
            bad = m[1] if fr is None else m[3]
            return Rejection(ErrorCode.MALFORMED_ACTION,
                             f"{bad} is not a square of the {geo.label}",
                             _CELL_CLAUSE[geo.hex])  # fmt: skip
        if fr == to:
            return Rejection(ErrorCode.MALFORMED_ACTION, "from and to are the same square",
                             "CY-1.3.3")  # fmt: skip
        promote = KIND_OF_LETTER.get(m[4], 0) if m[4] else 0
        if m[4] and (m[2] == "*" or promote not in PROMOTION.values()):
            return Rejection(ErrorCode.MALFORMED_ACTION, "=<letter> promotes a man entering "
                             "its Fortress to S, L, C, H, E, D or T", "CY-6.4.7")  # fmt: skip
        return Move(_MARK.index(m[2]), fr, to, promote)
    m = drop_re.match(word)
    if m:
        to = parse_square(geo, m[1])
        if to is None:
            return Rejection(ErrorCode.MALFORMED_ACTION,
                             f"{m[1]} is not a square of the {geo.label}",
                             _CELL_CLAUSE[geo.hex])  # fmt: skip
        return Move(DROP, -1, to)
    m = ruin_re.match(word)
    if m:
        to = parse_square(geo, m[1])
        if to is None:
            return Rejection(ErrorCode.MALFORMED_ACTION,
                             f"{m[1]} is not a square of the {geo.label}",
                             _CELL_CLAUSE[geo.hex])  # fmt: skip
        return Move(RUIN, -1, to)
    return Rejection(
        ErrorCode.MALFORMED_ACTION,
        f"{text!r} is not an action: <from>-<to>, <from>x<to>, <from>*<to> (a promotion adds "
        "=<letter>), D@<square>, ruin@<square>, pass, resign, offer-draw, accept-draw or "
        "decline-draw",
        "CY-1.3.3",
    )


def _parse_position(config: Config, text: str) -> Position:
    try:
        return parse_position(geometry(config.board), text, config.dragon_reserve, config.terrain,
                              config.fortress_storming)  # fmt: skip
    except ValueError as exc:
        raise VariantError(ErrorCode.BAD_POSITION, f"bad position (CY-1.3.5): {exc}") from None


def _unplaced(config: Config, geo: Geometry) -> State:
    """The board before any setup is placed (CY-3.1)."""
    reserve = 3 if config.dragon_reserve else 0
    terrain = bytes(geo.size) if config.terrain else b""
    return State(config, geo, Position(bytes(geo.size), 0, reserve, terrain=terrain), placed=0)


def _place(state: State, event: SetupRevealed) -> State:
    """Put a revealed setup's men on the board; once both are there play begins (CY-3.1.3)."""
    seat = event.seat
    if event.rejected or state.placed >> seat & 1:
        return state
    placement = parse_setup(state.config, state.geo, seat, event.setup.encode())
    if not isinstance(placement, Placement):
        return state  # the table never passes a refused setup on
    board = bytearray(state.pos.board)
    for s, kind in placement.men.items():
        board[s] = COLOURS[seat] | kind
    placed = state.placed | 1 << seat
    pos = state.pos._replace(board=bytes(board))
    if placement.terrain:  # CY-R36: the tiles are revealed with the men
        terrain = bytearray(pos.terrain)
        for s, tile in placement.terrain.items():
            terrain[s] = tile
        pos = pos._replace(terrain=bytes(terrain), forts=fortress_cells(state.geo, bytes(terrain)))
    if placed != 3:
        return state._replace(pos=pos, placed=placed)
    pos = pos._replace(history=(pos.key(),))
    outcome = _already_over(state.config, state.geo, pos)  # checkmated at the reveal
    return state._replace(pos=pos, placed=placed, outcome=outcome)


def _already_over(cfg: Config, geo: Geometry, pos: Position) -> Outcome | None:
    """CY-7.1, CY-7.2: the side to move has no legal action (versions A and B; version C's
    player passes instead)."""
    if cfg.values or has_legal_move(cfg, geo, pos):
        return None
    if in_check(cfg, geo, pos.board, pos.turn):
        return win(pos.turn ^ 1, "checkmate")
    return draw("stalemate")


# Checking an action ------------------------------------------------------------------------


def check_move(cfg: Config, geo: Geometry, pos: Position, move: Move) -> Rejection | None:
    """None if `move` is legal for the side to move, else a Rejection citing the clause."""
    board, side = pos.board, pos.turn
    mode, fr, to, promote = move
    names = geo.names
    if promote and not cfg.fortress_promotion:
        return illegal("promotion needs version C with fortress-promotion", "CY-6.4.7")
    if mode == RUIN:
        return version_c.check_ruin(cfg, geo, pos, to)
    if mode == PASS:
        if not cfg.values:
            return illegal("version A has no pass: without a legal action the game is over",
                            "CY-4.3")  # fmt: skip
        if has_legal_move(cfg, geo, pos):
            return illegal("a pass is allowed only without any legal action", "CY-R18")
        return None
    if mode == DROP:
        if not cfg.dragon_reserve:
            return illegal("this variant has no Dragon in reserve (dragon-reserve)", "CY-6.4.2")
        if not pos.reserve >> side & 1:
            return illegal("your Dragon has already been introduced", "CY-6.4.2")
        if to not in drop_zone(cfg, geo, pos, side):
            if geo.hex and pos.terrain:
                return illegal(f"the Dragon is introduced within 2 cells of your Fortress, "
                                f"not on {names[to]}", "CY-R53")  # fmt: skip
            where = "placement zone" if geo.hex else "half"
            return illegal(f"the Dragon is introduced in your own {where}, not on {names[to]}",
                            "CY-R53" if geo.hex else "CY-R41")  # fmt: skip
        if board[to]:
            return illegal(f"{names[to]} is not empty", "CY-R53" if geo.hex else "CY-R41")
        if pos.terrain and pos.terrain[to] == BURNING:
            return illegal(f"{names[to]} is burning (Wildfyre)", "CY-6.4.6")
        if not is_legal(cfg, geo, pos, move):
            return illegal("this would leave your King in check", "CY-6.1.2")
        return None
    man = board[fr]
    if not man or owner(man) != side:
        return illegal(f"there is no man of yours on {names[fr]}", "CY-4.1")
    kind = man & KIND
    if kind == MOUNTAIN:
        return illegal("Mountains never move", "CY-2.2")
    target = board[to]
    name = NAMES_OF_KIND[kind]
    if mode == MOVE and target:
        if owner(target) != side and target & KIND != MOUNTAIN:
            return illegal(f"{names[to]} holds an enemy man: a capture is written "
                            f"{names[fr]}x{names[to]}", "CY-5.2.1")  # fmt: skip
        return illegal(f"a move ends on an empty square, and {names[to]} is not",
                        "CY-5.2.1")  # fmt: skip
    if mode in (CAPTURE, SHOOT):
        if not target or owner(target) == side:
            return illegal(f"there is no enemy man on {names[to]} to capture", "CY-5.4.9")
        if target & KIND == MOUNTAIN:
            return illegal("Mountains cannot be captured", "CY-R56")
    if pos.terrain:
        return version_c.check_move(cfg, geo, pos, move)
    if move not in pseudo_from(cfg, geo, board, side, fr):
        return _explain(cfg, geo, board, move, kind)
    if mode in (CAPTURE, SHOOT) and not capture_allowed(cfg, geo, board, side, fr, to):
        flank = threateners(cfg, geo, board, to, side)
        victim = NAMES_OF_KIND[target & KIND]
        total = sum(VALUE[board[s] & KIND] for s in flank)
        return illegal(
            f"a {name} ({VALUE[kind]}) cannot take a {victim} ({VALUE[target & KIND]}): the "
            f"men threatening {names[to]} sum to {total} and include no King",
            "CY-5.6.2",
        )
    if not is_legal(cfg, geo, pos, move):
        if kind == KING:
            return illegal(f"your King would be threatened on {names[to]}", "CY-6.1.2")
        if in_check(cfg, geo, board, side):
            return illegal("your King is in check and this does not end it", "CY-6.1.3")
        return illegal("this would leave your King in check", "CY-6.1.2")
    return None


def _explain(cfg: Config, geo: Geometry, board: bytes, move: Move, kind: int) -> Rejection:
    """Why a move or capture the man's rules do not generate is refused."""
    mode, fr, to, _ = move
    name = NAMES_OF_KIND[kind]
    if mode == SHOOT:
        if kind == TREBUCHET:
            far = " (3 with Super Trebuchets on hex)" if geo.hex else ""
            return illegal(
                f"a Trebuchet captures without moving only a man 2 squares away{far} "
                "orthogonally over a Mountain or a man of its own side; with a clear line it "
                "moves in (x)",
                "CY-5.4.3",
            )
        return no_ranged_attack(cfg, kind)
    d, k = geo.line(fr, to) or (-1, 0)
    dirs, rng = geo.moves[kind]
    if d not in dirs or k > rng:
        clause = "CY-5.1.2" if geo.hex else "CY-5.1.1"
        return illegal(f"a {name} moves and captures {how(geo, kind)}", clause)
    line = geo.rays[fr][d][: k - 1]
    blocked = next(s for s in line if board[s])
    if kind == DRAGON and board[blocked] & KIND == MOUNTAIN:
        return illegal("the Dragon may not capture across Mountains in this variant "
                        "(dragon_capture_over_mountains=false)", "CY-5.4.2")  # fmt: skip
    what = "Mountain" if board[blocked] & KIND == MOUNTAIN else "man"
    reason = f"the {name} cannot pass the {what} on {geo.names[blocked]}"
    if mode == CAPTURE and Move(SHOOT, fr, to) in pseudo_from(
        cfg, geo, board, owner(board[fr]), fr
    ):
        reason += f"; it captures over it without moving: {geo.names[fr]}*{geo.names[to]}"
    return illegal(reason, "CY-5.2.2")


# End of game (CY-4.4, CY-7) ----------------------------------------------------------------


def game_end(
    cfg: Config, geo: Geometry, before: bytes, move: Move, nxt: Position
) -> Outcome | None:
    """The first end condition of CY-4.4 that holds after `move` produced `nxt`."""
    mover = nxt.turn ^ 1
    if captures_king(before, move):  # CY-7.3, CY-R60
        return win(mover, "king_captured")
    if not cfg.values:
        if not has_legal_move(cfg, geo, nxt):  # CY-7.1, CY-7.2
            if in_check(cfg, geo, nxt.board, nxt.turn):
                return win(mover, "checkmate")
            return draw("stalemate")
        if not nxt.reserve and all(m & KIND in (KING, MOUNTAIN) for m in nxt.board if m):  # CY-7.7
            return draw("insufficient_material")
    elif nxt.passes >= 2:  # CY-7.6
        return draw("no_moves")
    history = nxt.history
    if len(history) >= 2 * cfg.repetition_count - 1 and (
        history.count(history[-1]) >= cfg.repetition_count
    ):  # CY-7.4
        return draw("repetition")
    if cfg.no_progress_limit and nxt.quiet >= 2 * cfg.no_progress_limit:  # CY-7.5
        return draw("no_progress")
    return None


CYVASSE: Final = Cyvasse()

__all__ = ["CYVASSE", "Action", "Command", "Cyvasse", "Move", "State", "check_move", "game_end"]
