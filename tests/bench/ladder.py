"""Issue 24's ladder of bot levels: for each ruleset, games between pairs of levels, seats
alternating, and each pair's score with its 95% interval against the targets.

- Rulesets (`--ruleset NAME[:VARIANT]`, repeatable; default the nine of LADDER): 3-D Chess,
  Cyvasse A and C, Yavoch decker and full, Yiora primary and secondary basic, Spacewar
  (`turn_limit=20`) and Spacewar H/A (`turn_limit=100`), the turn limits of tests.bench.bots and
  tests.long.run (random play rarely ends a Spacewar game). A NAME alone selects LADDER's
  variants of it (`cyvasse`: A and C), or its default variant when LADDER has none.
- Pairs (`--pairs`, default `3v1,2v1,3v2,4v3,5v4`): `AvB`, side A at level A. Targets: 3v1
  scores ≥ 90%, and each level ≥ 60% against the one below; other pairs have none.
- `--games N` (default 40) a pair, game g (from 0) played exactly as `tabula duel` plays it
  (services.cli.duel.DuelGame, seeded by `--seed` and g; A at seat 0 in even games): game g is
  the last of `tabula duel R --variant V --a A --b B --seed S --max-plies M --games g+1`, and
  the lines here number games from 1 as the duel's do.
- Games run in `--jobs` worker processes (default: every core), cheapest pairs first (the
  order of `--pairs`), each line printed as its game ends with the pair's and the run's
  progress. Each finished game is appended as one JSON line to `--results` (default
  tests/bench/ladder.jsonl: beside this bench rather than in .tabula/, which `make clean`
  removes, so a later session, or a later checkout of a committed file, resumes). A line holds
  the ruleset, variant, levels, game, seed, max plies, A's seats and share, result, reason, plies,
  seconds, its end (UTC) and the bots' tag (`bots_tag`). Games already in the file with the
  same key and tag are not played again; Ctrl-C stops the workers and keeps every line written
  (each is one unbuffered write to a regular file, which a signal does not split).
- The bots' tag (`bots_tag`) of a game: a hash of the ruleset's code tag and of the pair's two
  levels (their budgets: LEVELS). The code tag is a hash of the code (its syntax tree, without
  comments or docstrings) of the levels (LEVELS and COSTLY aside) and the search, of the
  functions that help the ruleset's search (their names and their modules' code), and of its
  playouts' length and COSTLY's value for it. Not of the rules.
  Lines of another tag are from different bots: ignored, and counted in the report. A change
  to one level's budget leaves the pairs without it as they were.
- The table (`--table` prints it without playing; `--readme` writes it into README.md between
  `<!-- ladder -->` and `<!-- /ladder -->`, added at the end of the Performance section when
  absent; a run prints it last): a row per ruleset and variant, a column per pair with
  `score% [lo–hi] (n)`, A's mean share (win 1, draw 1/2, a game cut at `--max-plies` a draw)
  and its 95% Wilson score interval over n games. A share lies in [0, 1] and, for a given
  mean p, its variance is at most p(1 - p), a win-or-loss game's, so treating the summed share
  as successes of n Bernoulli trials is conservative when there are draws. A pair with fewer
  than `--games` games is marked incomplete; a complete one passes or fails on its point
  estimate (not its interval). Spacewar rows add the share of games that reached the turn
  limit (reason "turn limit", SW-8.4 and HA-8.4), over all their pairs and per pair.

Run (`make bench-ladder`): .venv/bin/python -m tests.bench.ladder
Smoke: .venv/bin/python -m tests.bench.ladder --ruleset chess3d --pairs 1v1 --games 2
       --max-plies 20 --results /tmp/ladder.jsonl
"""

import argparse
import ast
import hashlib
import inspect
import math
import multiprocessing
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist
from types import ModuleType

import msgspec

from domain.core import VariantError
from domain.registry import find_ruleset
from domain.search import levels as search_levels
from domain.search import mcts
from domain.search.help import help_for
from domain.search.levels import COSTLY, LEVELS, level
from services.cli.duel import MAX_PLIES, DuelGame, a_seats, a_share, show

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tests" / "bench" / "ladder.jsonl"
README = ROOT / "README.md"
START, END = "<!-- ladder -->", "<!-- /ladder -->"
SECTION = "### The bots' ladder (`make bench-ladder`, issue 24)"
TURN_LIMIT = "turn limit"  # the reason of a game drawn by its turn limit (SW-8.4, HA-8.4)
Z95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True, slots=True)
class Entry:
    """A row of the ladder: a ruleset, its variant string and the row's name."""

    ruleset: str
    variant: str
    label: str


