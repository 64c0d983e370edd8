"""Spacewar Health/Ammo (`spacewar-ha`) per the Spacewar ruling v1.1, Part B (clauses HA-x.y,
rulings HA-Rn; the engine's own decisions are in docs/rules/spacewar.md, Part B).

Modules, lowest first: board (HA-1), pieces (HA-2), setup (HA-0.3, HA-3: the variant),
position (the state and its notation), notation (HA-1.4), actions (HA-5), turns (HA-4, HA-8),
display (view and render) and rules (the ruleset)."""

from domain.spacewar_ha.notation import Action
from domain.spacewar_ha.position import Position
from domain.spacewar_ha.rules import SPACEWAR_HA, SpacewarHa, State
from domain.spacewar_ha.setup import Config, parse_variant

__all__ = ["SPACEWAR_HA", "Action", "Config", "Position", "SpacewarHa", "State", "parse_variant"]
