"""The options of YI-0.2 and the setups of YI-3."""

import random

import pytest

from domain.core import variant as shared
from domain.yiora import YIORA, parse_variant
from domain.yiora.variant import VARIANTS, Config
from tests.domain.yiora.helpers import START, legal_texts, new

DEFAULT_WHITE = ("OA1", "MA35", "MA3", "MR36", "MR2", "PO33", "PO35", "PO3", "PO5")


def test_every_default() -> None:
    """The empty string is every default: Primary Basic, the wedge, White first, any_escape,
    stalemate a draw, 50 moves without capture, threefold repetition, lockstep."""
    # YI-0.1, YI-0.2, YI-R06, YI-R07, YI-R19
    config = parse_variant("")
    assert config == Config()
    assert (config.variation, config.first_player, config.mate_rule) == (
        "primary",
        "White",
        "any_escape",
    )
    assert (config.stalemate_result, config.no_capture_limit, config.repetition_count) == (
        "draw",
        50,
        3,
    )
    assert config.complex_turn_mode == "lockstep"
    assert not config.teams
    assert sorted(config.setup_white) == sorted(DEFAULT_WHITE)
    assert config.setup_black == ("derived",)
    created = YIORA.create("")
    assert (created.variant, created.seats, created.teams) == ("primary", 2, [])


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("", "primary"),
        ("primary", "primary"),
        ("no_capture_limit=off+secondary_basic", "secondary_basic+no_capture_limit=off"),
        ("teams+secondary_complex", "secondary_complex+teams"),
        ("secondary_complex+complex_turn_mode=lockstep", "secondary_complex"),
        (
            "mate_rule=overlord_only+stalemate_result=loss+first_player=Black",
            "primary+first_player=Black+mate_rule=overlord_only+stalemate_result=loss",
        ),
        ("repetition_count=3+no_capture_limit=50", "primary"),
        ("setup_white=PO35/PO3/PO5/PO33/MR2/MR36/MA3/MA35/OA1", "primary"),
        (
            "setup_white=OA1/PO35/PO3/PO5/PO31/MR2/MR36/MA3/MA35",
            "primary+setup_white=OA1/MA3/MA35/MR2/MR36/PO3/PO5/PO31/PO35",
        ),
    ],
)
def test_variant_strings_and_their_canonical_form(text: str, canonical: str) -> None:
    """Items in any order; the canonical form names the variation first, drops defaults, and
    is a fixed point."""
    # YI-0.2
    assert YIORA.create(text).variant == canonical
    assert YIORA.create(canonical).variant == canonical
    assert parse_variant(canonical) == parse_variant(text)


def test_random_valid_variant_strings_round_trip() -> None:
    """Random choices of every parameter (setups from a few valid ones) round-trip."""
    # YI-0.2
    rng = random.Random(7)
    setups = ["", "setup_white=OA1/MA3/MA35/MR2/MR36/PO3/PO5/PO31/PO35",
              "setup_black=OA19/MA17/MA21/MR18/MR20/PO15/PO17/PO21/PO25"]  # fmt: skip
    for _ in range(200):
        variation = rng.choice(["primary", "secondary_basic", "secondary_complex"])
        items = [variation]
        for p in VARIANTS.parameters:
            if (p.only and variation not in p.only) or rng.random() < 0.5:
                continue
            if p.name.startswith("setup"):
                continue
            if p.flag:
                items.append(p.name)
            elif p.values:
                items.append(f"{p.name}={rng.choice(p.values)}")
            else:
                value = rng.choice([p.zero or str(p.minimum), str(rng.randint(p.minimum or 0, 99))])
                items.append(f"{p.name}={value}")
        if setup := rng.choice(setups):
            items.append(setup)
        rng.shuffle(items)
        text = "+".join(items)
        canonical = YIORA.create(text).variant
        assert canonical == shared.format_variant(VARIANTS, parse_variant(text))
        assert YIORA.create(canonical).variant == canonical
        assert parse_variant(canonical) == parse_variant(text)


def test_the_overlords_start_on_a1_and_a19() -> None:
    # YI-3.1
    view = YIORA.view(new(), None)
    overlords = {m["square"]: m["side"] for m in view["games"][0]["men"] if m["piece"] == "O"}
    assert overlords == {"A-1": "White", "A-19": "Black"}


def test_the_default_wedge_and_its_rotation() -> None:
    """White's wedge on A, R, O; Black's is White's rotated by 18 columns; symmetric about
    columns 1 and 19; no capture is possible on either side's first move."""
    # YI-3.2, YI-3.3, YI-R06
    assert YIORA.position(new()) == START
    assert not [t for t in legal_texts(new()) if "x" in t]
    black_first = new(START.replace("w W:", "b W:", 1))
    assert not [t for t in legal_texts(black_first) if "x" in t]
    men = {m["square"]: (m["side"], m["piece"]) for m in YIORA.view(new(), None)["games"][0]["men"]}
    for square, (side, piece) in men.items():
        ring, column = square.split("-")
        if side == "White":
            mirrored = (2 - int(column)) % 36 or 36  # c ↦ 2 − c
            assert men[f"{ring}-{mirrored}"] == (side, piece)
            assert men[f"{ring}-{(int(column) + 17) % 36 + 1}"] == ("Black", piece)


def test_a_configured_setup() -> None:
    """setup_white moves White's men; Black's follow (derived) unless setup_black is given."""
    # YI-3.4, YI-0.2
    state = new(variant="setup_white=OA1/MA3/MA35/MR2/MR36/PO3/PO5/PO31/PO35")
    assert YIORA.position(state) == (
        "w W:OA1,MA35,MA3,MR36,MR2,PO31,PO35,PO3,PO5 "
        "B:OA19,MA17,MA21,MR18,MR20,PO13,PO17,PO21,PO23 0 1"
    )
    state = new(variant="setup_black=OA19/MA17/MA21/MR18/MR20/PO15/PO17/PO21/PO25")
    assert YIORA.position(state).split()[2] == "B:OA19,MA17,MA21,MR18,MR20,PO15,PO17,PO21,PO25"


def test_black_may_move_first() -> None:
    """first_player=Black: Black (and Silver) move first."""
    # YI-3.5, YI-R07
    assert YIORA.to_act(new()) == {0}
    assert YIORA.to_act(new(variant="first_player=Black")) == {1}
    basic = new(variant="secondary_basic+first_player=Black")
    assert YIORA.to_act(basic) == {1, 3}