LADDER = (
    Entry("chess3d", "", "3-D Chess"),
    Entry("cyvasse", "A", "Cyvasse A"),
    Entry("cyvasse", "C", "Cyvasse C"),
    Entry("yavoch", "decker", "Yavoch decker"),
    Entry("yavoch", "full", "Yavoch full"),
    Entry("yiora", "primary", "Yiora primary"),
    Entry("yiora", "secondary_basic", "Yiora secondary basic"),
    Entry("spacewar", "turn_limit=20", "Spacewar"),
    Entry("spacewar-ha", "turn_limit=100", "Spacewar H/A"),
)
TURN_LIMITED = frozenset({"spacewar", "spacewar-ha"})
PAIRS = ((3, 1), (2, 1), (3, 2), (4, 3), (5, 4))
GAMES = 40


def target(pair: tuple[int, int]) -> float | None:
    """The score issue 24 asks of a pair: 90% for level 3 against random play, 60% for a
    level against the one below; None for any other pair."""
    if pair == (3, 1):
        return 0.9
    return 0.6 if pair[0] == pair[1] + 1 else None


class Record(msgspec.Struct, frozen=True):
    """One finished game, a line of the results file. `game` counts from 0, as DuelGame's."""

    ruleset: str
    variant: str
    a: int
    b: int
    game: int
    seed: int
    max_plies: int
    a_seats: tuple[int, ...]
    share: str  # A's share of the points, exact: "1", "1/2", "0"
    result: str
    reason: str
    plies: int
    cut: bool
    seconds: float
    ended: str
    bots_tag: str


@dataclass(frozen=True, slots=True)
class Task:
    """A game to play, and the key it is stored under."""

    entry: Entry
    a: int
    b: int
    game: int
    seed: int
    max_plies: int
    bots_tag: str


Key = tuple[str, str, int, int, int, int, int, str]


def key_of(game: Record | Task) -> Key:
    ruleset, variant = (game.entry.ruleset, game.entry.variant) if isinstance(game, Task) else (
        game.ruleset, game.variant)  # fmt: skip
    return (ruleset, variant, game.a, game.b, game.game, game.seed, game.max_plies, game.bots_tag)


# -- the bots' tag ----------------------------------------------------------------------------


def _assigned(node: ast.stmt) -> set[str]:
    """The names a top-level statement assigns to (none unless it is an assignment)."""
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return set()


def code_of(module: ModuleType, without: frozenset[str] = frozenset()) -> str:
    """A module's syntax tree without docstrings: a comment or a reworded docstring leaves it.
    Its top-level assignments to the names `without` are left out too."""
    tree = ast.parse(inspect.getsource(module))
    tree.body = [node for node in tree.body if not _assigned(node) & without]
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):  # fmt: skip
            del body[0]
    return ast.dump(tree)


def code_tag(ruleset: str) -> str:
    """What decides the bots' moves in `ruleset`, but the levels' budgets: the levels' code
    and the search, and which functions help its search, with their modules' code, and its
    playouts' length and COSTLY's value. The table of help (help.py) and COSTLY's entries for
    other rulesets are left out, so that a change for one ruleset keeps the others'."""
    aid = help_for(find_ruleset(ruleset))
    helpers = {role: fn for role, fn in (("evaluate", aid.evaluate), ("order", aid.order),
               ("determinize", aid.determinize)) if fn is not None}  # fmt: skip
    modules = {search_levels, mcts} | {
        m for m in map(inspect.getmodule, helpers.values()) if m is not None
    }
    names = [(role, fn.__module__, getattr(fn, "__qualname__", type(fn).__qualname__))
             for role, fn in helpers.items()]  # fmt: skip
    # The playout's length is the table's, which is left out, and COSTLY names every ruleset:
    # their values for this ruleset count instead.
    digest = hashlib.sha256(repr((names, aid.playout, COSTLY.get(ruleset))).encode())
    for module in sorted(modules, key=lambda m: m.__name__):
        without = frozenset({"LEVELS", "COSTLY"}) if module is search_levels else frozenset()
        digest.update(f"\0{module.__name__}\0{code_of(module, without)}".encode())
    return digest.hexdigest()[:12]


def bots_tag(code: str, a: int, b: int) -> str:
    """A game's bots: the ruleset's code tag and the budgets of the pair's levels."""
    return hashlib.sha256(f"{code}\0{level(a)!r}\0{level(b)!r}".encode()).hexdigest()[:12]


Tags = dict[tuple[str, int, int], str]  # (ruleset, a, b) -> the bots' tag of its games


