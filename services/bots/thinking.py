"""Thinking in processes of its own (issue 24): a search never runs in the event loop that
plays the seats, nor in any other service's process, so it starves none of them.

A pool of worker processes (TABULA_BOTS_THINKERS, default 1) bounds how many searches run at
once; a search asked for while all are busy waits its turn. Each search is held to a CPU time
per move (TABULA_BOTS_MOVE_CPU_S, default 10 s: several times what level 5 needs on a small machine;
less on a clock: `budget_s`), measured in its worker by `time.process_time` and asked between
iterations (domain.search.levels.think's `should_stop`): past it the search plays the best it
has. Level 1 (random play) needs no
worker. A worker runs at niceness THINKER_NICE, below the services.

A worker whose service died (SIGKILL included) must not think on: each watches its parent and
exits once it is gone.
"""

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from domain.core import table as tables
from domain.core.ruleset import Ruleset
from domain.search.levels import iterations, level, think

ORPHAN_CHECK_S: Final = 0.5  # how often a worker looks for its parent
# A thinker yields the CPU to the services on a shared host (the archiver's default too): a
# move found a little later costs a bot nothing, a rules service waiting costs every game.
THINKER_NICE: Final = 10


@dataclass(frozen=True, slots=True)
class Move:
    """A level's move and what is logged beside it (never recorded in the game)."""

    text: str | None  # None: nothing to do now
    seed: int
    level: int
    iterations: int  # searched (0: none)
    how: str  # domain.search.levels.Thought.how
    cpu_ms: int


def settings(env: Mapping[str, str]) -> tuple[int, float]:
    """(TABULA_BOTS_THINKERS, TABULA_BOTS_MOVE_CPU_S), checked."""
    thinkers = int(env.get("TABULA_BOTS_THINKERS", "1"))
    if not 1 <= thinkers <= 256:
        raise ValueError(f"TABULA_BOTS_THINKERS is 1 to 256, not {thinkers}")
    cpu_s = float(env.get("TABULA_BOTS_MOVE_CPU_S", "10"))
    if not 0.01 <= cpu_s <= 600:
        raise ValueError(f"TABULA_BOTS_MOVE_CPU_S is 0.01 to 600 s, not {cpu_s}")
    return thinkers, cpu_s


def move(ruleset: Ruleset[Any, Any], state: Any, seat: int, number: int, seed: int,
         cpu_s: float) -> Move:  # fmt: skip
    """Level `number`'s move for `seat` in `state`, within `cpu_s` of this process's CPU."""
    start = time.process_time()
    thought = think(ruleset, state, seat, level(number), seed,
                    should_stop=lambda: time.process_time() - start > cpu_s)  # fmt: skip
    text = None if thought.action is None else ruleset.format_action(state, thought.action)
    cpu_ms = round((time.process_time() - start) * 1000)
    return Move(text, seed, number, thought.iterations, thought.how, cpu_ms)


def _start_worker(service: int) -> None:
    """In a worker, first: lower its priority (THINKER_NICE), and exit as soon as the service
    that made it is gone (a SIGKILLed service leaves its workers to run on, a search for
    nothing)."""
    os.nice(THINKER_NICE)

    def watch() -> None:
        while True:
            time.sleep(ORPHAN_CHECK_S)  # the watch's period
            try:
                os.kill(service, 0)  # signal 0: only asks whether the process exists
            except ProcessLookupError:
                os._exit(0)

    threading.Thread(target=watch, daemon=True, name="orphan-watch").start()


class Thinkers:
    def __init__(self, processes: int, cpu_s: float) -> None:
        self.processes, self.cpu_s = processes, cpu_s
        self.pool: ProcessPoolExecutor | None = None  # made at the first search

    def budget_s(self, table: tables.Table, seat: int, now_ms: int) -> float:
        """The CPU time of `seat`'s next search: TABULA_BOTS_MOVE_CPU_S, or less on a clock (a
        40th of the time left plus half the increment, as engines share theirs out)."""
        if table.clocks is None or table.created.clock is None:
            return self.cpu_s
        left_s = max(0, table.clocks.left(seat, now_ms)) / 1000
        share = left_s / 40 + table.created.clock.increment_ms / 2000
        return max(0.01, min(self.cpu_s, share))

    async def move(self, ruleset: Ruleset[Any, Any], state: Any, seat: int, number: int,
                   seed: int, cpu_s: float | None = None) -> Move:  # fmt: skip
        cpu_s = self.cpu_s if cpu_s is None else cpu_s
        if iterations(level(number), ruleset) == 0:  # random play: no search, no worker
            return move(ruleset, state, seat, number, seed, cpu_s)
        if self.pool is None:
            # forkserver: a worker starts clean, not as a copy of this event loop's process
            context = multiprocessing.get_context("forkserver")
            self.pool = ProcessPoolExecutor(self.processes, mp_context=context,
                                            initializer=_start_worker,
                                            initargs=(os.getpid(),))  # fmt: skip
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, move, ruleset, state, seat, number, seed,
                                          cpu_s)  # fmt: skip

    def close(self) -> None:
        """Stop the workers; searches under way are abandoned (their seats resume them)."""
        if self.pool is not None:
            # A search may run for seconds, and the interpreter's exit would wait for it: its
            # process is killed (the pool keeps its processes in a private field).
            processes = list((getattr(self.pool, "_processes", None) or {}).values())
            self.pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.kill()
            self.pool = None
