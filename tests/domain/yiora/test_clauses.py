"""Every clause and ruling of the Yiora ruling has its rule on the rules page and at least one
test here that cites it in a comment (`# YI-5.3.2`)."""

import re
from pathlib import Path

HERE = Path(__file__).parent
PAGE = HERE.parents[2] / "docs" / "rules" / "yiora.md"
# The ruling's ids (rulings/yiora.md v1.2): sections 0-8 and 10, and YI-R01 to YI-R25.
CLAUSES = {
    *(f"YI-0.{i}" for i in (1, 2)),
    *(f"YI-1.{i}" for i in range(1, 9)),
    "YI-2.1",
    *(f"YI-3.{i}" for i in range(1, 6)),
    *(f"YI-4.{i}" for i in range(1, 5)),
    "YI-5.0", "YI-5.1", "YI-5.2", "YI-5.2.1", "YI-5.2.2", "YI-5.2.3",
    "YI-5.3", *(f"YI-5.3.{i}" for i in range(1, 7)),
    "YI-6.1", "YI-6.2", "YI-6.3", "YI-6.3.1", "YI-6.3.2", "YI-6.4",
    *(f"YI-7.{i}" for i in range(1, 8)),
    "YI-8.1", "YI-8.2", "YI-8.3", "YI-8.4", "YI-8.4.1", "YI-8.4.2", "YI-8.4.3",
    *(f"YI-R{i:02d}" for i in range(1, 26)),
    *(f"YI-10.{i}" for i in range(1, 6)),
}  # fmt: skip


def test_every_clause_has_its_anchor_on_the_rules_page() -> None:
    page = PAGE.read_text()
    assert sorted(c for c in CLAUSES if f'<a id="{c}"></a>' not in page) == []
    anchored = set(re.findall(r'<a id="(YI-[^"]+)"></a>', page))
    assert anchored == CLAUSES


def test_every_clause_is_cited_by_a_test() -> None:
    cited: set[str] = set()
    for source in HERE.glob("test_*.py"):
        for line in source.read_text().splitlines():
            if line.strip().startswith("#"):
                cited |= set(re.findall(r"YI-R?[0-9.]*[0-9]", line))
    assert sorted(CLAUSES - cited) == []