def tags_of(
    entries: Sequence[Entry], pairs: Sequence[tuple[int, int]]
) -> tuple[dict[str, str], Tags]:
    """The code tag of each ruleset, and the bots' tag of each of its pairs."""
    codes = {e.ruleset: code_tag(e.ruleset) for e in entries}
    return codes, {(r, a, b): bots_tag(c, a, b) for r, c in codes.items() for a, b in pairs}


# -- playing ------------------------------------------------------------------------------------


def ignore_sigint() -> None:
    """A worker leaves Ctrl-C to the parent, which terminates it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def play(task: Task) -> Record | str:
    """A task's game in a worker: its record, or the error of a refused action (a bug)."""
    rs = find_ruleset(task.entry.ruleset)
    seats = rs.create(task.entry.variant).seats
    mine = a_seats(task.game, seats)
    levels = [level(task.a if s in mine else task.b) for s in range(seats)]
    start = time.perf_counter()
    try:
        played = DuelGame(rs, task.entry.variant, task.seed, task.game, levels).play(task.max_plies)
    except RuntimeError as exc:
        return f"{task.entry.label} {task.a}v{task.b} game {task.game + 1}: {exc}"
    return Record(
        ruleset=task.entry.ruleset, variant=task.entry.variant, a=task.a, b=task.b,
        game=task.game, seed=task.seed, max_plies=task.max_plies, a_seats=mine,
        share=str(a_share(played.scores, mine)), result=played.result, reason=played.reason,
        plies=played.plies, cut=played.cut, seconds=round(time.perf_counter() - start, 3),
        ended=datetime.now(UTC).isoformat(timespec="seconds"), bots_tag=task.bots_tag,
    )  # fmt: skip


def load(path: Path) -> list[Record]:
    """Every line of the results file (none when it does not exist)."""
    if not path.exists():
        return []
    decoder = msgspec.json.Decoder(Record)
    records = []
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        try:
            records.append(decoder.decode(line))
        except msgspec.DecodeError as exc:
            raise SystemExit(f"{path}:{number}: not a ladder line: {exc}") from None
    return records


def elapsed(since: float) -> str:
    return str(timedelta(seconds=int(time.monotonic() - since)))


def run(tasks: Sequence[Task], done: Counter[tuple[Entry, int, int]], games: int, path: Path,
        jobs: int) -> int:  # fmt: skip
    """Play `tasks` in `jobs` workers, appending each record to `path` as it comes; the
    number of games that failed (a refused action). Ctrl-C terminates the workers."""
    total = sum(done.values()) + len(tasks)
    pending = {key_of(t): t for t in tasks}
    start, failed = time.monotonic(), 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab", buffering=0) as out, multiprocessing.Pool(jobs, ignore_sigint) as pool:
        try:
            for record in pool.imap_unordered(play, tasks):
                if isinstance(record, str):
                    failed += 1
                    print(f"FAILED {record}", flush=True)
                    continue
                out.write(msgspec.json.encode(record) + b"\n")  # one write: a whole line
                task = pending.pop(key_of(record))
                pair = (task.entry, task.a, task.b)
                done[pair] += 1
                seats = ",".join(map(str, record.a_seats))
                print(f"[{task.a}v{task.b} {task.entry.label}] game {task.game + 1}/{games}: "
                      f"A@{seats}: {record.result} ({record.reason}), {record.plies} plies, "
                      f"A {show(Fraction(record.share))}, {record.seconds:.1f} s | pair "
                      f"{done[pair]}/{games}, all {sum(done.values())}/{total}, "
                      f"{elapsed(start)}", flush=True)  # fmt: skip
        except KeyboardInterrupt:
            pool.terminate()
            print(f"interrupted after {elapsed(start)}: {len(pending)} games left to play; "
                  f"{path} keeps every finished game", flush=True)  # fmt: skip
            raise
    return failed


# -- the table ----------------------------------------------------------------------------------


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (here a mean share) over n trials."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def cell(shares: Sequence[Fraction], games: int, goal: float | None) -> str:
    """A pair's cell: `score% [lo–hi] (n)`, then pass/fail, or how incomplete it is."""
    if not shares:
        return "–"
    n = len(shares)
    mean = float(sum(shares, Fraction(0))) / n
    lo, hi = wilson(mean * n, n)
    text = f"{100 * mean:.1f}% [{100 * lo:.0f}–{100 * hi:.0f}] ({n})"
    if n < games:
        return f"{text} incomplete, {n}/{games}"
    if goal is None:
        return text
    return f"{text} {'pass' if mean >= goal else '**fail**'}"


