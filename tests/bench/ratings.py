"""Issue 23's figures: a rated bot tournament against ONE embedded stack (`tabula up` in a
temporary home), the ratings the projector's pass gives its players, and the time of
`tabula ratings --verify` over them. Not a test: it prints a report and a summary line.

- P players (`--players`, default 24) of three strengths, one third each, named by it:
  "strong-i" plays services.client.bot.greedy_policy (captures first; demands the fifty-move
  count, so its games end), "fair-i" plays greedy half the time and else a uniformly random
  legal move, "weak-i" only uniformly random legal moves (never a demand-mate).
- N rated games (`--games`, default 1,000) of `--ruleset` (default chess3d, its default
  variant), no clock, between random pairs of distinct players (seeded: `--seed`; the seats in
  the pair's drawn order), `--concurrency` games at a time (default 20), each played to its
  sealed end by services.client.bot.play_seat with its players' policies. A progress line
  every 100 games.
- Then, polling `ratings_position` as the `auditor` (a condition with a deadline, `--settle`),
  until the pass looked at every game: the pass rates a game only once it ended SETTLE_S
  (30 s) ago, and runs every RATINGS_S (10 s). Reported: the time from the last game's end
  (its `ended_at` in the read model) to its rating.
- The figures: per strength group the mean and min-max rating, mean deviation and the
  provisional players (the leaderboard's query, services.projector.ratings.leaderboard); the
  spread (highest - lowest) and the gaps between the groups' means; the games' results per
  pairing of groups; and the wall time of `tabula ratings --verify`, run as an operator runs it
  (TABULA_HOME the stack's home), which must exit 0.

Run: .venv/bin/python -m tests.bench.ratings [--games 1000] [--players 24] [--concurrency 20]
Smoke (about 80 s): .venv/bin/python -m tests.bench.ratings --games 60 --players 6
"""

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from domain.core.ruleset import Ruleset
from domain.ratings import Glicko
from services.cli.demo import quiet_nats_logs
from services.client.bot import NON_MOVES, TRANSIENT, BotResult, Policy, greedy_policy, play_seat
from services.client.client import Client, NewGame, TabulaError
from services.projector.ratings import SETTLE_S, leaderboard
from services.runtime.config import StackFile
from tests.stack import TABULA, embedded_stack

GROUPS = ("strong", "fair", "weak")  # strongest first
PROGRESS = 100  # a progress line every this many games
CREATES = 8  # tries at a create, 0.2 s apart and doubling (a service briefly away)
POLL_S = 0.25  # the ratings position's polling period


# -- the players' policies ----------------------------------------------------------------------


def random_policy(rs: Ruleset[Any, Any], state: Any, seat: int, rng: random.Random) -> Any:
    """A uniformly random legal move: no resignation, draw offer or demand-mate (so a weak
    player never ends a game by the fifty-move count); None when there is none."""
    barred = NON_MOVES | {"demand-mate"}
    moves = [a for a in rs.legal_actions(state, seat) if rs.format_action(state, a) not in barred]
    return rng.choice(moves) if moves else None


def fair_policy(rs: Ruleset[Any, Any], state: Any, seat: int, rng: random.Random) -> Any:
    """Greedy half the time, else random."""
    return (greedy_policy if rng.random() < 0.5 else random_policy)(rs, state, seat, rng)


POLICIES: dict[str, Policy] = {"strong": greedy_policy, "fair": fair_policy,
                               "weak": random_policy}  # fmt: skip


def make_players(count: int) -> list[str]:
    """`count` player ids, the groups in turn: strong-0, fair-0, weak-0, strong-1, ..."""
    return [f"{GROUPS[i % len(GROUPS)]}-{i // len(GROUPS)}" for i in range(count)]


def group(player: str) -> str:
    return player.split("-", 1)[0]


def pairings(players: Sequence[str], games: int, seed: int) -> list[tuple[str, str]]:
    """Each game's two distinct players, seat 0 first, drawn at random (seeded)."""
    rng = random.Random(seed)
    return [(a, b) for a, b in (rng.sample(players, 2) for _ in range(games))]


# -- the tournament -------------------------------------------------------------------------------


@dataclass
class Game:
    game_id: str
    players: tuple[str, str]
    result: str  # "1-0", "0-1", "1/2-1/2"
    reason: str
    actions: int  # the actions the two bots had accepted
    seconds: float


