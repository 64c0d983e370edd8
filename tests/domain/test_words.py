"""Plain words for the game page (issue 23): every ruleset names its sides and words every reason
its games can end by, and the sentences read as a person says them ("You lost: your Command
ship ran out of energy", not "Result 0-1 (dead_command_ship)")."""

import ast
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from contracts.events import GameCreated, SeedCommitted
from domain import fairplay
from domain.core import Rejection
from domain.core import table as tables
from domain.core.ruleset import random_setup_of
from domain.core.words import (
    PLATFORM_REASONS,
    RulesetWords,
    Words,
    describe,
    describe_outcome,
    to_move,
    unknown,
    you_play,
)
from domain.registry import RULESETS, find_ruleset
from domain.words import WORDS, words_for
from services.client.bot import greedy_policy
from tests.rulesets.driver import LocalGame, client_seed

DOMAIN = Path(__file__).resolve().parents[2] / "domain"
PACKAGES = {
    "chess3d": "chess3d",
    "cyvasse": "cyvasse",
    "yavoch": "yavoch",
    "yiora": "yiora",
    "spacewar": "spacewar",
    "spacewar-ha": "spacewar_ha",
}
NAMES2 = ["Ann", "Bob"]
NAMES4 = ["Ann", "Bob", "Cy", "Di"]


def created(ruleset: str, variant: str = "") -> GameCreated:
    return find_ruleset(ruleset).create(variant)


# -- every ruleset has words ------------------------------------------------------------------


def test_every_registered_ruleset_has_words() -> None:  # issue 23
    # Every shipped ruleset (tests register rulesets of their own, e.g. the race, beside them)
    assert set(WORDS) == set(PACKAGES) <= set(RULESETS)
    assert words_for("no-such-ruleset").side(created("chess3d"), 1) == "Seat 2"


# The variants whose seats the page names: every seat count and team layout there is.
SEATINGS = [
    ("chess3d", "", ("White", "Black")),  # C3-3.1, C3-R27
    ("cyvasse", "A", ("White", "Black")),  # CY-3.7
    ("cyvasse", "C+hex91", ("White", "Black")),  # CY-3.7
    ("yavoch", "decker", ("Player one", "Player two")),  # Y-0.2
    ("yavoch", "full", ("Player one", "Player two")),  # Y-0.2
    ("yiora", "", ("White", "Black")),  # YI-0.1
    ("yiora", "secondary_basic", ("White", "Black", "Gold", "Silver")),  # YI-8.3
    (
        "yiora",
        "secondary_complex",
        ("Player 1 (White and Gold)", "Player 2 (Black and Silver)"),  # YI-8.4, YI-R23
    ),
    (
        "yiora",
        "secondary_complex+teams",
        ("Team 1 (White and Gold)", "Team 2 (Black and Silver)") * 2,  # YI-8.4, seats.py
    ),
    ("spacewar", "", ("White", "Black")),  # SW-0.1
    ("spacewar-ha", "", ("White", "Black")),  # HA-0.1
]


@pytest.mark.parametrize(("ruleset", "variant", "sides"), SEATINGS)
def test_each_seat_is_named_as_the_rules_name_its_side(
    ruleset: str, variant: str, sides: tuple[str, ...]
) -> None:
    game = created(ruleset, variant)
    assert game.seats == len(sides)
    assert tuple(words_for(ruleset).side(game, seat) for seat in range(game.seats)) == sides


# -- (a) every reason code a ruleset's source can produce has words ---------------------------

# The outcome builders and where their reason argument is (domain/core/outcome.py).
_REASON_ARG = {"win": 1, "lose": 1, "draw": 0, "Outcome": 1, "scored": 1}


def _call_name(node: ast.Call) -> str:
    """A plain function's name, or `outcome.<name>` (the module); never a method's (Yavoch's
    `run.draw` draws at random)."""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.attr if func.value.id == "outcome" else ""
    return ""


