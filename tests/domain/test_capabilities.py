"""Declared capabilities (issue 11): a ruleset's optional abilities are named in
`Ruleset.capabilities`, implemented by the Protocol of the same name, and held together once,
at registration; the typed accessors hand out only what was declared."""

import dataclasses
from typing import Any

import pytest

from domain.chess3d import CHESS3D
from domain.core.ruleset import (
    Capability,
    cards_of,
    check_capabilities,
    hidden_setup_of,
    perft_of,
    random_setup_of,
)
from domain.cyvasse import CYVASSE
from domain.registry import RULESETS
from domain.yavoch import YAVOCH


def test_every_registered_ruleset_implements_exactly_what_it_declares() -> None:
    for ruleset in RULESETS.values():
        check_capabilities(ruleset)
    assert perft_of(CHESS3D) is CHESS3D
    assert cards_of(CHESS3D) is None
    assert hidden_setup_of(CYVASSE) is CYVASSE
    assert random_setup_of(CYVASSE) is CYVASSE
    assert perft_of(YAVOCH) is None  # its moves hang on dice: no perft
    assert cards_of(YAVOCH) is YAVOCH


@dataclasses.dataclass
class Stub:
    """A ruleset-shaped object with a name, declarations and whatever methods a test adds."""

    name: str = "stub"
    capabilities: frozenset[Capability] = frozenset()


class WithPerft(Stub):
    def perft(self, state: Any, depth: int) -> int:
        return depth


class WithHiddenSetup(Stub):
    def check_setup(self, state: Any, seat: int, setup: bytes) -> None:
        return None

    def combined_setup_problem(self, state: Any) -> None:
        return None


@pytest.mark.parametrize(
    ("ruleset", "says"),
    [
        (Stub(capabilities=frozenset({Capability.PERFT})), "declares perft"),
        (WithPerft(), "implements but does not declare perft"),
        (WithHiddenSetup(capabilities=frozenset({Capability.HIDDEN_SETUP})), "needs a forfeit"),
    ],
)
def test_a_ruleset_whose_declaration_and_code_differ_is_not_registered(
    ruleset: Stub, says: str
) -> None:
    with pytest.raises(TypeError, match=says):
        check_capabilities(ruleset)  # type: ignore[arg-type]
