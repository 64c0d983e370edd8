"""Issue 24's ladder (tests.bench.ladder) as its runner uses it: games into a results file, a
second run that resumes and plays nothing, the table; and the interval its cells give."""

import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from tests.bench.ladder import cell, wilson, with_table

ROOT = Path(__file__).resolve().parents[2]
GAME = re.compile(r"^\[1v1 3-D Chess\] game ([12])/2: A@([01]): 1/2-1/2 \(cut short at 6 plies")


def ladder(results: Path, *args: str) -> list[str]:
    """The bench's output lines on two tiny 3-D Chess games; it must succeed silently on stderr."""
    result = subprocess.run(
        [sys.executable, "-m", "tests.bench.ladder", "--ruleset", "chess3d", "--pairs", "1v1",
         "--games", "2", "--max-plies", "6", "--jobs", "2", "--results", str(results), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


def test_games_are_stored_then_resumed_then_tabulated(tmp_path: Path) -> None:
    # issue 24 ("seats alternating", each pair "with its 95% interval")
    results = tmp_path / "ladder.jsonl"
    first = ladder(results)
    assert first[0] == f"2 games to play, 0 already in {results}; 2 workers"
    games = sorted(m.groups() for m in map(GAME.match, first) if m)
    assert games == [("1", "0"), ("2", "1")], first  # each game's line, A's seat alternating
    stored = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted((r["game"], r["a_seats"], r["share"], r["plies"]) for r in stored) == [
        (0, [0], "1/2", 6), (1, [1], "1/2", 6)]  # fmt: skip
    assert {(r["ruleset"], r["a"], r["b"], r["seed"], r["max_plies"]) for r in stored} == {
        ("chess3d", 1, 1, 0, 6)}  # fmt: skip
    assert len({r["bots_tag"] for r in stored}) == 1

    again = ladder(results)
    assert again[0] == f"0 games to play, 2 already in {results}; 2 workers"
    assert not any(map(GAME.match, again))
    assert len(results.read_text().splitlines()) == 2

    table = ladder(results, "--table")
    assert "| 3-D Chess (`chess3d`) | 50.0% [9–91] (2) | 0.0 h |" in table, table
    assert any("--pairs 1v1 --games 2 --seed 0 --max-plies 6" in line for line in table)


def test_the_interval_is_wilsons_and_a_cell_says_pass_fail_or_incomplete() -> None:
    assert wilson(40, 40)[0] == pytest.approx(0.912, abs=0.001)
    assert wilson(20, 40) == pytest.approx((0.352, 0.648), abs=0.001)
    assert cell([Fraction(1)] * 40, 40, 0.9) == "100.0% [91–100] (40) pass"
    assert cell([Fraction(1, 2)] * 40, 40, 0.6) == "50.0% [35–65] (40) **fail**"
    assert cell([Fraction(1)] * 12, 40, 0.6) == "100.0% [76–100] (12) incomplete, 12/40"
    assert cell([], 40, 0.6) == "–"


def test_the_table_goes_between_its_markers_in_the_readme() -> None:
    readme = "# T\n\n## Performance\n\n### Ratings\n\ntext\n\n## Documentation\n\n- docs\n"
    first = with_table(readme, "| old |")
    assert first == (
        "# T\n\n## Performance\n\n### Ratings\n\ntext\n\n"
        "### The bots' ladder (`make bench-ladder`, issue 24)\n\n"
        "<!-- ladder -->\n| old |\n<!-- /ladder -->\n\n## Documentation\n\n- docs\n"
    )
    assert with_table(first, "| new |") == first.replace("| old |", "| new |")