def _strings(node: ast.AST, scope: ast.AST, functions: dict[str, ast.AST]) -> Iterator[str]:
    """The string constants an expression can evaluate to: literals, both arms of a
    conditional, a local variable's assignments in `scope`, and the strings a module function
    returns (`material_draw`); a parameter or any other computed value yields nothing."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.IfExp):
        yield from _strings(node.body, scope, functions)
        yield from _strings(node.orelse, scope, functions)
    elif isinstance(node, ast.Name):
        for assign in ast.walk(scope):
            if isinstance(assign, ast.Assign | ast.NamedExpr):
                targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
                if any(isinstance(t, ast.Name) and t.id == node.id for t in targets):
                    yield from _strings(assign.value, scope, functions)
    elif isinstance(node, ast.Call) and _call_name(node) in functions:
        for ret in ast.walk(functions[_call_name(node)]):
            if isinstance(ret, ast.Return) and ret.value is not None:
                yield from _strings(ret.value, scope, functions)


def source_reasons(path: Path) -> set[str]:
    """The reason codes literally given to `win`, `lose`, `draw`, `Outcome` and `scored` in a
    module."""
    tree = ast.parse(path.read_text())
    functions: dict[str, ast.AST] = {
        f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
    }
    found: set[str] = set()
    scopes = [tree, *functions.values()]
    for scope in scopes:
        body = scope.body if isinstance(scope, ast.Module | ast.FunctionDef) else []
        for statement in body:
            if isinstance(statement, ast.FunctionDef) and scope is tree:
                continue  # walked as a scope of its own
            for node in ast.walk(statement):
                if not isinstance(node, ast.Call) or _call_name(node) not in _REASON_ARG:
                    continue
                position = _REASON_ARG[_call_name(node)]
                args = [k.value for k in node.keywords if k.arg == "reason"]
                if len(node.args) > position:
                    args.append(node.args[position])
                for arg in args:
                    found |= set(_strings(arg, scope, functions))
    return found


def package_reasons(package: str) -> set[str]:
    return set().union(*(source_reasons(p) for p in sorted((DOMAIN / package).glob("*.py"))))


def test_the_source_scan_finds_the_codes_it_should() -> None:
    """The scan itself, on codes reached through a variable, a conditional and a helper."""
    assert {"dead_command_ship", "lost_fleet"} <= package_reasons("yavoch")  # Y-8.3, Y-8.4
    assert {"timeout", "illegal_setup"} <= package_reasons("cyvasse")  # forfeit (fair-play 3)
    assert {"insufficient_material", "depleted_equal"} <= package_reasons("chess3d")  # C3-7.3/4
    assert {"perpetual_check", "repetition"} <= package_reasons("chess3d")  # C3-7.5.3


def test_the_platform_reasons_have_words() -> None:
    """domain/core: agreement.py (resignation, agreement) and table.py (timeout, and a loss
    on a clock: time, time_vs_insufficient_material), which any ruleset's game may end by."""
    found = package_reasons("core")
    assert {"agreement", "resignation", "timeout"} <= found
    assert found <= set(PLATFORM_REASONS)


@pytest.mark.parametrize(("ruleset", "package"), sorted(PACKAGES.items()))
def test_every_reason_in_a_rulesets_source_has_words(ruleset: str, package: str) -> None:
    """Every code a ruleset's own code gives an outcome (issue 23); clause cited beside each
    in its words.py."""
    words = words_for(ruleset)
    codes = package_reasons(package)
    assert codes, f"no reason found in domain/{package}"
    assert {code for code in codes if not words.knows(code)} == set()


EXPECTED_CODES = {  # what each package's source produces (a new code must be worded)
    "chess3d": {"checkmate", "stalemate", "insufficient_material", "depleted_equal",
                "repetition", "perpetual_check", "fifty_moves"},  # C3-7.1 to C3-7.6
    "cyvasse": {"checkmate", "stalemate", "king_captured", "repetition", "no_progress",
                "no_moves", "insufficient_material", "timeout", "illegal_setup"},  # CY-7
    "yavoch": {"command_ship_destroyed", "command_ships_destroyed",
               "surviving_command_ship_without_energy", "dead_command_ship", "lost_fleet",
               "both_lost", "immobilized", "turn_limit", "timeout"},  # Y-8
    "yiora": {"checkmate", "stalemate", "insufficient_material", "repetition", "no_capture",
              "resignation"},  # YI-7
    "spacewar": {"motherships", "turn limit", "dead position"},  # SW-8, SW-R58
    "spacewar_ha": {"bases", "double pass", "turn limit"},  # HA-8
}  # fmt: skip


