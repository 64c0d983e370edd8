"""Every clause a refusal can cite has its rule on the game's rules page (docs/rules/<game>.md,
served by the gateway at /rules/<game>), under an anchor of its own, so a refusal links to it."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
# The clause ids each engine writes in its source, by the id's prefix.
GAMES = {"chess3d": r"C3-[0-9.]*[0-9]", "cyvasse": r"CY-(?:R)?[0-9.]*[0-9]",
         "yavoch": r"Y-(?:R)?[0-9.]*[0-9]", "yiora": r"YI-(?:R)?[0-9.]*[0-9]"}  # fmt: skip


def cited(game: str) -> set[str]:
    clause = GAMES[game]
    pattern = re.compile(rf'"((?:{clause})(?:/(?:{clause}))*)"')
    found = set()
    for source in (ROOT / "domain" / game).glob("*.py"):
        for match in pattern.finditer(source.read_text()):
            found |= set(match.group(1).split("/"))  # "Y-5.22/Y-5.23" cites both
    return found


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_cited_clause_has_an_anchor_on_the_rules_page(game: str) -> None:
    page = (ROOT / "docs" / "rules" / f"{game}.md").read_text()
    clauses = cited(game)
    assert len(clauses) > 10  # the engine's citations were found
    missing = sorted(c for c in clauses if f'<a id="{c}"></a>' not in page)
    assert missing == []
