"""The 3-D Chess ruleset: decide (checked) and evolve (unchecked), end-of-game checks (C3-4.4)."""

from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache, partial
from typing import Any, Final, NamedTuple

from contracts.chess3d import (
    EVENTS,
    DrawDeclined,
    MateDemanded,
    MovePlayed,
)
from contracts.errors import ErrorCode
from contracts.events import Event, GameCreated
from domain.chess3d.geometry import (
    BISHOP,
    BISHOP_DIRS,
    BLACK,
    COLORS,
    DIRECTION_OF,
    EMPTY,
    FILE_LETTERS,
    FILE_OF,
    FORWARD,
    KIND_LETTERS,
    KING,
    KNIGHT,
    LEVEL_NAMES,
    LEVEL_OF,
    MAX_DELTA,
    NAMES,
    PAWN,
    QUEEN,
    RANK_OF,
    ROOK,
    ROOK_DIRS,
    WHITE,
    square,
)
from domain.chess3d.movegen import (
    CASTLES,
    DOUBLE_BIT,
    QUEEN_DIRS,
    MoveTuple,
    attacked,
    has_legal_move,
    is_legal,
    ordinary_move,
    piece_moves,
)
from domain.chess3d.notation import format_move, parse_canonical, parse_move
from domain.chess3d.position import (
    STARTING_FEN,
    Position,
    format_fen,
    generate_legal_moves,
    parse_fen,
    perft,
    play,
    with_demand,
)
from domain.chess3d.variant import VARIANTS, Config, parse_variant
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
from domain.core.outcome import draw, ended, win
from domain.core.ruleset import with_state


class Move(NamedTuple):
    """A move: mailbox cubes (see geometry.square / square_name) and a promotion piece kind
    (geometry.QUEEN, ROOK, BISHOP, KNIGHT) or 0."""

    from_square: int
    to_square: int
    promotion: int = 0


class Command(StrEnum):
    """The non-move actions (C3-1.7)."""

    RESIGN = "resign"
    OFFER_DRAW = "offer-draw"
    ACCEPT_DRAW = "accept-draw"
    DECLINE_DRAW = "decline-draw"
    DEMAND_MATE = "demand-mate"


Action = Move | Command
# Move(*m) for a move triple of movegen, without the Python-level __new__ of a NamedTuple.
_new_move: Final = partial(tuple.__new__, Move)


class State(NamedTuple):
    config: Config
    pos: Position
    agreement: Agreement = Agreement()  # draw offers and resignation (C3-7.7, C3-7.8)
    outcome: Outcome | None = None


def _illegal(reason: str, clause: str) -> Rejection:
    return Rejection(ErrorCode.ILLEGAL_ACTION, reason, clause)


_SIDE: Final = ("White", "Black")
_PIECE_NAMES: Final = ("", "pawn", "Knight", "Bishop", "Rook", "Queen", "King")


def _played(state: State, seat: int, nxt: Position) -> State:
    """The state after `seat` moved to position `nxt` (a move declines the opponent's draw
    offer, C3-4.3, and clears the mover's own offer mark)."""
    return State(state.config, nxt, agreement.moved(state.agreement, seat), state.outcome)


