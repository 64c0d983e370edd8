"""[FULL] Cards: the deck, hands and discards (Y-2.7, Y-2.8, Y-5.70, Y-5.71, section 6.2).

Cards are ids `C-<component>-<marking>` and `I-<impact>`. A card leaving the draw pile gets the
game's next deal position (its commitment's `p` in the fair-play protocol), which names it from
then on: in a hand, in a `Discarded`, in a weapon's `@p,q,r`.
"""

from dataclasses import dataclass, replace
from itertools import combinations, permutations

from domain.yavoch.variant import Config

ANY = "ANY"  # Y-R35: the wild component
ALL_SHIPS = "X"  # Y-R35: the wild marking


def is_impact(card: str) -> bool:
    return card.startswith("I-")


def component(card: str) -> str:
    return card.split("-")[1]


def marking(card: str) -> str:
    return card.split("-")[2]


@dataclass(frozen=True, slots=True)
class Held:
    """A card in a hand: its deal position, and its face and salt ("" where this state does
    not know them: the opponent's cards in a seat's own fold)."""

    position: int
    card: str = ""
    salt: str = ""


@dataclass(frozen=True, slots=True)
class Cards:
    """Y-6.10 to Y-6.15. `pile` is top first; a face is "" where this state does not know it
    (the order of a shuffle is nobody's before the end). `found`: impact cards passed over by a
    draw, to be turned face up between turns (Y-6.12, Y-6.14)."""

    shuffled: bool = False
    pile: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    hands: tuple[tuple[Held, ...], tuple[Held, ...]] = ((), ())
    found: tuple[str, ...] = ()
    dealt: int = 0  # the next deal position

    def hand(self, seat: int) -> tuple[Held, ...]:
        return self.hands[seat]

    def with_hand(self, seat: int, hand: tuple[Held, ...]) -> "Cards":
        hands = (hand, self.hands[1]) if seat == 0 else (self.hands[0], hand)
        return replace(self, hands=hands)

    def held(self, position: int) -> tuple[int, Held] | None:
        for seat in (0, 1):
            for h in self.hands[seat]:
                if h.position == position:
                    return seat, h
        return None

    @property
    def top_is_impact(self) -> bool | None:
        """Y-6.14: the back of the draw pile's top card (None: the pile is empty)."""
        return is_impact(self.pile[0]) if self.pile else None

    def next_component(self) -> int:
        """The index in the pile of the card a draw takes (Y-6.12: impacts above it are
        passed over); len(pile) when there is none."""
        return next((i for i, c in enumerate(self.pile) if not is_impact(c)), len(self.pile))


def canonical_key(cfg: Config, held: Held) -> tuple[int, int]:
    """Y-6.22: sort by canonical index (then by position, for a deck with copies)."""
    return cfg.deck.index(held.card), held.position


def matching_marking(cfg: Config, cards: list[str], code: str) -> str | None:
    """Y-5.70 / Y-5.71: whether `cards` (three faces) make `code`'s recipe; then the ship
    type letter that must use them, or "X" for any ship but a Command ship. None: no match."""
    if len(cards) != 3 or any(is_impact(c) or not c for c in cards):
        return None
    recipe = cfg.recipe(code)
    parts = [component(c) for c in cards]
    if not any(all(p in (need, ANY) for p, need in zip(order, recipe, strict=True))
               for order in permutations(parts)):  # fmt: skip
        return None
    types = {marking(c) for c in cards} - {ALL_SHIPS}
    if len(types) > 1:
        return None
    return types.pop() if types else ALL_SHIPS


def card_sets(cfg: Config, hand: tuple[Held, ...], code: str) -> list[tuple[tuple[int, ...], str]]:
    """Every three cards of `hand` that make `code`, with the marking they need."""
    out = []
    for trio in combinations(sorted(hand, key=lambda h: h.position), 3):
        mark = matching_marking(cfg, [h.card for h in trio], code)
        if mark is not None:
            out.append((tuple(h.position for h in trio), mark))
    return out
