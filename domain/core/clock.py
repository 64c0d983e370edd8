"""Chess clocks: base time plus a Fischer increment per seat, with Lichess's lag compensation.

Pure data: the service measures the time of each command and the client reports its lag; both
arrive here as numbers and are recorded in the log (ClockCharged), so an audit recomputes every
clock and every loss on time from the log alone (docs/clocks.md).

- A seat's clock runs while it is to act in play, from the command after which it became so
  (several seats at once in a simultaneous phase, each from its own moment).
- Each command of a running seat is charged the time since its clock started, less the lag
  compensation; the seat's clock starts again from that command if it is still to act (a turn
  of several actions), and gains the increment once its turn is over.
- Lag compensation as scalachess's LagTracker: a per-seat quota, starting at 3 gains and capped
  at 7, gains `quota_gain` a move; a move's compensation is at most the lag the client
  reported, the quota and the time elapsed.
- A seat has flagged once its clock has run past zero by more than its grace, min(quota, 2 s).
"""

from dataclasses import dataclass, replace
from typing import Final

from contracts.events import TimeControl

MAX_GRACE_MS: Final = 2000


def quota_gain(tc: TimeControl) -> int:
    """A move's gain of lag quota, in ms: scalachess's quotaBaseGain, min(1 s, estimate · 2/5 cs
    + 15 cs), the estimate being base + 40 increments in whole seconds."""
    estimate_s = (tc.base_ms + 40 * tc.increment_ms) // 1000
    return min(1000, (estimate_s * 2 // 5 + 15) * 10)


@dataclass(frozen=True, slots=True)
class Clocks:
    remaining: tuple[int, ...]  # ms per seat, when its clock last stopped or started
    quota: tuple[int, ...]  # lag quota per seat, ms
    since: tuple[int | None, ...]  # when each running seat's clock started (ms); None: stopped

    def left(self, seat: int, now_ms: int) -> int:
        """The seat's time left at `now_ms` (negative once past zero)."""
        started = self.since[seat]
        return self.remaining[seat] - (0 if started is None else max(0, now_ms - started))

    def lefts(self, now_ms: int) -> list[int]:
        return [self.left(s, now_ms) for s in range(len(self.since))]

    @property
    def running(self) -> list[int]:
        return [s for s, started in enumerate(self.since) if started is not None]

    def grace(self, seat: int) -> int:
        return min(self.quota[seat], MAX_GRACE_MS)

    def flagged(self, now_ms: int) -> tuple[int, ...]:
        """The running seats whose time ran out, beyond their grace, by `now_ms`."""
        return tuple(s for s, started in enumerate(self.since)
                     if started is not None and self.left(s, now_ms) < -self.grace(s))  # fmt: skip

    def due_ms(self) -> int | None:
        """When the first running seat flags (ms), None when no clock runs."""
        dues = [started + self.remaining[s] + self.grace(s) + 1
                for s, started in enumerate(self.since) if started is not None]  # fmt: skip
        return min(dues, default=None)


def start(tc: TimeControl, seats: int) -> Clocks:
    gain = quota_gain(tc)
    return Clocks((tc.base_ms,) * seats, (3 * gain,) * seats, (None,) * seats)


@dataclass(frozen=True, slots=True)
class Charge:
    """What one command costs its seat (seat -1: nobody's clock ran for it)."""

    seat: int
    charged_ms: int
    compensation_ms: int


NOBODY: Final = Charge(-1, 0, 0)


def charge(clocks: Clocks, seat: int, now_ms: int, lag_ms: int) -> Charge:
    """The seat's charge for a command at `now_ms`: nothing unless its clock runs."""
    started = clocks.since[seat] if 0 <= seat < len(clocks.since) else None
    if started is None:
        return NOBODY
    elapsed = max(0, now_ms - started)
    compensation = max(0, min(lag_ms, clocks.quota[seat], elapsed))
    return Charge(seat, elapsed - compensation, compensation)


def after(clocks: Clocks, tc: TimeControl, paid: Charge, now_ms: int,
          running: frozenset[int]) -> Clocks:  # fmt: skip
    """The clocks after a command at `now_ms` that cost `paid`, with `running` the seats to act
    now. The seat that paid gains the increment if its turn is over; a seat whose clock stops
    without acting is charged its time; a seat that starts running starts from now."""
    remaining, quota = list(clocks.remaining), list(clocks.quota)
    if paid.seat >= 0:
        s = paid.seat
        remaining[s] = max(0, remaining[s] - paid.charged_ms)
        gain = quota_gain(tc)
        quota[s] = min(quota[s] + gain - paid.compensation_ms, 7 * gain)
        if s not in running:
            remaining[s] += tc.increment_ms
    since: list[int | None] = []
    for s, started in enumerate(clocks.since):
        if s != paid.seat and started is not None and s not in running:
            remaining[s] = max(0, clocks.left(s, now_ms))
        keeps = started is not None and s != paid.seat and s in running
        since.append(started if keeps else now_ms if s in running else None)
    return replace(clocks, remaining=tuple(remaining), quota=tuple(quota), since=tuple(since))