class Chess3D:
    """3-D Chess (Lynn R. Johnson, 1967) per the 3-D Chess ruling v1.0."""

    name = "chess3d"
    capabilities = frozenset({Capability.PERFT, Capability.CAN_WIN})
    variants = VARIANTS
    events: tuple[type[Event], ...] = EVENTS

    # Game lifecycle -----------------------------------------------------------------------

    def create(self, variant: str, position: str = "") -> GameCreated:
        config = parse_variant(variant)
        if position and _already_over(config, _parse_position(position, config)):
            raise VariantError(ErrorCode.BAD_POSITION, "the side to move has no legal move: the "
                               "game is already over (C3-7.1, C3-7.2)")  # fmt: skip
        return GameCreated(ruleset=self.name, variant=config.variant, seats=2, position=position)

    def start(self, created: GameCreated) -> State:
        """The first state; a position whose game is over (a mate or stalemate, which `create`
        refuses for a new game) is loaded with its outcome, as a chess tool loads one."""
        config = parse_variant(created.variant)
        pos = _parse_position(created.position or STARTING_FEN, config)
        return State(config, pos, outcome=_already_over(config, pos))

    def to_act(self, state: State) -> frozenset[int]:
        return frozenset() if state.outcome else frozenset((state.pos.turn,))

    # Actions ------------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        if state.outcome or seat not in (0, 1):
            return []
        actions: list[Action] = []
        pos = state.pos
        if seat == pos.turn:
            actions.extend(map(_new_move, generate_legal_moves(pos, state.config.q26)))
        mode = state.config.fifty_move_mode
        actions.extend(_legal_commands(state.agreement, seat, pos.turn, mode, pos.demand >= 0))
        return actions

    def parse_action(self, state: State, seat: int, text: str) -> Action | Rejection:
        if len(text) <= _CACHED_TEXT:
            return _parse_action_cached(text, seat)
        return _parse_action(text, seat)

    def format_action(self, state: State, action: Action) -> str:
        if isinstance(action, Command):
            return action.value
        return format_move(state.pos.board, action, state.pos.ep)

    def decide(
        self, state: State, seat: int, action: Action, draws: Sequence[DrawResult] = ()
    ) -> Decision:
        if state.outcome:
            return Rejection(ErrorCode.GAME_ENDED, "the game has ended")
        if seat not in (0, 1):
            return Rejection(ErrorCode.UNKNOWN_SEAT, f"seat {seat} does not play 3-D Chess")
        if isinstance(action, Command):
            return with_state(self.evolve, state, self._command(state, seat, action))
        return self._move(state, seat, action)

    def _command(self, state: State, seat: int, command: Command) -> Decision:
        pos = state.pos
        mode = state.config.fifty_move_mode
        return _command_decision(command, seat, state.agreement, pos.turn, mode, pos.demand >= 0)

    def _move(self, state: State, seat: int, move: Move) -> Decision:
        pos = state.pos
        if seat != pos.turn:
            return Rejection(ErrorCode.NOT_YOUR_TURN, f"it is {_SIDE[pos.turn]}'s turn", "C3-4.1")
        checked = _check_move(state, (move[0], move[1], move[2]))
        if isinstance(checked, Rejection):
            return checked
        q26 = state.config.q26
        nxt = play(pos, checked, q26)
        text = format_move(pos.board, checked, pos.ep)
        events: list[Event] = []
        after = state  # kept as the events are made: the move is not played again
        if agreement.pending(state.agreement, seat):  # C3-4.3: moving declines a pending offer
            events.append(DrawDeclined(seat=seat))
            after = self.evolve(after, events[-1])
        events.append(MovePlayed(seat=seat, move=text, check=nxt.check))
        after = _played(after, seat, nxt)
        end = game_end(state.config, nxt)
        if end:
            events.append(ended(end))
            after = self.evolve(after, events[-1])
        return Decided(events, after)

    # Events -------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        if isinstance(event, MovePlayed):
            nxt = play(state.pos, parse_canonical(event.move), state.config.q26, event.check)
            return _played(state, event.seat, nxt)
        if isinstance(event, MateDemanded):
            return state._replace(pos=with_demand(state.pos))
        if (changed := agreement.changes(state.agreement, event)) is not None:
            return state._replace(**changed)
        return state  # GameCreated, GameSealed and unknown events leave the state unchanged

    def can_win(self, state: State, seat: int) -> bool:
        """A lone King can never give mate; any other force might (docs/rules/chess3d.md,
        "Loss on time": the arbiter's reading of FIDE 6.9 here, C3-7.3 being for both sides)."""
        color = COLORS[seat]
        return any(p & color and p & 7 != KING for p in state.pos.board)

    # Projections --------------------------------------------------------------------------

    def outcome(self, state: State) -> Outcome | None:
        return state.outcome

    def position(self, state: State) -> str:
        return format_fen(state.pos)

    def render(self, state: State) -> str:
        return render(state.pos)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        pos, out = state.pos, state.outcome
        return {
            "fen": format_fen(pos),
            "variant": state.config.variant,
            "to_move": pos.turn,
            "side_to_move": ("white", "black")[pos.turn],
            "in_check": pos.check,
            "draw_offer": state.agreement.offer if state.agreement.offer >= 0 else None,
            "demand_clock": pos.demand if pos.demand >= 0 else None,
            "halfmove_clock": pos.halfmove,
            "fullmove": pos.fullmove,
            "result": out.result if out else None,
            "reason": out.reason if out else None,
            "winners": list(out.winners) if out else [],
        }

    def visible(self, event: Event, seat: int | None) -> Event | None:
        return event  # no hidden information

    def perft(self, state: State, depth: int) -> int:
        return perft(state.pos, depth, state.config.q26)


