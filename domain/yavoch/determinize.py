"""A sampler of what a seat cannot see in Yavoch (`DETERMINIZE`, for the search's ISMCTS).

What a seat's state holds (folded from its events through `domain.core.table.visible`):
- Captain Decker's game hides nothing (Y-6.3, Y-7.1): the state is whole and comes back as is;
  so does any game before the Full Yavoch's first shuffle (Y-3.6), and once it has ended.
- [FULL] Hidden from the seat, as faces "" in its state (Y-7.2, Y-7.3):
  - the other hand's faces (its CardDealt comes without card and salt), its size public;
  - the faces of the other player's face-down discards (Y-6.13, Y-6.21) in the discard pile;
  - the draw pile: every shuffle's order is redacted (DeckShuffled without order) until the
    game ends, so every pile face is unknown, its size public.
  The seat's own hand, the cards played for weapons and responses (CardRevealed), the impact
  cards turned up (ImpactResolved) and the seat's own discards keep their faces. Two public
  facts the folded state does not keep, so a sample cannot use them: the back of the pile's top
  card after a draw (Y-6.14: known while the seat discards down to the hand limit), and the
  face of a card Enemy Defector took from the seat (Y-7.4: its redacted re-deal blanks it).
  Nor does a sample infer anything from the other player's choices (a response window opened
  under `defence_window_always=false` says its hand can answer: Y-5.96).

A sample gives every hidden face a card of the deck (Y-2.7) not seen elsewhere, uniformly over
the assignments that keep the rules' invariants: hands and face-down discards hold component
cards only (Y-6.13: hands never hold impact cards), and while a turn is played or answered the
pile's top card is a component card (impact cards on top are resolved between turns, Y-6.15,
and the first shuffle is repeated while one is on top, Y-3.6). Salts stay "": no rule reads
them. Everything the seat sees is left as it is.
"""

from collections import Counter
from dataclasses import replace
from typing import Final

from domain.search.mcts import Rng
from domain.yavoch.cards import Held, is_impact
from domain.yavoch.state import State


def _shuffled(cards: list[str], rng: Rng) -> list[str]:
    """Fisher-Yates: every order equally likely."""
    out = list(cards)
    for i in range(len(out) - 1, 0, -1):
        j = rng.randrange(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


class YavochDeterminize:
    def sample(self, state: State, seat: int, rng: Rng) -> State:
        """A full state consistent with `state`, which is `seat`'s view: its holes are the
        faces "" (see the module)."""
        cards = state.cards
        if not state.cfg.full or not cards.shuffled or state.outcome is not None:
            return state
        faces = [*cards.pile, *cards.found, *cards.discard,
                 *(h.card for hand in cards.hands for h in hand)]  # fmt: skip
        if all(faces):
            return state
        unseen = sorted((Counter(state.cfg.deck) - Counter(f for f in faces if f)).elements())
        components = iter(_shuffled([c for c in unseen if not is_impact(c)], rng))
        hands = tuple(
            tuple(h if h.card else Held(h.position, next(components)) for h in hand)
            for hand in cards.hands
        )
        discard = tuple(c or next(components) for c in cards.discard)
        rest = _shuffled([*components, *(c for c in unseen if is_impact(c))], rng)
        if cards.pile and not cards.pile[0] and state.phase in ("play", "respond"):
            tops = [i for i, c in enumerate(rest) if not is_impact(c)]
            if tops:  # uniform among the orders with a component card on top
                top = tops[rng.randrange(len(tops))]
                rest[0], rest[top] = rest[top], rest[0]
        fill = iter(rest)
        pile = tuple(c or next(fill) for c in cards.pile)
        found = tuple(c or next(fill) for c in cards.found)
        return replace(state, cards=replace(cards, pile=pile, found=found, discard=discard,
                                            hands=(hands[0], hands[1])))  # fmt: skip


DETERMINIZE: Final = YavochDeterminize()

__all__ = ["DETERMINIZE", "YavochDeterminize"]
