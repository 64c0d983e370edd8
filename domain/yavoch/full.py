"""[FULL] What only the Full Yavoch has: the cards in play (the initial shuffle, the turn's draw,
deals, impact events: section 6; `card_at` for the audit) and the secret weapons they make
(sections 5.9 to 5.11: the cards for a weapon or response, the arguments, the uses a hand allows,
the response windows). What card events and weapons do to the state is in evolve.py.
"""

from collections.abc import Sequence
from typing import Final

from contracts.errors import ErrorCode
from contracts.events import CardDealt, Event
from contracts.yavoch import CardTaken, Discarded, ImpactResolved
from domain import fairplay
from domain.core import Rejection
from domain.yavoch.actions import LETTERS, Armed, a_or_an, refuse
from domain.yavoch.cards import Held, canonical_key, card_sets, matching_marking
from domain.yavoch.field import LINE_DIRECTIONS, POSITIONS, Position
from domain.yavoch.movement import one_steps, reachable
from domain.yavoch.notation import Kind, Piece, WeaponUse, format_position, parse_position
from domain.yavoch.run import Run
from domain.yavoch.state import State

EVOLVABLE: Final = (Kind.TRYCH, Kind.SQUAM, Kind.NEORNITH, Kind.ARCHID)  # Y-5.83


# -- the cards in play (section 6) -----------------------------------------------------------


def card_at(state: State, position: int) -> str | None:
    """The card a deal at `position` must show (for the audit): a re-dealt card in a hand
    (Enemy Defector), a found impact card, or the pile's next card for the draw."""
    cards = state.cards
    if position < cards.dealt:
        held = cards.held(position)
        return held[1].card if held else None
    if position > cards.dealt:
        return None
    if cards.found:
        return cards.found[0]
    i = cards.next_component()
    if state.turn.drawn or i == len(cards.pile):  # impacts turned up between turns
        i = 0
    return cards.pile[i] if i < len(cards.pile) else None


def shuffle_initial(run: Run) -> None:
    """Y-3.6 / Y-R39: shuffled until the top card is a component card."""
    n = len(run.state.cfg.deck)
    while True:
        run.draw("shuffle", n, "shuffle_initial")
        if not run.state.cards.top_is_impact:
            return


def draw_card(run: Run) -> None:
    """Y-6.11 / Y-6.12: the mover takes the topmost component card."""
    if not run.state.cards.shuffled:  # a game from a set position: shuffled on first need
        shuffle_initial(run)
    cards = run.state.cards
    if cards.next_component() == len(cards.pile) and cards.discard:
        run.draw("shuffle", len(cards.discard), "reshuffle")
        cards = run.state.cards
    i = cards.next_component()
    if i == len(cards.pile):
        return  # Y-6.11: both piles are empty (impacts passed over are still found)
    deal(run, run.state.mover, cards.pile[i])


def deal(run: Run, seat: int, card: str, position: int | None = None) -> Held:
    p = run.state.cards.dealt if position is None else position
    salt = run.draw("salt", p, "deal").salt
    commitment = fairplay.card_commitment(run.state.game_id, p, card, salt)
    run.emit(CardDealt(seat=seat, position=p, commitment=commitment, card=card, salt=salt))
    return Held(p, card, salt)


def impact(run: Run, held: Held) -> None:
    """Section 6.3: one impact card's event, with its rolls (Y-6.4 order)."""
    state = run.state
    code = held.card[2:]
    mover, other = state.mover, state.mover ^ 1
    rolls: list[int] = []
    follow: list[Event] = []
    if code == "EF":  # Y-6.21 / Y-R41: mover first
        for seat in (mover, other):
            rolls.append(run.die(10, "engineering_failure"))
            hand = state.cards.hand(seat)
            if rolls[-1] % 2 and hand:
                follow.append(
                    Discarded(
                        seat=seat,
                        positions=[h.position for h in hand],
                        reason="engineering_failure",
                    )
                )
    elif code == "ED":  # Y-6.22 / Y-R42: from the hands before the event
        hands = {
            s: sorted(state.cards.hand(s), key=lambda h: canonical_key(state.cfg, h))
            for s in (0, 1)
        }
        picks = []
        for taker in (mover, other):
            source = hands[taker ^ 1]
            if not source:
                continue
            index = run.die(len(source), "enemy_defector") if len(source) > 1 else 0
            if len(source) > 1:
                rolls.append(index)
            picks.append((taker, source[index]))
        run.emit(ImpactResolved(card=held.card, position=held.position, rolls=rolls))
        for taker, card in picks:
            run.emit(CardTaken(seat=taker, from_seat=taker ^ 1, position=card.position))
            deal(run, taker, card.card, card.position)
        return
    elif code == "UAI":  # Y-6.27
        rolls.append(run.die(10, "asteroid_impact"))
    run.emit(ImpactResolved(card=held.card, position=held.position, rolls=rolls), *follow)