def _command_decision(
    command: Command, seat: int, agreed: Agreement, turn: int, mode: str, demanded: bool
) -> Decision:
    """A command's decision, from all it depends on: the agreement, whose turn it is, the
    fifty-move mode and whether a demand-mate is in force."""
    if command in agreement.VERBS:  # C3-7.7, C3-7.8
        return agreement.decide(command, seat, agreed, "C3-7.7", may_offer=seat == turn)
    # The demand-mate command (C3-7.6).
    if mode != "demand":
        clause = "C3-7.6.3" if mode == "automatic" else "C3-7.6.4"
        return _illegal(f"demand-mate is not used with fifty_move_mode={mode}", clause)
    if seat != turn:
        return Rejection(ErrorCode.NOT_YOUR_TURN, "demand mate on your turn", "C3-7.6.2")
    if demanded:
        return _illegal("a demand-mate is already in force", "C3-7.6.2")
    return (MateDemanded(seat=seat),)


@lru_cache(maxsize=1024)
def _legal_commands(
    agreed: Agreement, seat: int, turn: int, mode: str, demanded: bool
) -> tuple[Command, ...]:
    """The commands `_command_decision` accepts, in `Command` order: the same few inputs recur in
    nearly every state, so the answer is kept rather than decided again for each list."""
    return tuple(
        c
        for c in Command
        if not isinstance(_command_decision(c, seat, agreed, turn, mode, demanded), Rejection)
    )


def _parse_action(text: str, seat: int) -> Action | Rejection:
    word = text.strip().lower()
    if word in Command._value2member_map_:
        return Command(word)
    move = parse_move(text, seat)
    if isinstance(move, str):
        return Rejection(ErrorCode.MALFORMED_ACTION, move, "C3-1.7")
    return Move(*move)


# Actions are immutable, so parsing a text again can return the same object; only short texts
# (every canonical move is) are cached, so long junk cannot fill the cache.
_CACHED_TEXT: Final = 24
_parse_action_cached: Final = lru_cache(maxsize=8192)(_parse_action)


def _already_over(config: Config, pos: Position) -> Outcome | None:
    """C3-7.1, C3-7.2: the side to move is mated or stalemated. The other ends of C3-4.4 are
    judged after a move, as the engine does (a dead position still lists its moves)."""
    side = pos.turn
    if has_legal_move(pos.board, side, pos.ep, pos.double, pos.kings[side], pos.check,
                      config.q26):  # fmt: skip
        return None
    return win(side ^ 1, "checkmate") if pos.check else draw("stalemate")


def _parse_position(text: str, config: Config) -> Position:
    try:
        return parse_fen(text, config.q26)
    except ValueError as exc:
        raise VariantError(ErrorCode.BAD_POSITION, f"bad 3D-FEN: {exc}") from None


# Move checking -----------------------------------------------------------------------------


def _check_move(state: State, move: MoveTuple) -> MoveTuple | Rejection:
    """The move if legal, else a Rejection citing the most specific clause."""
    pos, q26 = state.pos, state.config.q26
    b, side = pos.board, pos.turn
    fr, to, promo = move
    own = COLORS[side]
    if not b[fr] & own:
        return _illegal(f"there is no man of yours on {NAMES[fr]}", "C3-4.1")
    if b[to] & own:
        return _illegal(f"{NAMES[to]} holds a man of your own colour", "C3-5.0.3")
    if ordinary_move(b, fr, to, side, q26):  # the common case, without generating moves
        promotes = False
    else:
        candidates: list[MoveTuple] = []
        piece_moves(b, fr, side, pos.castling, pos.ep, pos.double, q26, candidates)
        matching = [m for m in candidates if m[1] == to]
        if not matching:
            clause, reason = _explain(state, fr, to)
            return _illegal(reason, clause)
        promotes = matching[0][2] != 0
    if promotes:
        if not promo:
            return Rejection(
                ErrorCode.MALFORMED_ACTION,
                f"the pawn reaches its promotion rank: add the piece, e.g. "
                f"{NAMES[fr]}-{NAMES[to]}=Q",
                "C3-6.1",
            )
    elif promo:
        return _illegal("only a pawn reaching its promotion rank is promoted", "C3-6.1")
    king = pos.kings[side]
    if not is_legal(b, move, side, king, pos.check, pos.ep, q26):
        if fr == king:
            return _illegal(f"your King would be attacked on {NAMES[to]}", "C3-4.2")
        if pos.check:
            return _illegal("your King is in check and this move does not end it", "C3-4.2")
        return _illegal("this move would leave your King in check", "C3-4.2")
    return move