async def create(client: Client, ruleset: str, variant: str, players: list[str]) -> NewGame:
    for attempt in range(CREATES):
        try:
            return await client.create_game(ruleset, variant, players=players, rated=True)
        except TabulaError as exc:
            if exc.code not in TRANSIENT or attempt == CREATES - 1:
                raise
            await asyncio.sleep(0.2 * 2**attempt)
    raise AssertionError("unreachable")


async def play(client: Client, ruleset: str, variant: str, pair: tuple[str, str],
               seed: int) -> Game:  # fmt: skip
    """One rated game of the pair, each seat played by its player's policy to the sealed end."""
    started = time.perf_counter()
    made = await create(client, ruleset, variant, list(pair))
    results: list[BotResult] = await asyncio.gather(*(
        play_seat(client, made.game_id, s.seat, s.token, policy=POLICIES[group(pair[s.seat])],
                  seed=seed * 2 + s.seat)
        for s in made.seats
    ))  # fmt: skip
    outcome = results[0].outcome
    return Game(made.game_id, pair, outcome.result, outcome.reason,
                sum(r.moves for r in results), time.perf_counter() - started)  # fmt: skip


@dataclass
class Progress:
    """Games done, and every PROGRESS games a line: games/s, and the games the ratings pass has
    rated meanwhile (it keeps SETTLE_S behind the games' ends)."""

    total: int
    conn: "psycopg.AsyncConnection[Any]"
    started: float = field(default_factory=time.perf_counter)
    done: int = 0
    last_end: float = 0.0  # perf_counter when the latest game ended

    async def one(self) -> None:
        self.done += 1
        self.last_end = time.perf_counter()
        if self.done % PROGRESS == 0 or self.done == self.total:
            wall = self.last_end - self.started
            rated, _ = await position(self.conn)
            print(f"  {self.done:5,}/{self.total:,} games, {wall:6.0f} s, "
                  f"{self.done / wall:.2f} games/s; rated so far {rated:,}",
                  flush=True)  # fmt: skip


async def tournament(client: Client, conn: "psycopg.AsyncConnection[Any]",
                     args: argparse.Namespace, pairs: list[tuple[str, str]],
                     ) -> tuple[list[Game], list[BaseException], Progress]:  # fmt: skip
    """Every pairing's game, `args.concurrency` at a time; the games not sealed by
    `args.deadline` (s) are cancelled and counted as errors."""
    sem = asyncio.Semaphore(args.concurrency)
    progress = Progress(len(pairs), conn)
    games: list[Game] = []

    async def guarded(i: int) -> None:
        async with sem:
            games.append(await play(client, args.ruleset, args.variant, pairs[i],
                                    args.seed * 1_000_003 + i))  # fmt: skip
        await progress.one()

    tasks = [asyncio.create_task(guarded(i)) for i in range(len(pairs))]
    finished, pending = await asyncio.wait(tasks, timeout=args.deadline)
    for t in pending:
        t.cancel()
    errors: list[BaseException] = [e for t in finished if (e := t.exception()) is not None]
    if pending:
        errors.append(TimeoutError(f"{len(pending)} games still playing at the deadline"))
    return games, errors, progress


# -- the read model, as the auditor --------------------------------------------------------------


async def position(conn: "psycopg.AsyncConnection[Any]") -> tuple[int, int]:
    """The ratings pass's (seq, looked): games rated, candidates looked at."""
    cur = await conn.execute("SELECT seq, looked FROM ratings_position")
    row = await cur.fetchone()
    assert row is not None  # 0004_ratings.sql inserts the one row
    return int(row[0]), int(row[1])


async def last_end(conn: "psycopg.AsyncConnection[Any]", game_ids: list[str]) -> float:
    """The latest `ended_at` of the games (epoch seconds), as the pass orders them."""
    cur = await conn.execute("SELECT extract(epoch FROM max(ended_at))::float8 FROM games "
                             "WHERE game_id = ANY(%s)", (game_ids,))  # fmt: skip
    row = await cur.fetchone()
    assert row is not None
    assert row[0] is not None, "no game of the tournament in the read model"
    return float(row[0])


async def wait_rated(conn: "psycopg.AsyncConnection[Any]", count: int, deadline_s: float,
                     ) -> tuple[int, int, float]:  # fmt: skip
    """Poll the position until the pass looked at `count` candidates (every game of this
    stack's is one): (seq, looked, epoch seconds when seen). TimeoutError past the deadline."""
    give_up = time.monotonic() + deadline_s
    while True:
        seq, looked = await position(conn)
        if looked >= count:
            return seq, looked, time.time()
        if time.monotonic() > give_up:
            raise TimeoutError(f"the ratings pass looked at {looked} of {count} games "
                               f"in {deadline_s:.0f} s")  # fmt: skip
        await asyncio.sleep(POLL_S)


