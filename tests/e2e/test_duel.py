"""`tabula duel` as a user runs it (issue 24): games between two bot levels, in process, each
result printed as it comes and `score A: X/N` last. No servers: the table runs in process."""

import re
import subprocess
import sys
from pathlib import Path

TABULA = str(Path(sys.executable).parent / "tabula")
GAME = re.compile(r"^game (\d+)/(\d+): seats (.+): (\S+) \((.+)\), (\d+) plies, A (\S+)$")


def duel(*args: str) -> list[str]:
    """The command's output lines; it must succeed without a word on stderr."""
    result = subprocess.run([TABULA, "duel", *args], capture_output=True, text=True,
                            timeout=120, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


def test_a_duel_prints_each_game_then_the_score() -> None:
    """3-D Chess, level 3 against level 1, two games with the seats swapped; cut short early
    (a guard, counted a draw) to keep the test quick."""
    # issue 24 ("prints each result as it comes and ends with the line `score A: X/N`")
    lines = duel("chess3d", "--a", "3", "--b", "1", "--games", "2", "--seed", "1",
                 "--max-plies", "12")  # fmt: skip
    assert len(lines) == 3, lines
    games = [GAME.match(line) for line in lines[:2]]
    assert all(games), lines
    assert [(g[1], g[2]) for g in games if g] == [("1", "2"), ("2", "2")]
    assert [g[3] for g in games if g] == ["A3@0, B1@1", "B1@0, A3@1"]  # seats alternate
    assert all(int(g[6]) <= 12 for g in games if g)
    assert re.fullmatch(r"score A: \d+(\.5)?/2", lines[-1]), lines[-1]


def test_a_yavoch_game_with_chance_and_placement_completes_the_same_each_time() -> None:
    """Captain Decker's Yavoch: dice through the fair-play seeds, the fleets placed by the
    ruleset's own bot; the same seed plays the same game."""
    # Y-3.2, issue 24 ("seeded")
    args = ("yavoch", "--variant", "decker", "--a", "2", "--b", "1", "--games", "1",
            "--seed", "1")  # fmt: skip
    lines = duel(*args)
    assert len(lines) == 2, lines
    game = GAME.match(lines[0])
    assert game, lines[0]
    assert "cut short" not in game[5]
    assert re.fullmatch(r"score A: \d+(\.5)?/1", lines[1]), lines[1]
    assert duel(*args) == lines


def test_a_full_yavoch_game_is_played_from_each_seat_s_view_the_same_each_time() -> None:
    """The Full Yavoch hides the other hand, the pile's order and face-down discards: each level
    chooses from its own seat's view (the search samples the rest), still repeatably."""
    # Y-7.2, Y-7.3, issue 24 ("seeded")
    args = ("yavoch", "--variant", "full", "--a", "2", "--b", "1", "--games", "2",
            "--seed", "2")  # fmt: skip
    lines = duel(*args)
    assert len(lines) == 3, lines
    assert all(GAME.match(line) for line in lines[:2]), lines
    assert duel(*args) == lines


def test_a_cyvasse_game_with_a_hidden_setup_completes() -> None:
    """Cyvasse A: both setups committed and revealed as bots make them, then play to the end."""
    # CY-3, issue 24
    lines = duel("cyvasse", "--variant", "A", "--a", "2", "--b", "1", "--games", "1",
                 "--seed", "1")  # fmt: skip
    assert len(lines) == 2, lines
    game = GAME.match(lines[0])
    assert game, lines[0]
    assert "cut short" not in game[5]
    assert lines[1] in ("score A: 0/1", "score A: 0.5/1", "score A: 1/1")


def test_an_unknown_ruleset_is_one_line_and_exit_2() -> None:
    result = subprocess.run([TABULA, "duel", "chess4d", "--a", "1", "--b", "1"],
                            capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert result.returncode == 2
    assert result.stdout == ""
    assert "chess4d" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