def _explain(state: State, fr: int, to: int) -> tuple[str, str]:
    """(clause, reason) for a move the piece rules do not generate."""
    pos, q26 = state.pos, state.config.q26
    b = pos.board
    kind = b[fr] & 7
    dx, dy, dz = FILE_OF[to] - FILE_OF[fr], RANK_OF[to] - RANK_OF[fr], LEVEL_OF[to] - LEVEL_OF[fr]
    name = _PIECE_NAMES[kind]
    if kind == KING:
        if abs(dx) == 2 and dy == 0 and dz == 0:
            return _explain_castling(state, fr, to)
        return "C3-5.1", "a King moves one cube in any direction"
    if kind == KNIGHT:
        return "C3-5.5", "a Knight leaps two cubes one way and one at a right angle"
    if kind == PAWN:
        return _explain_pawn(state, fr, to, dx, dy, dz)
    d = DIRECTION_OF[to - fr + MAX_DELTA]
    dirs = ROOK_DIRS if kind == ROOK else BISHOP_DIRS if kind == BISHOP else QUEEN_DIRS[q26]
    if d not in dirs or not d:
        clause = {ROOK: "C3-5.2", BISHOP: "C3-5.4", QUEEN: "C3-5.3"}[kind]
        how = {
            ROOK: "along a file, a rank or straight up/down",
            BISHOP: "along an in-level diagonal or a triagonal",
            QUEEN: "along a straight line in one of its "
            + ("26" if q26 else "18 (rook and bishop)")
            + " directions",
        }[kind]
        return clause, f"a {name} moves {how}"
    t = fr + d
    while b[t] == EMPTY:
        t += d
    return "C3-5.0.1", f"the {name} cannot pass the man on {NAMES[t]}"


def _explain_pawn(state: State, fr: int, to: int, dx: int, dy: int, dz: int) -> tuple[str, str]:
    pos = state.pos
    b, side = pos.board, pos.turn
    f = 1 if side == 0 else -1
    if dx == 0 and ((dy == f and dz == 0) or (dy == 0 and abs(dz) == 1)):
        return "C3-5.6.1", "a pawn's step must go to an empty cube (pawns capture diagonally)"
    if dx == 0 and ((dy == 2 * f and dz == 0) or (dy == 0 and dz == 2 * f)):
        if not pos.double & DOUBLE_BIT.get(fr, 0):
            return "C3-5.6.2", "only a pawn that has never moved may move two cubes"
        return "C3-5.6.2", "a double step needs the passed and the destination cube empty"
    if dy == f and abs(dx) <= 1 and abs(dz) <= 1:
        if b[to] == EMPTY and b[to - FORWARD[side]] == COLORS[side ^ 1] | PAWN:
            return "C3-6.2", (
                "en passant is only allowed right after a forward double step, "
                "onto the cube the pawn passed"
            )
        return "C3-5.6.3", "a pawn captures only onto a cube holding an enemy man"
    return "C3-5.6", "a pawn moves one cube forward or one level up/down, and captures forward"