def turn_limits(rows: dict[tuple[int, int], list[Record]]) -> str:
    """The share of a row's games drawn by the turn limit, overall then per pair."""
    games = [r for records in rows.values() for r in records]
    if not games:
        return "–"
    share = sum(r.reason == TURN_LIMIT for r in games) / len(games)
    each = ", ".join(
        f"{a}v{b} {100 * sum(r.reason == TURN_LIMIT for r in rs) / len(rs):.0f}%"
        for (a, b), rs in rows.items() if rs
    )  # fmt: skip
    return f"{100 * share:.0f}% of {len(games)} ({each})"


def command(args: argparse.Namespace) -> str:
    """The command that plays the table's games (its defaults as `make bench-ladder`)."""
    words = [".venv/bin/python -m tests.bench.ladder"]
    if args.ruleset:
        words += [f"--ruleset {spec}" for spec in args.ruleset]
    if args.pairs != PAIRS:
        words.append("--pairs " + ",".join(f"{a}v{b}" for a, b in args.pairs))
    words += [f"--games {args.games}", f"--seed {args.seed}"]
    if args.max_plies != MAX_PLIES:
        words.append(f"--max-plies {args.max_plies}")
    return " ".join(words)


def table(records: Sequence[Record], entries: Sequence[Entry], args: argparse.Namespace,
          codes: dict[str, str], tags: Tags) -> str:  # fmt: skip
    """The markdown table of the selected games, then how it was made and read."""
    wanted = {(e.ruleset, e.variant): e for e in entries}
    rows: dict[Entry, dict[tuple[int, int], list[Record]]] = {
        e: {p: [] for p in args.pairs} for e in entries
    }
    for r in records:
        entry = wanted.get((r.ruleset, r.variant))
        if (entry is not None and (r.a, r.b) in rows[entry] and r.game < args.games
                and r.seed == args.seed and r.max_plies == args.max_plies
                and r.bots_tag == tags[(r.ruleset, r.a, r.b)]):  # fmt: skip
            rows[entry][(r.a, r.b)].append(r)
    limited = any(e.ruleset in TURN_LIMITED for e in entries)
    heads = [f"{a}v{b}" + (f" (≥ {100 * g:.0f}%)" if (g := target((a, b))) else "")
             for a, b in args.pairs]  # fmt: skip
    heads = ["ruleset (variant)", *heads, *(["turn limit reached"] if limited else []), "time"]
    lines = ["| " + " | ".join(heads) + " |", "|" + " --- |" * len(heads)]
    for entry, pairs in rows.items():
        cells = [f"{entry.label} (`{entry.ruleset}`" + (f" `{entry.variant}`)" if entry.variant
                 else ")")]  # fmt: skip
        cells += [cell([Fraction(r.share) for r in pairs[p]], args.games, target(p))
                  for p in args.pairs]  # fmt: skip
        if limited:
            cells.append(turn_limits(pairs) if entry.ruleset in TURN_LIMITED else "")
        seconds = sum(r.seconds for rs in pairs.values() for r in rs)
        cells.append(f"{seconds / 3600:.1f} h")
        lines.append("| " + " | ".join(cells) + " |")
    tag_text = ", ".join(f"{name} {tag}" for name, tag in sorted(codes.items()))
    budgets = ", ".join(f"{lv.number} {lv.iterations}/{lv.playout_limit}" for lv in LEVELS)
    cuts = {e.ruleset: help_for(find_ruleset(e.ruleset)).playout for e in entries}
    for plies in sorted({p for p in cuts.values() if p}):
        names = ", ".join(name for name, p in sorted(cuts.items()) if p == plies)
        budgets += f"; playouts of {plies} plies at every level in {names}"
    note = (
        f"`{command(args)}` ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC; the bots' code tags: "
        f"{tag_text}; levels' iterations/playout plies: {budgets}). "
        "A cell: side A's mean share of the points (win 1, draw 1/2; a game cut at "
        f"{args.max_plies} plies is a draw), seats alternating, its 95% Wilson score interval "
        "(conservative with draws) and the games (n); pass or fail on the point estimate "
        "against the column's target, once the pair has all its games. Time: the games' "
        "seconds summed, over all workers."
    )
    lines += ["", note]
    return "\n".join(lines)