# -- secret weapons (sections 5.9 to 5.11) ---------------------------------------------------


def cards_for(
    state: State, seat: int, code: str, kind: Kind, chosen: tuple[int, ...]
) -> tuple[Held, ...] | Rejection:
    """Y-5.70 / Y-5.71: the three cards making `code` for a ship of `kind`."""
    hand = {h.position: h for h in state.cards.hand(seat)}
    if chosen:
        if not set(chosen) <= set(hand):
            return refuse("you do not hold those cards", "Y-5.70")
        mark = matching_marking(state.cfg, [hand[p].card for p in chosen], code)
        if mark is None:
            return refuse(f"those cards do not make the {code} recipe", "Y-5.70")
        if mark not in ("X", kind.value):
            return refuse(f"those cards are for {a_or_an(LETTERS[mark])}", "Y-5.71")
        return tuple(hand[p] for p in chosen)
    for positions, mark in card_sets(state.cfg, state.cards.hand(seat), code):
        if mark in ("X", kind.value):
            return tuple(hand[p] for p in positions)
    return refuse(f"your hand does not make {code} for {a_or_an(kind)}", "Y-5.70")


def response_window(
    state: State, seat: int, targets: Sequence[Position], battle_lost: bool = False
) -> tuple[Position, ...]:
    """[FULL] Y-5.96: the opponent's ships among `targets` that may answer; a window opens
    when there is one (with `defence_window_always`, whatever the hand holds)."""
    cfg = state.cfg
    if not cfg.full:
        return ()
    board, other = state.board, seat ^ 1
    ships = [
        q
        for q in targets
        if (s := board.ships.get(q)) is not None
        and s.owner == other + 1
        and s.kind is not Kind.COMMAND
        and s.energy >= 1
    ]
    if cfg.defence_window_always or not ships:
        return tuple(ships)
    hand = state.cards.hand(other)
    codes = ("DF", "SD") if battle_lost else ("DF",)
    able = [
        q
        for q in ships
        if any(
            mark in ("X", board.ships[q].kind.value)
            for code in codes
            for _, mark in card_sets(cfg, hand, code)
        )
    ]
    return tuple(able)


def _sight(state: State, user: Position, target: Position) -> bool:
    return target in state.board.in_sight(user)


