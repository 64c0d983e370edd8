"""Variant strings (CY-0.1, CY-0.2), create/start and the not-yet-implemented refusals."""

import pytest

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.cyvasse import CYVASSE, parse_variant
from domain.registry import find_ruleset
from tests.domain.cyvasse.helpers import position


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("", "A"),
        ("A", "A"),
        ("B", "B"),
        ("square8+A", "A"),
        ("square10+B", "B+square10"),
        ("dragonfyre+B+dragon-reserve", "B+dragon-reserve+dragonfyre"),
        ("A+super-trebuchet+square10", "A+square10+super-trebuchet"),
        ("A+no_progress_limit=50+repetition_count=3", "A"),
        ("A+no_progress_limit=off", "A+no_progress_limit=off"),
        ("B+repetition_count=4+dragon_capture_over_mountains=false",
         "B+dragon_capture_over_mountains=false+repetition_count=4"),
        ("A+combined_mountain_check=none+fortress_bonus_mode=none_above_6", "A"),
        ("C", "C"),
        ("wildfyre+C+square10+fortress-promotion", "C+square10+fortress-promotion+wildfyre"),
        ("C+fortress_bonus_mode=cap+fortress-storming",
         "C+fortress-storming+fortress_bonus_mode=cap"),
        ("C+fortress_bonus_mode=none_above_6", "C"),
        # CY-0.3: e, f, g and the Fortress bonus need terrain; ignored outside version C
        ("B+fortress-storming+wildfyre+fortress-promotion", "B"),
        ("B+fortress_bonus_mode=cap", "B"),
    ],
)  # fmt: skip
def test_variant_grammar_and_canonical_form(text: str, canonical: str) -> None:
    """Items in any order; the canonical form is version, board (unless square8), flags
    sorted, parameters sorted, defaults omitted; it parses back to the same configuration."""
    # CY-0.1, CY-0.2
    config = parse_variant(text)
    assert config.variant == canonical
    assert parse_variant(canonical) == config
    assert CYVASSE.create(text).variant == canonical


@pytest.mark.parametrize(
    "text", ["A+combined_mountain_check=replace", "C+hex91+combined_mountain_check=replace"]
)
def test_combined_mountain_check_replace_is_a_variant(text: str) -> None:
    """CY-0.2: `combined_mountain_check=replace` is accepted and kept in the canonical name."""
    # CY-0.2, CY-3.5
    config = parse_variant(text)
    assert config.combined_replace
    assert config.variant == text
    assert CYVASSE.create(text).variant == text


@pytest.mark.parametrize(
    "text",
    ["D", "A+B", "A+square8+square10", "A+dragonfyre+dragonfyre", "A+foo", "A+repetition_count=1",
     "A+no_progress_limit=0", "A+dragon_capture_over_mountains=maybe", "A+colour=red"],
)  # fmt: skip
def test_bad_variants(text: str) -> None:
    """Unknown items, repeated items and bad parameter values are bad variants."""
    # CY-0.1, CY-0.2
    with pytest.raises(VariantError) as err:
        CYVASSE.create(text)
    assert err.value.code is ErrorCode.BAD_VARIANT


def test_create_announces_hidden_setup_and_start_is_empty() -> None:
    """A new game has the hidden simultaneous setup; nobody acts in the ruleset before both
    setups are on the board; the registry knows the ruleset."""
    # CY-3.1, CY-R02
    created = CYVASSE.create("B+square10")
    assert (created.ruleset, created.seats, created.hidden_setup) == ("cyvasse", 2, True)
    assert created.position == ""
    state = CYVASSE.start(created)
    assert state.pos.board == bytes(100)
    assert CYVASSE.to_act(state) == frozenset()
    assert CYVASSE.legal_actions(state, 0) == []
    assert find_ruleset("cyvasse") is CYVASSE


def test_create_from_position_skips_the_setup() -> None:
    """A hand-set position starts play at once (hidden_setup False) and round-trips."""
    # CY-1.3.5
    text = position("Ke1 Td1 Mf3", "Ke8 Ra5", side="b", quiet=7)
    created = CYVASSE.create("A", text)
    assert created.hidden_setup is False
    state = CYVASSE.start(created)
    assert CYVASSE.to_act(state) == frozenset({1})
    assert CYVASSE.position(state) == (
        "side=b; white=Td1 Ke1 Mf3; black=Ra5 Ke8; terrain=; reserve=-; storm=-; "
        "plies_since_progress=7"
    )
    assert CYVASSE.start(CYVASSE.create("A", CYVASSE.position(state))) == state


@pytest.mark.parametrize(
    ("variant", "text", "words"),
    [
        ("A", "side=w; white=Ke1", "black is missing"),
        ("A", position("Ke1", "Ke8", side="x"), "side"),
        ("A", position("Ke1 Kd1", "Ke8"), "2 King (at most 1"),
        ("A", position("Td1", "Ke8"), "exactly one King"),
        ("A", position("Ke1 Rj9", "Ke8"), "not <letter><square>"),
        ("B+square10", position("Ke1 Zj9", "Ke10"), "not <letter><square>"),
        ("A", position("Ke1 Te4", "Ke8 Re4"), "two men on e4"),
        ("A", position("Ke1 Ta1 Tb1 Tc1", "Ke8"), "at most 2"),
        ("A", position("Ke1", "Ke8", reserve="w"), "dragon-reserve"),
        ("A+dragon-reserve", position("Ke1 Dd1", "Ke8", reserve="w"), "on the board and in"),
        ("A", "side=w; white=Ke1; black=Ke8; terrain=Fa1", "version C"),
        ("A", "side=w; white=Ke1; black=Ke8; storm=a1:w:1", "version C"),
        ("A", "side=w; white=Ke1; black=Ke8; side=b", "twice"),
        ("A", position("Ka1", "Ea5 Eb4 Ra3 Kh8"), "already over"),
        ("A", position("Ke1", "Ke8") + "; colour=red", "not one of"),
    ],
)
def test_bad_positions(variant: str, text: str, words: str) -> None:
    """Bad position records are refused with bad-position and the reason."""
    # CY-1.3.5, CY-2.1
    with pytest.raises(VariantError) as err:
        CYVASSE.create(variant, text)
    assert err.value.code is ErrorCode.BAD_POSITION
    assert words in err.value.reason


def test_square10_geometry_and_halves() -> None:
    """10x10: files a-j, ranks 1-10, White's half ranks 1-5, Black's 6-10; render shows the
    screen line between the halves."""
    # CY-1.1.1, CY-1.1.2, CY-R01, CY-R40
    state = CYVASSE.start(CYVASSE.create("A+square10", position("Ka1", "Kj10")))
    geo = state.geo
    assert geo.names[0] == "a1"
    assert geo.names[99] == "j10"
    assert max(geo.halves[0]) == geo.square_of["j5"]
    assert min(geo.halves[1]) == geo.square_of["a6"]
    lines = CYVASSE.render(state).splitlines()
    assert lines[0] == "10 . . . . . . . . . k"
    assert lines[5].strip() == "-" * 19
    assert lines[6].startswith(" 5 ")
    assert lines[-2].strip() == "a b c d e f g h i j"