# -- the figures --------------------------------------------------------------------------------


@dataclass
class Group:
    name: str
    ratings: list[float]
    deviations: list[float]
    provisional: int
    games: int


async def groups(conn: "psycopg.AsyncConnection[Any]", ruleset: str) -> list[Group]:
    """Each strength group's stored ratings in the ruleset's classes (one here: its variant
    family, speed "unlimited"), read as the leaderboard reads them."""
    standings = [s for players in (await leaderboard(conn, ruleset)).values() for s in players]
    out = []
    for name in GROUPS:
        mine = [s for s in standings if group(s.player) == name]
        glicko = [s.rating for s in mine if isinstance(s.rating, Glicko)]
        out.append(Group(name, [r.rating for r in glicko], [r.deviation for r in glicko],
                         sum(s.provisional for s in mine),
                         sum(r.games for r in glicko)))  # fmt: skip
    return out


def ratings_table(found: list[Group]) -> list[str]:
    head = (f"  {'group':8s} {'players':>7s} {'mean':>7s} {'min':>7s} {'max':>7s} "
            f"{'mean RD':>8s} {'provisional':>11s} {'games':>6s}")  # fmt: skip
    lines = [head]
    for g in found:
        if not g.ratings:
            lines.append(f"  {g.name:8s} {0:7d}  (no ratings)")
            continue
        lines.append(f"  {g.name:8s} {len(g.ratings):7d} {statistics.mean(g.ratings):7.1f} "
                     f"{min(g.ratings):7.1f} {max(g.ratings):7.1f} "
                     f"{statistics.mean(g.deviations):8.1f} {g.provisional:11d} "
                     f"{g.games:6d}")  # fmt: skip
    return lines


def spread(found: list[Group]) -> tuple[float, dict[str, float]]:
    """Highest - lowest rating; the gaps between the groups' means (stronger - weaker)."""
    every = [r for g in found for r in g.ratings]
    means = {g.name: statistics.mean(g.ratings) for g in found if g.ratings}
    gaps = {f"{a} - {b}": means[a] - means[b]
            for i, a in enumerate(GROUPS) for b in GROUPS[i + 1:]
            if a in means and b in means}  # fmt: skip
    return (max(every) - min(every) if every else 0.0), gaps


def results_table(games: list[Game]) -> list[str]:
    """Per pairing of groups (the stronger named first): its games won by the stronger, drawn,
    lost; and the reasons the games ended."""
    tally: dict[tuple[str, str], Counter[str]] = {}
    for g in games:
        a, b = (group(p) for p in g.players)
        score = g.result.split("-")
        if GROUPS.index(a) > GROUPS.index(b):  # the stronger (or first) side's view
            a, b, score = b, a, score[::-1]
        kind = "draw" if score[0] == score[1] else ("won" if score[0] == "1" else "lost")
        tally.setdefault((a, b), Counter())[kind] += 1
    lines = [f"  {a:>6s} v {b:6s} {sum(c.values()):5d} games: won {c['won']}, "
             f"drawn {c['draw']}, lost {c['lost']}"
             for (a, b), c in sorted(tally.items(),
                                     key=lambda kv: (GROUPS.index(kv[0][0]),
                                                     GROUPS.index(kv[0][1])))]  # fmt: skip
    reasons = Counter(g.reason for g in games)
    lines.append("  ended by: " + ", ".join(f"{r} {n}" for r, n in reasons.most_common()))
    return lines