@pytest.mark.parametrize("package", sorted(EXPECTED_CODES))
def test_the_source_scan_lists_each_rulesets_codes(package: str) -> None:
    # issue 23: the list the report gives, held to the source
    assert package_reasons(package) == EXPECTED_CODES[package]


# Random games to their end, per ruleset and variant (the seats' choices seeded): each code
# they end by must have words. ~20 games each; a variant with a turn limit ends the long ones.
GAMES = [
    ("chess3d", "", 20),
    ("cyvasse", "A", 20),
    ("cyvasse", "A+hex91", 8),
    ("cyvasse", "B", 20),
    ("cyvasse", "C", 20),
    ("yavoch", "decker+turn_limit=40", 12),
    ("yavoch", "decker+turn_limit=10", 6),
    ("yavoch", "full", 20),
    ("yiora", "", 20),
    ("yiora", "primary+stalemate_result=loss", 10),
    ("yiora", "secondary_basic", 20),
    ("yiora", "secondary_complex", 20),
    ("yiora", "secondary_complex+teams+complex_turn_mode=parallel", 10),
    ("spacewar", "turn_limit=3", 8),
    ("spacewar-ha", "", 20),
    ("spacewar-ha", "turn_limit=5", 6),
]
MAX_ACTIONS = 1500


def _start(ruleset: str, variant: str, rng: random.Random, game_id: str) -> LocalGame:
    """A game at a table with a time per move (so a waiting seat may claim it), its seeds and
    hidden setups done."""
    rs = find_ruleset(ruleset)
    first = msgspec.structs.replace(rs.create(variant), game_id=game_id, move_deadline_ms=1000)
    server_seed = rng.randbytes(32).hex()
    game = LocalGame(tables.open_table(rs, game_id, first), server_seed, [first])
    if first.randomness:
        game.apply([SeedCommitted(commitment=fairplay.seed_commitment(server_seed))])
        game.seed([client_seed(rng) for _ in range(first.seats)])
    if first.hidden_setup:
        maker = random_setup_of(rs)
        assert maker is not None
        setups = [maker.random_setup(game.table.game, s, rng.randrange) for s in range(2)]
        game.set_up(setups, [rng.randbytes(32).hex() for _ in range(2)])
    return game


