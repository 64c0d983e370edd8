"""Applying events to the state (`evolve`): the log's replay, and every decision, which works on
a running copy (run.py). Events are not judged again (replay must never reject its own log),
but a log must agree with its dice: a battle's written roll is the recorded one and its result
the rules' for it; an impact's rolls are the recorded dice; Engineering Failure's discards and
Enemy Defector's picks are the ones those rolls give. What the Full Yavoch's card events and
weapons do to the state is here too, beside the rest of `evolve`.
"""

from collections.abc import Sequence
from dataclasses import replace

from contracts.events import CardDealt, CardRevealed, DeckShuffled, Event, RandomDrawn
from contracts.yavoch import (
    CardTaken,
    Discarded,
    FleetPlaced,
    ImpactResolved,
    LevelsChosen,
    Played,
    TurnBegan,
)
from domain.core import Rejection, agreement
from domain.yavoch import board as fx
from domain.yavoch.actions import LETTERS, Armed, ChooseLevels, Discard, PlaceFleet, parse
from domain.yavoch.board import Effect
from domain.yavoch.cards import Held, canonical_key, is_impact
from domain.yavoch.field import Position
from domain.yavoch.movement import Landing, landing
from domain.yavoch.notation import (
    Action,
    Attack,
    Detonation,
    EndTurn,
    Kind,
    Move,
    NoResponse,
    Response,
    Shot,
    Transfer,
    WeaponUse,
    format_action,
    parse_position,
)
from domain.yavoch.state import State, Turn, Window


def evolve(state: State, event: Event) -> State:
    if isinstance(event, Played):
        return _played(state, event)
    if isinstance(event, RandomDrawn):
        return replace(state, rolls=(*state.rolls, event.value))
    if isinstance(event, Discarded | CardTaken) and state.expected:
        if event != state.expected[0]:
            raise ValueError(f"{event} where the impact's rolls give {state.expected[0]}")
        state = replace(state, expected=state.expected[1:])
    if isinstance(event, CardDealt | CardRevealed | DeckShuffled | Discarded | CardTaken):
        return _cards_evolve(state, event)
    if isinstance(event, ImpactResolved):
        return _impact_evolve(state, event)
    if isinstance(event, TurnBegan):
        if state.expected:
            raise ValueError(f"missing before the next turn: {state.expected[0]}")
        # An offer stands until it is answered (Y-8.8); the last mover may offer again.
        agreed = agreement.mark_cleared(state.agreement, state.mover)
        return replace(state, mover=event.seat, number=event.turn, turn=Turn(), agreement=agreed)
    if isinstance(event, FleetPlaced):
        pieces = [(LETTERS[i[0]], parse_position(i[1:])) for i in event.placement.split()]
        board = fx.place(state.cfg, state.board, event.seat + 1, pieces)
        placed = (True, state.placed[1]) if event.seat == 0 else (state.placed[0], True)
        return replace(state, board=board, placed=placed)
    if isinstance(event, LevelsChosen):
        levels: tuple[int, int] = (event.levels[0], event.levels[1])
        return replace(state, levels=levels)
    if (changed := agreement.changes(state.agreement, event)) is not None:
        return replace(state, **changed)
    return state


def _played(state: State, event: Played) -> State:
    record = parse(event.action)
    assert not isinstance(record, Rejection | str | ChooseLevels | PlaceFleet | Discard)
    state = replace(state, casualties=frozenset())
    if isinstance(record, NoResponse) or (
        isinstance(record, Armed) and isinstance(record.record, Response)
    ):
        return _answered(state, record)
    if isinstance(record, Attack) and record.result:
        _check_result(state, record)
        if record.result.roll is not None:
            state = _use_roll(state, record.result.roll)
    if isinstance(record, Shot):  # Y-5.61: spent when declared, whatever the result
        state = replace(state, board=fx.spend(state.board, record.origin))
    if event.window:
        ships = tuple(parse_position(p) for p in event.window)
        lost = isinstance(record, Attack) and record.result is not None and record.result.won
        window = Window(event.seat ^ 1, event.action, ships, lost)
        return replace(state, window=window, turn=_mark(state.turn, record))
    return resolve(state, event.seat, record)


def _answered(state: State, answer: Armed | NoResponse) -> State:
    window = state.window
    assert window is not None
    seat = window.seat ^ 1
    record = parse(window.action)
    assert not isinstance(record, Rejection | str | ChooseLevels | PlaceFleet | Discard)
    state = replace(state, window=None)
    if isinstance(answer, NoResponse):
        return resolve(state, seat, record, marked=True)
    assert isinstance(answer.record, Response)
    ship = answer.record.ship
    if answer.record.code == "SD":  # Y-5.92: both ships destroyed
        assert isinstance(record, Attack)
        effect = fx.self_destruct(state.board, record.origin, ship)
        board = effect.board
        if record.mine:  # the attacker had left its origin: its mine stays (Y-5.40)
            board = replace(board, mines={**board.mines, record.origin: seat + 1})
        return replace(state, board=board, casualties=effect.lost_command)
    if isinstance(record, Detonation):  # Y-5.91: that one ship survives
        return resolve(state, seat, record, spared=ship, marked=True)
    # Y-5.91 / Y-4.4 (b): a tie; the attacker's turn ends
    return replace(state, turn=replace(state.turn, over=True))