def verify(home: Path) -> tuple[float, int, str]:
    """`tabula ratings --verify` as an operator runs it against the stack (TABULA_HOME, no
    server URLs of the environment): wall seconds, exit code, its output."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NATS_URL", "REDIS_URL", "DATABASE_URL")}  # fmt: skip
    env["TABULA_HOME"] = str(home)
    started = time.perf_counter()
    done = subprocess.run([TABULA, "ratings", "--verify"], env=env, capture_output=True,
                          text=True, timeout=1800, check=False)  # fmt: skip
    wall = time.perf_counter() - started
    return wall, done.returncode, (done.stdout + done.stderr).strip()


# -- the bench ----------------------------------------------------------------------------------


def label(args: argparse.Namespace) -> str:
    return f"{args.ruleset} {args.variant}".strip()


async def bench(stack: StackFile, home: Path, args: argparse.Namespace) -> int:
    """The tournament, the wait for its ratings, the figures: the exit status."""
    players = make_players(args.players)
    pairs = pairings(players, args.games, args.seed)
    print(f"{args.games:,} rated {label(args)} games between {len(players)} "
          f"players ({', '.join(f'{len(players[i::3])} {g}' for i, g in enumerate(GROUPS))}), "
          f"{args.concurrency} at a time, no clock; seed {args.seed}", flush=True)  # fmt: skip
    quiet_nats_logs()
    async with await psycopg.AsyncConnection.connect(stack.postgres_url, autocommit=True) as conn:
        client = await Client.connect(stack.nats_url, timeout=10.0)
        try:
            games, errors, progress = await tournament(client, conn, args, pairs)
        finally:
            await client.close()
        wall = progress.last_end - progress.started
        actions = sum(g.actions for g in games)
        print(f"tournament: {len(games):,} games in {wall:.0f} s, {len(games) / wall:.2f} "
              f"games/s, {actions / wall:,.0f} actions/s ({actions / max(1, len(games)):.0f} "
              f"actions a game, median game {statistics.median(g.seconds for g in games):.1f} "
              f"s); errors {len(errors)}", flush=True)  # fmt: skip
        for e in errors[:5]:
            print(f"  error: {e!r}")
        ended = await last_end(conn, [g.game_id for g in games])
        seq, looked, seen = await wait_rated(conn, len(games), args.settle)
        found = await groups(conn, args.ruleset)
        cur = await conn.execute("SELECT count(*) FROM rating_changes")
        changes = (await cur.fetchone() or (0,))[0]
    lag = seen - ended
    print(f"\nrated: {seq:,} games rated of {looked:,} looked at ({changes:,} rating changes), "
          f"{lag:.1f} s after the last game ended (the pass waits {SETTLE_S:.0f} s, then runs "
          f"every 10 s; polled every {POLL_S} s)")  # fmt: skip
    print("\nresults per pairing (the stronger group first):")
    print("\n".join(results_table(games)))
    print(f"\nratings, {args.ruleset} (Glicko-2), per strength group:")
    print("\n".join(ratings_table(found)))
    top, gaps = spread(found)
    print(f"spread: highest - lowest {top:.1f}; gaps between the groups' means: "
          + ", ".join(f"{k} {v:+.1f}" for k, v in gaps.items()))  # fmt: skip
    seconds, code, said = verify(home)
    print(f"\ntabula ratings --verify: {seconds:.1f} s wall, exit {code}: {said}")
    ok = code == 0 and not errors and looked == len(games)
    print(f"\nSUMMARY: {len(games):,} rated {label(args)} games at {len(games) / wall:.2f} "
          f"games/s; rated {lag:.0f} s after the last ended; spread {top:.0f} (strong - weak "
          f"{gaps.get('strong - weak', 0.0):+.0f}); --verify {seconds:.1f} s, exit {code}"
          f"{'' if ok else '; FAILED'}")  # fmt: skip
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=1000, help="rated games played")
    p.add_argument("--players", type=int, default=24, help="players, a third of each strength")
    p.add_argument("--concurrency", type=int, default=20, help="games at a time")
    p.add_argument("--ruleset", default="chess3d")
    p.add_argument("--variant", default="")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--deadline", type=float, default=7200.0, help="seconds for the games")
    p.add_argument("--settle", type=float, default=300.0,
                   help="seconds for every game to be rated once played")  # fmt: skip
    p.add_argument("--home", help="the stack's home, kept (its logs/): default a temporary one")
    args = p.parse_args(argv)
    if args.players < 2:
        p.error("--players: at least 2")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tabula-bench-ratings-") as tmp:
        home = Path(args.home) if args.home else Path(tmp) / "home"
        home.mkdir(parents=True, exist_ok=True)
        with embedded_stack(home) as up:
            print(f"stack up in {time.perf_counter() - started:.0f} s ({os.cpu_count()} cores; "
                  f"load {os.getloadavg()[0]:.2f})", flush=True)  # fmt: skip
            status = asyncio.run(bench(up.stack, home, args))
    print(f"bench-ratings took {time.perf_counter() - started:.0f} s")
    sys.exit(status)


if __name__ == "__main__":
    main()