def play_to_end(ruleset: str, variant: str, seed: int) -> tuple[GameCreated, Any] | None:
    """One game, its actions the greedy bot's; one game in five ends early, in turn, by a
    resignation, a draw offered and accepted, or a timeout claimed (the platform's reasons).
    None if it has not ended within MAX_ACTIONS."""
    rng = random.Random(seed)
    game = _start(ruleset, variant, rng, f"words-{ruleset}-{seed}")
    rs = game.table.ruleset
    early = rng.randrange(10, 60) if seed % 5 == 4 else -1
    way = (seed // 5) % 3
    for ply in range(MAX_ACTIONS):
        if tables.outcome(game.table) is not None:
            break
        acting = sorted(tables.to_act(game.table))
        seat = acting[rng.randrange(len(acting))]
        if ply == early and _end_early(game, seat, way):
            continue
        action = greedy_policy(rs, game.table.game, seat, rng)
        assert action is not None, f"{ruleset} {variant}: seat {seat} has nothing to play"
        game.must(seat, rs.format_action(game.table.game, action))
    outcome = tables.outcome(game.table)
    return None if outcome is None else (game.table.created, outcome)


def _end_early(game: LocalGame, seat: int, way: int) -> bool:
    """Resign, agree a draw, or claim a timeout from `seat`; whether anything was appended (a
    ruleset may refuse, e.g. an offer off one's turn)."""
    if way == 0:
        return not isinstance(game.act(seat, "resign"), Rejection)
    seats = range(game.table.created.seats)
    if way == 1:
        if isinstance(game.act(seat, "offer-draw"), Rejection):
            return False
        for other in seats:
            if tables.outcome(game.table) is None and other != seat:
                game.act(other, "accept-draw")
        return True
    waiting = [s for s in seats if s not in tables.to_act(game.table)]
    if not waiting:
        return False
    decision = tables.decide(game.table, waiting[0], "claim-timeout", idle_ms=1000)
    if isinstance(decision, Rejection):
        return False
    assert isinstance(decision, tuple)  # a claim draws nothing
    game.apply(decision)
    return True


def test_every_reason_random_games_end_by_has_words() -> None:
    """issue 23: whatever the games end by, the page has words for it, for every seat."""
    seen: dict[str, set[str]] = {}
    for ruleset, variant, count in GAMES:
        words = words_for(ruleset)
        for seed in range(count):
            ended = play_to_end(ruleset, variant, seed)
            if ended is None:
                continue
            first, outcome = ended
            assert words.knows(outcome.reason), (ruleset, variant, seed, outcome.reason)
            seen.setdefault(ruleset, set()).add(outcome.reason)
            for seat in (None, *range(first.seats)):
                sentence = describe_outcome(words, first, outcome, seat, NAMES4[: first.seats])
                assert sentence, (ruleset, outcome)
                assert "_" not in sentence, sentence  # no code leaks into the page
    # The games did reach the rules' own ends and the platform's.
    assert {"checkmate", "resignation"} <= seen["chess3d"] | seen["cyvasse"]
    assert "king_captured" in seen["cyvasse"]  # CY-7.3
    assert {"dead_command_ship", "command_ship_destroyed", "turn_limit"} <= seen["yavoch"]
    assert any("bsq" in code for code in seen["yiora"])  # a match of two games (YI-8.4.3)
    assert {"bases", "turn limit"} <= seen["spacewar-ha"]
    assert "turn limit" in seen["spacewar"]
    everything = set().union(*seen.values())
    assert {"agreement", "timeout"} <= everything


# -- (b) the sentences ------------------------------------------------------------------------


def test_two_seats_winner_loser_and_spectator() -> None:
    chess, words = created("chess3d"), words_for("chess3d")
    # C3-7.1: White mates.
    assert describe(words, chess, "1-0", "checkmate", [0], 0, NAMES2) == "You won by checkmate"
    assert describe(words, chess, "1-0", "checkmate", [0], 1, NAMES2) == "You lost by checkmate"
    assert describe(words, chess, "1-0", "checkmate", [0], None, NAMES2) == "Ann won by checkmate"
    # A spectator of anonymous players reads the side's name.
    assert describe(words, chess, "0-1", "checkmate", [1], None, ["Ann", ""]) == (
        "Black won by checkmate"
    )
    assert describe(words, chess, "0-1", "checkmate", [1], None) == "Black won by checkmate"


def test_the_issues_own_example() -> None:
    """issue 23: "You lost: your Command ship ran out of energy" (Y-8.3)."""
    yavoch, words = created("yavoch"), words_for("yavoch")
    args = (words, yavoch, "0-1", "dead_command_ship", [1])
    assert describe(*args, 0, NAMES2) == "You lost: your Command ship ran out of energy"
    assert describe(*args, 1, NAMES2) == (
        "You won because the opponent's Command ship ran out of energy"
    )
    assert describe(*args, None, NAMES2) == (
        "Bob won because the opponent's Command ship ran out of energy"
    )
    # Y-8.1: a Command ship destroyed.
    assert describe(words, yavoch, "1-0", "command_ship_destroyed", [0], 1, NAMES2) == (
        "You lost: your Command ship was destroyed"
    )


@pytest.mark.parametrize(
    ("ruleset", "reason", "sentence"),
    [
        ("chess3d", "stalemate", "Drawn by stalemate"),  # C3-7.2
        ("chess3d", "agreement", "Drawn by agreement"),  # C3-7.7
        ("chess3d", "perpetual_check", "Drawn by perpetual check"),  # C3-7.5.3
        ("chess3d", "insufficient_material",
         "Drawn: neither side has the men left to checkmate"),  # C3-7.3
        ("cyvasse", "no_moves", "Drawn: both sides had to pass"),  # CY-7.6
        ("yavoch", "command_ships_destroyed",
         "Drawn: both Command ships were destroyed at once"),  # Y-8.2
        ("yavoch", "turn_limit", "Drawn: the turn limit was reached"),  # Y-8.9
        ("spacewar", "motherships",
         "Drawn: both sides lost their last Mothership at the same moment"),  # SW-8.2
        ("spacewar", "dead position", "Drawn: nobody could ever act again"),  # SW-R58
        ("spacewar-ha", "double pass", "Drawn: neither side could act"),  # HA-8.2
        ("chess3d", "time_vs_insufficient_material",
         "Drawn: time ran out, but the other side could not have won"),  # issue 23
    ],
)  # fmt: skip
def test_draws(ruleset: str, reason: str, sentence: str) -> None:
    game = created(ruleset)
    for seat in (None, 0, 1):
        assert describe(words_for(ruleset), game, "1/2-1/2", reason, [], seat, NAMES2) == sentence


def test_the_platforms_reasons() -> None:
    """issue 23: a loss on time, a timeout (table.py), a forfeited setup (fair-play 3)."""
    cyvasse, words = created("cyvasse", "A"), words_for("cyvasse")
    assert describe(words, cyvasse, "0-1", "time", [1], 0, NAMES2) == "You lost on time"
    assert describe(words, cyvasse, "0-1", "time", [1], None, NAMES2) == "Bob won on time"
    assert describe(words, cyvasse, "0-1", "time", [1], 1, NAMES2) == "You won on time"
    assert describe(words, cyvasse, "1-0", "timeout", [0], 1, NAMES2) == (
        "You lost: you did not act in time"
    )
    assert describe(words, cyvasse, "1-0", "timeout", [0], None, NAMES2) == (
        "Ann won because the opponent did not act in time"
    )
    assert describe(words, cyvasse, "1-0", "illegal_setup", [0], 1, NAMES2) == (
        "You lost: your setup broke the rules"
    )
    assert describe(words, cyvasse, "0-1", "resignation", [1], 0, NAMES2) == (
        "You lost by resignation"
    )


def test_an_unknown_reason_still_reads() -> None:
    """A code no table words (an old log's): its own words, never a failure (issue 23)."""
    words = words_for("chess3d")
    assert not words.knows("moon_fell")
    assert words.reason("moon_fell") == unknown("moon_fell")
    sentence = describe(words, created("chess3d"), "1-0", "moon_fell", [0], 1)
    assert sentence == "You lost by moon fell"


def test_four_seats_in_teams() -> None:
    """YI-8.4, YI-8.4.3: teams of two, the match scored by the sum of both games."""
    game, words = created("yiora", "secondary_complex+teams"), words_for("yiora")
    result, reason, winners = "3/2-1/2-3/2-1/2", "bsq checkmate, wsq repetition", [0, 2]
    games = "checkmate in the black-square game, a draw by repetition in the white-square game"
    assert describe(words, game, result, reason, winners, 2, NAMES4) == f"You won 3/2–1/2: {games}"
    assert describe(words, game, result, reason, winners, 1, NAMES4) == f"You lost 1/2–3/2: {games}"
    assert describe(words, game, result, reason, winners, None, NAMES4) == (
        f"Ann and Cy won 3/2–1/2: {games}"
    )
    assert describe(words, game, result, reason, winners, None, ["", "", "", ""]) == (
        f"Team 1 (White and Gold) won 3/2–1/2: {games}"
    )
    # Both games by the same reason: the match's reason is it (seats.match_reason).
    assert describe(words, game, "2-0-2-0", "checkmate", winners, 3, NAMES4) == (
        "You lost 0–2 by checkmate"
    )
    assert describe(words, game, "1-1-1-1", "checkmate", [], None, NAMES4) == (
        "Drawn 1–1 with a checkmate in each game"
    )


def test_four_players_in_two_games() -> None:
    """YI-8.3: in Secondary Basic each player receives the result of his own game."""
    game, words = created("yiora", "secondary_basic"), words_for("yiora")
    args = (words, game, "1-0-1/2-1/2", "bsq checkmate, wsq repetition", [0])
    games = "checkmate in the black-square game, a draw by repetition in the white-square game"
    assert describe(*args, 0, NAMES4) == "You won by checkmate"  # its own game's reason
    assert describe(*args, 1, NAMES4) == "You lost by checkmate"
    assert describe(*args, 2, NAMES4) == "Drawn by repetition"  # its game drawn, not lost
    assert describe(*args, 3, NAMES4) == "Drawn by repetition"
    assert describe(*args, None, NAMES4) == f"Ann won: {games}"  # a spectator sees both
    both = (words, game, "1-0-0-1", "checkmate", [0, 3])
    assert describe(*both, None, NAMES4) == "Ann and Di won by checkmate"
    assert describe(*both, None, []) == "White and Silver won by checkmate"
    assert describe(*both, 2, NAMES4) == "You lost by checkmate"


# -- (c) whose move it is, and which side one plays --------------------------------------------


def test_whose_move() -> None:
    """issue 23: "Your move" / "Bob to move", never seat numbers."""
    chess, words = created("chess3d"), words_for("chess3d")
    assert to_move(words, chess, {1}, 1, NAMES2) == "Your move"
    assert to_move(words, chess, {1}, 0, NAMES2) == "Bob to move"
    assert to_move(words, chess, {1}, None, NAMES2) == "Bob to move"
    assert to_move(words, chess, {0}, None, ["", "Bob"]) == "White to move"
    assert to_move(words, chess, frozenset(), 0, NAMES2) == ""  # ended: nobody is to move
    # fair-play 1.2, 3: every seat owes its seed or setup at once.
    assert to_move(words, chess, {0, 1}, None, NAMES2) == "Ann and Bob to move"
    assert to_move(words, chess, {0, 1}, 0, NAMES2) == "Your move"  # each its own step


def test_whose_move_with_four_seats() -> None:
    """YI-8.4: either member of a team may move its sides; YI-8.3: four players."""
    teams, words = created("yiora", "secondary_complex+teams"), words_for("yiora")
    assert to_move(words, teams, {0, 2}, 0, NAMES4) == "You and Cy to move"
    assert to_move(words, teams, {0, 2}, 1, NAMES4) == "Ann and Cy to move"
    assert to_move(words, teams, {1, 3}, None, ["", "", "", ""]) == (
        "Team 2 (Black and Silver) to move"
    )
    basic = created("yiora", "secondary_basic")
    assert to_move(words, basic, {0, 2}, None, ["", "", "", ""]) == "White and Gold to move"
    assert to_move(words, basic, {2}, 2, NAMES4) == "Your move"


def test_which_side_you_play() -> None:
    """issue 23: "You play White", in each ruleset's terms."""
    assert you_play(words_for("chess3d"), created("chess3d"), 0) == "You play White"  # C3-3.1
    assert you_play(words_for("yavoch"), created("yavoch"), 1) == "You play Player two"  # Y-0.2
    words = words_for("yiora")
    assert you_play(words, created("yiora", "secondary_basic"), 2) == "You play Gold"  # YI-8.3
    assert you_play(words, created("yiora", "secondary_complex+teams"), 2, NAMES4) == (
        "You play Team 1 (White and Gold), with Ann"  # YI-8.4
    )


def _all_words() -> list[tuple[str, Words]]:
    return sorted(WORDS.items())


@pytest.mark.parametrize(("ruleset", "words"), _all_words())
def test_every_phrase_reads_in_every_sentence(ruleset: str, words: Words) -> None:
    """issue 23: each worded code makes a sentence for the winner, the loser, a spectator and
    a draw, with no code left in it."""
    game = created(ruleset)
    assert isinstance(words, RulesetWords)
    for code in words.codes():
        for result, winners in (("1-0", [0]), ("1/2-1/2", [])):
            for seat in (None, 0, 1):
                sentence = describe(words, game, result, code, winners, seat, NAMES2)
                assert "_" not in sentence, sentence
                assert "  " not in sentence, sentence
                assert sentence[0].isupper(), sentence
                assert not sentence.endswith((".", ":")), sentence