def resolve(
    state: State,
    seat: int,
    record: Action | Armed,
    spared: Position | None = None,
    marked: bool = False,
) -> State:
    """Apply a MOVE, shot, transfer or END (already found legal)."""
    cfg, board = state.cfg, state.board
    turn = state.turn if marked else _mark(state.turn, record)
    effect = Effect(board)
    if isinstance(record, EndTurn):
        turn = replace(turn, over=True)
    elif isinstance(record, Transfer):
        effect = Effect(fx.transfer(cfg, board, record.origin, record.destination))
        turn = replace(
            turn,
            gave=turn.gave | {record.origin},
            received=turn.received | {record.destination},
        )
    elif isinstance(record, Shot):
        effect = fx.fire(board, record.target)
    elif isinstance(record, Detonation):
        effect = fx.detonate(board, record.position, spared)
    elif isinstance(record, Move) and record.piece.kind is Kind.GATE:
        effect = Effect(fx.move_gate(board, record.origin, record.destination))
    elif isinstance(record, Move | Attack):
        found = landing(board.occupancy, record.origin, record.destination)
        assert found is not None, f"{format_action(record)} is not a legal landing"
        roll = record.result.roll if isinstance(record, Attack) and record.result else None
        effect = fx.move_ship(
            cfg, board, record.origin, record.destination, found[0], found[1], record.mine, roll
        )
        if effect.attacker_lost:
            turn = replace(turn, over=True)  # Y-5.25 / Y-4.4 (a)
    elif isinstance(record, Armed):
        assert isinstance(record.record, WeaponUse)
        effect = _weapon_effect(state, seat, record.record)
    return replace(state, board=effect.board, turn=turn, casualties=effect.lost_command)


def _mark(turn: Turn, record: Action | Armed) -> Turn:
    if isinstance(record, Shot):
        return replace(turn, fired=True)
    if isinstance(record, Move | Attack | Detonation | Armed):
        return replace(turn, moved=True)
    return turn


def _use_roll(state: State, roll: int) -> State:
    """A recorded die outcome is used by the action that names it; a log whose action names
    another roll is inconsistent (the audit's replay reports it)."""
    if not state.rolls or state.rolls[0] != roll:
        raise ValueError(
            f"the action names roll {roll}; the next recorded die is "
            f"{state.rolls[0] if state.rolls else 'missing'}"
        )
    return replace(state, rolls=state.rolls[1:])


def _check_result(state: State, record: Attack) -> None:
    """A stored battle result must be the rules' for its roll (Y-5.22, Y-5.8): a log whose text
    says otherwise does not replay."""
    assert record.result is not None
    cfg, board = state.cfg, state.board
    attacker, defender = board.ships.get(record.origin), board.ships.get(record.destination)
    found = landing(board.occupancy, record.origin, record.destination)
    if attacker is None or defender is None or found is None:
        raise ValueError(f"{format_action(record)}: no such battle here")
    roll = record.result.roll
    if found[0] is Landing.GATE_CLASH:
        rolled, won = True, roll is not None and roll >= cfg.command_ship_defence
    else:
        rolled = fx.needs_roll(cfg, attacker, defender)
        won = roll is not None and fx.attacker_wins(cfg, attacker, defender, roll)
        won = won or not rolled
    if rolled != (roll is not None) or won != record.result.won:
        raise ValueError(f"{format_action(record)}: the rules give another result")


def _weapon_effect(state: State, seat: int, use: WeaponUse) -> Effect:
    board, cfg, args = state.board, state.cfg, use.args or ""
    code = use.code
    if code == "AT":
        return fx.fire(board, parse_position(args))  # Y-5.82: as the HEP CAT, ships only
    if code == "REA":
        return Effect(fx.absorb(cfg, board, use.user, parse_position(args)))
    if code == "RD":
        return Effect(fx.convert(board, parse_position(args), seat + 1))
    if code == "TB":
        t, _, d = args.partition(">")
        return Effect(fx.tractor(cfg, board, parse_position(t), parse_position(d)))
    if code == "EV":
        t, _, letter = args.partition("=")
        return Effect(fx.evolve_ship(cfg, board, parse_position(t), LETTERS[letter]))
    if code == "CL":
        d, _, given = args.partition("=")
        return Effect(fx.clone(cfg, board, use.user, parse_position(d), int(given)))
    return Effect(fx.hyperdrive(cfg, board, use.user, parse_position(args)))