def weapon_check(state: State, seat: int, use: WeaponUse) -> Rejection | Position | None:
    """Y-5.81 to Y-5.87: the arguments; returns the targeted ship (None: no target)."""
    board, code, args = state.board, use.code, use.args or ""
    try:
        if code in ("AT", "REA", "RD"):
            target = parse_position(args)
            t = board.ships.get(target)
            if t is None or t.owner == seat + 1:
                return refuse(
                    f"{code} targets an enemy ship",
                    {"AT": "Y-5.82", "REA": "Y-5.85", "RD": "Y-5.86"}[code],
                )
            if not _sight(state, use.user, target):
                return refuse("the target is not in line of sight", "Y-5.74")
            if code == "RD" and (t.kind is Kind.COMMAND or target in board.gates):
                return refuse(
                    "the Revenant Device converts a non-Command ship off the gates", "Y-R54"
                )
            return target
        if code == "TB":
            t_text, _, d_text = args.partition(">")
            target, destination = parse_position(t_text), parse_position(d_text)
            if target == use.user or target not in board.ships:
                return refuse("the Tractor Beam targets a ship other than its user", "Y-5.81")
            if not _sight(state, use.user, target):
                return refuse("the target is not in line of sight", "Y-5.74")
            if destination not in one_steps(target, LINE_DIRECTIONS):
                return refuse("the target shifts one step in a line direction", "Y-5.81")
            if board.is_occupied(destination):
                return refuse("the Tractor Beam needs an unoccupied destination", "Y-R49")
            return target if board.ships[target].owner != seat + 1 else None
        if code == "EV":
            t_text, _, letter = args.partition("=")
            target, kind = parse_position(t_text), LETTERS.get(letter)
            t = board.ships.get(target)
            if (
                t is None
                or t.kind is Kind.COMMAND
                or (target != use.user and not _sight(state, use.user, target))
            ):
                return refuse("Evolution targets its user or a non-Command ship in sight", "Y-R51")
            if kind not in EVOLVABLE or kind is t.kind:
                return refuse("evolve into another of Trych, Squam, Neornith, Archid", "Y-5.83")
            return target if t.owner != seat + 1 else None
        if code == "CL":
            d_text, _, given = args.partition("=")
            destination = parse_position(d_text)
            ship = board.ships[use.user]
            if ship.kind is Kind.TRYCH:  # even with a larger `capacity.trych`
                return refuse("a Trych cannot clone itself", "Y-R52")
            if not given.isdigit() or not 1 <= int(given) <= ship.energy - 1:
                return refuse(f"the clone gets 1 to {ship.energy - 1} units (=k)", "Y-5.84")
            if destination not in _clone_destinations(state, use.user):
                return refuse(
                    "the clone makes one unblocked move of its type to an unoccupied position",
                    "Y-R52",
                )
            return None
        assert code == "HD"
        destination = parse_position(args)
        if board.is_occupied(destination):
            return refuse("the Hyperdrive goes to an unoccupied position", "Y-R55")
        return None
    except ValueError as exc:
        return refuse(f"{code} arguments: {exc}", "Y-1.14", ErrorCode.MALFORMED_ACTION)


def _clone_destinations(state: State, user: Position) -> list[Position]:
    board, cfg = state.board, state.cfg
    kind = board.ships[user].kind
    shape = reachable(kind, user, board.occupancy, cfg.neornith_intermediate_on_field)
    return [q for q in shape if not board.is_occupied(q)]


def weapon_uses(state: State, seat: int) -> list[Armed]:
    """[FULL] Every offensive weapon use the hand and the field allow (one card set per
    weapon and ship type)."""
    cfg, board = state.cfg, state.board
    hand = state.cards.hand(seat)
    if len(hand) < 3:
        return []
    out: list[Armed] = []
    for code in ("TB", "AT", "EV", "CL", "REA", "RD", "HD"):
        sets = card_sets(cfg, hand, code)
        if not sets:
            continue
        for p, ship in board.owned(seat + 1):
            if ship.kind is Kind.COMMAND or ship.energy < (2 if code == "CL" else 1):
                continue
            cards = next((c for c, mark in sets if mark in ("X", ship.kind.value)), None)
            if cards is None:
                continue
            for args in _weapon_args(state, seat, code, p):
                out.append(Armed(WeaponUse(code, Piece(ship.kind), p, args), cards))
    return out


def _weapon_args(state: State, seat: int, code: str, user: Position) -> list[str]:
    """Every argument string `code` takes from `user` now (for the legal action list)."""
    board = state.board
    sight = board.in_sight(user)
    enemies = [q for q in sight if board.ships[q].owner != seat + 1]
    f = format_position
    if code in ("AT", "REA"):
        return [f(q) for q in enemies]
    if code == "RD":
        return [
            f(q)
            for q in enemies
            if board.ships[q].kind is not Kind.COMMAND and q not in board.gates
        ]
    if code == "TB":
        return [
            f"{f(q)}>{f(d)}"
            for q in sight
            for d in sorted(one_steps(q, LINE_DIRECTIONS))
            if not board.is_occupied(d)
        ]
    if code == "EV":
        targets = [user, *(q for q in sight if board.ships[q].kind is not Kind.COMMAND)]
        return [
            f"{f(q)}={k.value}" for q in targets for k in EVOLVABLE if k is not board.ships[q].kind
        ]
    if code == "CL":
        if board.ships[user].kind is Kind.TRYCH:
            return []
        energy = board.ships[user].energy
        return [f"{f(q)}={k}" for q in _clone_destinations(state, user) for k in range(1, energy)]
    return [f(p) for p in POSITIONS if not board.is_occupied(p)]  # HD
