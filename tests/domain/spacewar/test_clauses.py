"""Every clause and ruling of Part A of the Spacewar ruling has its anchor on the rules page and
at least one test here that cites it in a comment (`# SW-5.34`)."""

import re
from pathlib import Path

HERE = Path(__file__).parent
PAGE = HERE.parents[2] / "docs" / "rules" / "spacewar.md"
# The ruling's ids (rulings/spacewar.md Part A v1.2): SW-0 to SW-8, SW-R1 to SW-R58, SW-A.
CLAUSES = {
    *(f"SW-0.{i}" for i in range(1, 4)),
    *(f"SW-1.{i}" for i in range(1, 6)),
    *(f"SW-2.{i}" for i in range(1, 5)),
    *(f"SW-3.{i}" for i in range(1, 6)),
    *(f"SW-4.{i}" for i in range(1, 8)),
    *(f"SW-5.{i}" for i in (1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 20, 21, 22)),
    *(f"SW-5.{i}" for i in range(30, 37)),
    *(f"SW-5.{i}" for i in range(40, 48)),
    *(f"SW-5.{i}" for i in (60, 61, 62, 63, 65, 66, 75, 76, 77)),
    "SW-6.1", "SW-7.1",
    *(f"SW-8.{i}" for i in range(1, 6)),
    *(f"SW-R{i}" for i in range(1, 59)),
}  # fmt: skip
EXAMPLES = {f"A{i}" for i in range(1, 6)}


def test_every_clause_has_its_anchor_on_the_rules_page() -> None:
    page = PAGE.read_text()
    part_a = page.split("# Part B")[0]
    assert sorted(c for c in CLAUSES if f'<a id="{c}"></a>' not in part_a) == []


def _cited() -> tuple[set[str], set[str]]:
    cited: set[str] = set()
    examples: set[str] = set()
    for source in HERE.glob("test_*.py"):
        for line in source.read_text().splitlines():
            if "#" in line:
                comment = line.split("#", 1)[1]
                cited |= set(re.findall(r"SW-R?[0-9.]*[0-9]", comment))
                examples |= set(re.findall(r"SW-A (A[1-5])", comment))
    return cited, examples


def test_every_clause_is_cited_by_a_test() -> None:
    cited, _ = _cited()
    assert sorted(CLAUSES - cited) == []


def test_every_worked_example_is_a_test() -> None:
    _, examples = _cited()
    assert examples == EXAMPLES
