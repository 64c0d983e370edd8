"""Time-control classes, as Lichess defines them: a player has a rating per class.

scalachess `core/src/main/scala/Speed.scala` (ranges in estimated total seconds, inclusive):

    UltraBullet     0 to 29      "Insanely fast games: less than 30 seconds"
    Bullet          30 to 179    "Very fast games: less than 3 minutes"
    Blitz           180 to 479   "Fast games: 3 to 8 minutes"
    Rapid           480 to 1499  "Rapid games: 8 to 25 minutes"
    Classical       1500 to 21599 "Classical games: 25 minutes and more"
    Correspondence  21600 to Int.MaxValue

with `Clock.Config.estimateTotalSeconds = limitSeconds + 40 * incrementSeconds` and a game
without a clock (days per move) at Int.MaxValue, i.e. correspondence. Lichess's clocks stop
short of 6 hours (180 min + 180 s × 40 = 18000 s), so its Classical never reaches the 21600 s
edge; a longer clock here is "correspondence" too, as `Speed.byTime` says. "unlimited" (no
time control at all) is ours: Lichess rates those games, if at all, as correspondence.
"""

from __future__ import annotations

from typing import Final

# Upper bounds (exclusive) of the estimated total time, in ms: whole seconds in scalachess, and
# floor(ms / 1000) < n exactly when ms < 1000·n, so ms compare the same.
_BOUNDS_MS: Final = (
    (30_000, "ultrabullet"),
    (180_000, "bullet"),
    (480_000, "blitz"),
    (1_500_000, "rapid"),
    (21_600_000, "classical"),
)
SPEEDS: Final = (*(name for _, name in _BOUNDS_MS), "correspondence", "unlimited")


def estimate_ms(base_ms: int, increment_ms: int) -> int:
    """A clock's estimated total time for one player over a 40-move game (scalachess)."""
    return base_ms + 40 * increment_ms


def speed(base_ms: int, increment_ms: int, move_deadline_ms: int = 0) -> str:
    """The class of a game with a clock (base + increment), else a time per move, else none."""
    if base_ms > 0 or increment_ms > 0:
        total = estimate_ms(base_ms, increment_ms)
        return next((name for bound, name in _BOUNDS_MS if total < bound), "correspondence")
    return "correspondence" if move_deadline_ms > 0 else "unlimited"