def with_table(readme: str, text: str) -> str:
    """README's text with `text` between the ladder's markers, the markers put at the end of
    the Performance section (before the next `## ` heading) under their own heading when
    absent."""
    block = f"{START}\n{text}\n{END}"
    if START in readme and END in readme:
        head, _, rest = readme.partition(START)
        return head + block + rest.partition(END)[2]
    lines = readme.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if line.startswith("## Performance")), None)
    end = len(lines)
    if at is not None:
        end = next((i for i in range(at + 1, end) if lines[i].startswith("## ")), end)
    before = "".join(lines[:end]).rstrip("\n")
    return f"{before}\n\n{SECTION}\n\n{block}\n\n" + "".join(lines[end:])


# -- the command --------------------------------------------------------------------------------


def entries_of(specs: Sequence[str]) -> list[Entry]:
    """The rows `--ruleset` names (see the module's docstring); all of LADDER for none."""
    if not specs:
        return list(LADDER)
    entries: list[Entry] = []
    for spec in specs:
        name, colon, variant = spec.partition(":")
        if colon:
            known = [e for e in LADDER if (e.ruleset, e.variant) == (name, variant)]
            found = known or [Entry(name, variant, spec)]
        else:
            found = [e for e in LADDER if e.ruleset == name] or [Entry(name, "", name)]
        entries += [e for e in found if e not in entries]
    return entries


def pairs_of(text: str) -> tuple[tuple[int, int], ...]:
    """`3v1,2v1` as ((3, 1), (2, 1)), every level checked."""
    pairs = []
    for item in text.split(","):
        a, _, b = item.strip().partition("v")
        try:
            pairs.append((level(int(a)).number, level(int(b)).number))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{item!r} is not a pair AvB of levels") from None
    return tuple(pairs)


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.ladder",
                                     description="Issue 24's ladder of bot levels.")  # fmt: skip
    parser.add_argument(
        "--ruleset",
        action="append",
        default=[],
        metavar="NAME[:VARIANT]",
        help="a ruleset, or one variant of it (repeatable; default all nine)",
    )
    parser.add_argument(
        "--pairs",
        type=pairs_of,
        default=PAIRS,
        help="pairs of levels AvB, comma-separated (default 3v1,2v1,3v2,4v3,5v4)",
    )
    parser.add_argument("--games", type=int, default=GAMES, help="games a pair (default 40)")
    parser.add_argument(
        "--max-plies",
        type=int,
        default=MAX_PLIES,
        help=f"game actions before a game is a draw (default {MAX_PLIES})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds every game, as duel's --seed")
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: every core)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=RESULTS,
        help="the JSON lines file of finished games (default %(default)s)",
    )
    parser.add_argument("--table", action="store_true", help="print the table, play nothing")
    parser.add_argument("--readme", action="store_true",
                        help="write the table into README.md, play nothing")  # fmt: skip
    args = parser.parse_args(argv)
    if min(args.games, args.max_plies, args.jobs) < 1 or args.seed < 0:
        parser.error("--games, --max-plies and --jobs are at least 1, --seed at least 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    entries = entries_of(args.ruleset)
    for entry in entries:
        try:
            find_ruleset(entry.ruleset).create(entry.variant)
        except VariantError as exc:
            raise SystemExit(f"--ruleset {entry.ruleset}:{entry.variant}: {exc.reason}") from None
    codes, tags = tags_of(entries, args.pairs)
    records = load(args.results)
    failed = 0
    if not (args.table or args.readme):
        failed = play_missing(records, entries, args, tags)
        records = load(args.results)
    text = table(records, entries, args, codes, tags)
    print(text)
    if args.readme:
        README.write_text(with_table(README.read_text(), text))
        print(f"written into {README}")
    return 1 if failed else 0


def play_missing(records: Sequence[Record], entries: Sequence[Entry], args: argparse.Namespace,
                 tags: Tags) -> int:  # fmt: skip
    """Play the selected games not yet in the results file; the number that failed."""
    have = {key_of(r) for r in records}
    stale = sum(r.bots_tag != tags.get((r.ruleset, r.a, r.b), r.bots_tag) for r in records)
    tasks, done = [], Counter[tuple[Entry, int, int]]()
    for a, b in args.pairs:
        for entry in entries:
            for game in range(args.games):
                task = Task(
                    entry, a, b, game, args.seed, args.max_plies, tags[(entry.ruleset, a, b)]
                )
                if key_of(task) in have:
                    done[(entry, a, b)] += 1
                else:
                    tasks.append(task)
    print(f"{len(tasks)} games to play, {sum(done.values())} already in {args.results}"
          + (f" ({stale} lines of other bots' tags ignored)" if stale else "")
          + f"; {args.jobs} workers", flush=True)  # fmt: skip
    if not tasks:
        return 0
    return run(tasks, done, args.games, args.results, args.jobs)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
