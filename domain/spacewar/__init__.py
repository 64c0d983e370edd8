"""Spacewar (Joe Joyce) per the rulings spacewar.md Part A (clauses SW-x.y, rulings SW-Rnn; the
engine's own decisions are in docs/rules/spacewar.md).

Modules, lowest first: board (SW-1), pieces (SW-2, SW-3), variant (SW-0.3), state (the state,
the phase table of SW-4.1, hits), fields (SW-5.30–5.36), movement (SW-5.1–5.22), combat
(SW-5.40–5.47), missiles (SW-5.60–5.77), phases (SW-4, SW-R53, SW-8), actions (the action
notation of SW-1.5), position (the position notation), display (view and render) and rules
(the ruleset)."""

from domain.spacewar.rules import SPACEWAR, Spacewar, State
from domain.spacewar.variant import Config, parse_variant

__all__ = ["SPACEWAR", "Config", "Spacewar", "State", "parse_variant"]