def _explain_castling(state: State, fr: int, to: int) -> tuple[str, str]:
    pos, q26 = state.pos, state.config.q26
    b, side = pos.board, pos.turn
    for bit, king_from, king_to, rook_from, _rook_to, cross, *between in CASTLES[side]:
        if (fr, to) != (king_from, king_to):
            continue
        if not pos.castling & bit or b[rook_from] != COLORS[side] | ROOK:
            return "C3-6.3.3", "castling right lost: the King or that Rook has moved"
        blocked = [NAMES[c] for c in between if b[c] != EMPTY]
        if blocked:
            return "C3-6.3.3", f"the cubes between King and Rook must be empty ({blocked[0]})"
        if pos.check:
            return "C3-6.3.3", "you may not castle out of check"
        if attacked(b, cross, side ^ 1, q26):
            return "C3-6.3.3", f"the King may not cross the attacked cube {NAMES[cross]}"
        return "C3-6.3.3", f"the King may not castle onto the attacked cube {NAMES[king_to]}"
    return "C3-6.3.1", "castling only from the King's home cube on the home level"


# End of game (C3-4.4) ----------------------------------------------------------------------


def game_end(config: Config, pos: Position) -> Outcome | None:
    """The first end condition of C3-4.4 that holds after the move that produced `pos`."""
    mated = _already_over(config, pos)  # C3-7.1, C3-7.2
    if mated:
        return mated
    material = material_draw(pos.board, config.depleted_equal_draw)  # C3-7.3, C3-7.4
    if material:
        return draw(material)
    history = pos.history
    if len(history) >= 2 * config.repetition_count - 1:  # fewer plies cannot repeat enough
        key = history[-1]
        if history.count(key) >= config.repetition_count:  # C3-7.5
            return draw("perpetual_check" if _perpetual(pos) else "repetition")
    mode = config.fifty_move_mode  # C3-7.6
    if mode == "demand" and pos.demand >= 0:
        plies = min(pos.demand, pos.halfmove) if config.fifty_move_reset else pos.demand
        if plies >= 100:
            return draw("fifty_moves")
    elif mode == "automatic" and pos.halfmove >= 100:
        return draw("fifty_moves")
    return None


def _perpetual(pos: Position) -> bool:
    """C3-7.5.3: one side gave check with every move between the first and last occurrence."""
    history = pos.history
    n = len(history) - 1
    first = history.index(history[-1])
    for parity in (0, 1):  # 0: moves by the side that just moved, 1: by the other side
        plies = [j for j in range(first + 1, n + 1) if (n - j) % 2 == parity]
        if plies and all(pos.checks >> j & 1 for j in plies):
            return True
    return False


_COUNTED: Final = tuple((color, kind) for color in (WHITE, BLACK) for kind in (2, 3, 4, 5))


def material_draw(b: bytes, depleted_equal: bool) -> str | None:
    """C3-7.3 `insufficient_material` / C3-7.4 `depleted_equal`, or None."""
    if b.find(WHITE | PAWN) >= 0 or b.find(BLACK | PAWN) >= 0:  # stops at the first pawn
        return None
    pieces: dict[int, list[int]] = {WHITE: [], BLACK: []}
    for color, kind in _COUNTED:
        pieces[color].extend([kind] * b.count(color | kind))
    white, black = pieces[WHITE], pieces[BLACK]
    if len(white) + len(black) <= 1 and QUEEN not in white + black:
        return "insufficient_material"
    if depleted_equal and len(white) == len(black) == 1 and white == black:
        return "depleted_equal"
    return None


# Rendering ---------------------------------------------------------------------------------


def render(pos: Position) -> str:
    """The three levels side by side, ranks 8..1, files A..H."""
    width = 19
    lines = ["".join(f"  Level {LEVEL_NAMES[z]}".ljust(width + 3) for z in range(3)).rstrip()]
    for y in range(7, -1, -1):
        row = []
        for z in range(3):
            cells = []
            for x in range(8):
                p = pos.board[square(x, y, z)]
                letter = KIND_LETTERS[p & 7] if p else "."
                cells.append(letter.lower() if p & BLACK else letter)
            row.append(f"{y + 1} " + " ".join(cells))
        lines.append("    ".join(row))
    files = "  " + " ".join(FILE_LETTERS)
    lines.append("    ".join([files] * 3))
    status = f"{_SIDE[pos.turn]} to move" + (" (check)" if pos.check else "")
    lines.append(status)
    return "\n".join(lines)


CHESS3D: Final = Chess3D()

__all__ = ["CHESS3D", "Action", "Chess3D", "Command", "Move", "State"]