# -- [FULL] cards and impact events ----------------------------------------------------------


def _cards_evolve(state: State, event: Event) -> State:
    cards, cfg = state.cards, state.cfg
    if isinstance(event, DeckShuffled):
        if event.purpose == "shuffle_initial":
            source: tuple[str, ...] = cfg.deck
            found = cards.found
        else:  # Y-6.11: the discard pile, sorted canonically; impacts left above are found
            source = tuple(sorted(cards.discard, key=lambda c: cfg.deck.index(c) if c else 0))
            found = cards.found + cards.pile
        pile = tuple(source[i] for i in event.order) if event.order else ("",) * event.n
        return replace(
            state, cards=replace(cards, shuffled=True, pile=pile, discard=(), found=found)
        )
    if isinstance(event, CardDealt):
        held = Held(event.position, event.card, event.salt)
        if event.position < cards.dealt:  # a card changing hands (Enemy Defector)
            hand = tuple(
                held if h.position == event.position else h for h in cards.hand(event.seat)
            )
            return replace(state, cards=cards.with_hand(event.seat, hand))
        if event.card and is_impact(event.card):  # turned up between turns (Y-6.15)
            if cards.found:
                cards = replace(cards, found=cards.found[1:])
            else:
                cards = replace(cards, pile=cards.pile[1:])
            return replace(state, cards=replace(cards, dealt=event.position + 1))
        i = cards.next_component() if event.card else 0
        cards = replace(
            cards,
            found=cards.found + cards.pile[:i],
            pile=cards.pile[i + 1 :],
            dealt=event.position + 1,
        )
        cards = cards.with_hand(event.seat, (*cards.hand(event.seat), held))
        return replace(state, cards=cards, turn=replace(state.turn, drawn=True))
    if isinstance(event, CardRevealed):  # a weapon's card, or an impact card turned up
        hand = tuple(h for h in cards.hand(event.seat) if h.position != event.position)
        cards = cards.with_hand(event.seat, hand)
        if not is_impact(event.card):
            cards = replace(cards, discard=(*cards.discard, event.card))  # Y-5.73
        return replace(state, cards=cards)
    if isinstance(event, Discarded):  # face down (Y-6.13, Y-6.21)
        gone = set(event.positions)
        hand = cards.hand(event.seat)
        cards = cards.with_hand(event.seat, tuple(h for h in hand if h.position not in gone))
        faces = tuple(h.card for h in hand if h.position in gone)
        return replace(state, cards=replace(cards, discard=(*cards.discard, *faces)))
    assert isinstance(event, CardTaken)
    moved = next(
        (h for h in cards.hand(event.from_seat) if h.position == event.position),
        Held(event.position),
    )
    cards = cards.with_hand(
        event.from_seat,
        tuple(h for h in cards.hand(event.from_seat) if h.position != event.position),
    )
    cards = cards.with_hand(event.seat, (*cards.hand(event.seat), moved))
    return replace(state, cards=cards)


def _impact_evolve(state: State, event: ImpactResolved) -> State:
    cfg, board = state.cfg, state.board
    for roll in event.rolls:
        state = _use_roll(state, roll)
    code = event.card[2:]
    if code in ("EF", "ED"):
        state = replace(state, expected=_obliged(state, code, event.rolls))
    cards = replace(state.cards, discard=(*state.cards.discard, event.card))  # Y-R40
    effect = Effect(board)
    if code == "CA":
        effect = Effect(fx.core_anomaly(cfg, board))
    elif code == "CD":
        effect = fx.core_dump(cfg, board)
    elif code == "MAS":
        effect = fx.asteroid_swarm(board)
    elif code == "UAI":
        effect = fx.asteroid_impact(cfg, board, event.rolls[0])
    return replace(state, cards=cards, board=effect.board, casualties=effect.lost_command)


def _obliged(state: State, code: str, rolls: Sequence[int]) -> tuple[Event, ...]:
    """The discards (Engineering Failure, Y-6.21) or picks (Enemy Defector, Y-6.22) the rolls
    give, from the hands before the event; () where this state does not know the faces."""
    mover, hands = state.mover, state.cards.hands
    if code == "EF":
        return tuple(Discarded(seat=seat, positions=[h.position for h in hands[seat]],
                               reason="engineering_failure")
                     for seat, roll in zip((mover, mover ^ 1), rolls, strict=True)
                     if roll % 2 and hands[seat])  # fmt: skip
    if not all(h.card for hand in hands for h in hand):
        return ()
    left = list(rolls)
    picks: list[Event] = []
    for taker in (mover, mover ^ 1):
        source = sorted(hands[taker ^ 1], key=lambda h: canonical_key(state.cfg, h))
        if source:
            index = left.pop(0) if len(source) > 1 else 0
            picks.append(
                CardTaken(seat=taker, from_seat=taker ^ 1, position=source[index].position)
            )
    return tuple(picks)
