"""The shared variant-string parser (domain/core/variant.py, issue 11): one grammar for every
ruleset, declared by its `VariantSpec`; the canonical form each ruleset stores; the errors."""

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.core.variant import (
    Parameter,
    ParamType,
    Value,
    Variant,
    VariantSpec,
    defaults,
    describe,
    format_value,
    format_values,
    format_variant,
    parse,
    parse_values,
)
from domain.registry import RULESETS
from tests import rulesets

BOOL, INT, CHOICE = ParamType.BOOL, ParamType.INT, ParamType.CHOICE
SUBSET, COMBINATION = ParamType.SUBSET, ParamType.COMBINATION
ABC = ("a", "b", "c")

# Every kind of item once: named variants, a bare choice, flags, and each type as key=value.
TOY = VariantSpec(
    key="edition",
    variants=(Variant("basic", "the first"), Variant("deluxe", "with extras")),
    parameters=(
        Parameter("size", "the board", CHOICE, "small", values=("small", "large"), bare=True),
        Parameter("fast", "a flag", BOOL, False, bare=True),
        Parameter("dice", "deluxe only", BOOL, False, bare=True, only=("deluxe",), ignored=True),
        Parameter("wide", "needs large", BOOL, False, bare=True, needs=("size", "large")),
        Parameter("limit", "an integer, 0 written off", INT, 50, minimum=1, zero="off"),
        Parameter("count", "an integer in a range", INT, 3, minimum=2, maximum=9),
        Parameter("strict", "a boolean", BOOL, True),
        Parameter("order", "a permutation", ParamType.PERMUTATION, "123", values=("1", "2", "3")),
        Parameter("cards", "a subset", SUBSET, ABC, values=ABC, only=("deluxe",)),
        Parameter("mix", "a combination", COMBINATION, ("a", "a"), values=("a", "b"), size=2),
    ),
)


def reason(spec: VariantSpec[Any], text: str) -> str:
    with pytest.raises(VariantError) as err:
        parse_values(spec, text)
    assert err.value.code is ErrorCode.BAD_VARIANT
    return err.value.reason


def test_every_item_kind_parses_and_the_canonical_form_orders_them() -> None:
    values = parse_values(
        TOY, "limit=off+fast+cards=c/a+large+mix=b/a+deluxe+dice+order=312+wide+count=9"
    )
    assert values["edition"] == "deluxe"
    assert (values["size"], values["fast"], values["dice"], values["wide"]) == (
        "large",
        *[True] * 3,
    )
    assert (values["limit"], values["count"], values["strict"]) == (0, 9, True)
    assert (values["order"], values["cards"], values["mix"]) == ("312", ("a", "c"), ("a", "b"))
    # The variant, the bare choices, the flags sorted, then key=value sorted; defaults omitted.
    assert format_values(TOY, values) == (
        "deluxe+large+dice+fast+wide+cards=a/c+count=9+limit=off+mix=a/b+order=312"
    )
    assert format_values(TOY, defaults(TOY)) == "basic"  # the named variant is always written
    assert parse_values(TOY, "") == parse_values(TOY, "  ") == defaults(TOY)
    assert parse_values(TOY, "deluxe+cards=none")["cards"] == ()
    assert format_values(TOY, parse_values(TOY, "deluxe+cards=none")) == "deluxe+cards=none"
    assert format_values(TOY, parse_values(TOY, "strict=false+small+limit=50")) == (
        "basic+strict=false"
    )


def test_only_refuses_or_drops_and_needs_refuses() -> None:
    assert parse_values(TOY, "basic+dice")["dice"] is False  # ignored outside deluxe
    assert reason(TOY, "cards=a") == "cards is a parameter of the deluxe edition only"
    assert reason(TOY, "basic+cards=a/b/c") == "cards is a parameter of the deluxe edition only"
    assert reason(TOY, "wide") == "wide needs the large size"
    assert parse_values(TOY, "wide+large")["wide"] is True


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "huge",
            (
                "unknown variant item 'huge' (known: basic, deluxe, small, large, fast, dice, "
                "wide, key=value parameters)"
            ),
        ),
        ("basic+deluxe", "variant item 'edition' given twice"),
        ("small+large", "variant item 'size' given twice"),
        ("fast+fast", "variant item 'fast' given twice"),
        ("count=4+count=5", "variant parameter 'count' given twice"),
        (
            "fast=true",
            "unknown variant parameter 'fast' (known: limit, count, strict, order, cards, mix)",
        ),
        ("limit=0", "limit must be an integer of at least 1 or off, not '0'"),
        ("count=10", "count must be an integer from 2 to 9, not '10'"),
        ("count=²", "count must be an integer from 2 to 9, not '²'"),
        ("count=-3", "count must be an integer from 2 to 9, not '-3'"),
        ("strict=yes", "strict must be true or false, not 'yes'"),
        ("order=112", "order must be a permutation of 123, not '112'"),
        (
            "deluxe+cards=a/a",
            "cards must be none or distinct values of a/b/c joined by /, not 'a/a'",
        ),
        ("mix=a/c", "mix must be 2 values of a/b joined by /, not 'a/c'"),
    ],
)
def test_errors_name_the_item(text: str, words: str) -> None:
    assert reason(TOY, text) == words


def test_a_spec_without_bare_items_or_with_the_variant_first() -> None:
    plain = VariantSpec(parameters=(Parameter("n", "a number", INT, 1, minimum=0),))
    assert parse_values(plain, "n=2") == {"n": 2}
    assert format_values(plain, {"n": 1}) == ""
    assert reason(plain, "n") == "variant item 'n' is not key=value"
    first = VariantSpec(key="ruleset", first=True, variants=(Variant("a", ""), Variant("b", "")))
    assert parse_values(first, "b") == {"ruleset": "b"}
    assert reason(first, "c") == "unknown variant item 'c' (known: a, b, key=value parameters)"
    assert reason(first, "a+b") == "variant item 'b': the ruleset comes first; then key=value"
    assert parse_values(VariantSpec(), "") == {}
    assert reason(VariantSpec(), "x") == "variant item 'x' is not key=value"


def test_parse_and_format_go_through_the_rulesets_config() -> None:
    spec = VariantSpec(
        parameters=(Parameter("n", "a number", INT, 1, minimum=0),),
        to_config=lambda values: values.number("n") * 10,
        from_config=lambda config: {"n": config // 10},
    )
    assert parse(spec, "n=4") == 40
    assert format_variant(spec, 70) == "n=7"
    assert format_variant(TOY, parse(TOY, "deluxe+fast")) == "deluxe+fast"  # no config: values


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        (lambda: VariantSpec(parameters=(Parameter("a", "", BOOL, False),) * 2), "declared twice"),
        (
            lambda: VariantSpec(
                variants=(Variant("x", ""),),
                parameters=(Parameter("c", "", CHOICE, "a", values=("a", "x"), bare=True),),
            ),
            "declared twice",
        ),
        (
            lambda: VariantSpec(parameters=(Parameter("f", "", BOOL, True, bare=True),)),
            "must default to false",
        ),
        (
            lambda: VariantSpec(parameters=(Parameter("n", "", INT, 0, minimum=1),)),
            "default of n is not allowed",
        ),
        (
            lambda: VariantSpec(parameters=(Parameter("n", "", INT, 1, bare=True),)),
            "not a bool or a choice",
        ),
        (
            lambda: VariantSpec(parameters=(Parameter("b", "", BOOL, True, only=("z",)),)),
            "undeclared variants",
        ),
        (lambda: VariantSpec(parameters=(Parameter("a=b", "", BOOL, True),)), "bad parameter"),
    ],
)
def test_a_spec_that_could_not_read_back_what_it_writes_is_refused(spec: Any, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        spec()


# -- the registered rulesets -------------------------------------------------------------------


def specs() -> dict[str, VariantSpec[Any]]:
    rulesets.register()
    return {name: ruleset.variants for name, ruleset in RULESETS.items()}


def test_every_ruleset_declares_its_variants_and_creates_their_canonical_form() -> None:
    every = specs()
    assert set(every) >= {"chess3d", "cyvasse", "yavoch", "yiora", "race"}
    for name, spec in every.items():
        assert isinstance(spec, VariantSpec), name
        assert RULESETS[name].create("").variant == format_values(spec, defaults(spec))
        json.dumps(describe(spec))  # JSON-ready for the gateway
    assert [p.name for p in every["race"].parameters] == ["seats", "teams"]
    assert [v.name for v in every["yavoch"].variants] == ["decker", "full"]
    assert [v.name for v in every["cyvasse"].variants] == ["A", "B", "C"]
    assert describe(every["chess3d"])["parameters"][4] | {"description": ""} == {
        "name": "repetition_count",
        "description": "",
        "type": "int",
        "written": "key=value",
        "default": 3,
        "default_text": "3",
        "allowed": "an integer of at least 2",
        "values": [],
        "minimum": 2,
        "maximum": None,
        "zero": None,
        "size": None,
        "only": [],
        "elsewhere": None,
        "needs": None,
    }


@pytest.mark.parametrize("name", ["chess3d", "cyvasse", "yavoch", "yiora"])
def test_digits_that_are_not_ascii_are_a_bad_variant(name: str) -> None:
    """`str.isdigit` accepts '²', which `int` refuses: once a crash, now bad-variant."""
    with pytest.raises(VariantError) as err:
        RULESETS[name].create("repetition_count=²" if name != "yavoch" else "turn_limit=²")
    assert err.value.code is ErrorCode.BAD_VARIANT


def random_item(p: Parameter, rng: random.Random) -> str:
    """An allowed value of `p`, as written."""
    if p.type is BOOL:
        return rng.choice(["true", "false"])
    if p.type is INT:
        low = p.minimum or 0
        return p.zero if p.zero and rng.random() < 0.3 else str(rng.randint(low, low + 5))
    if p.type is CHOICE:
        return rng.choice(p.values)
    if p.type is ParamType.PERMUTATION:
        return "".join(rng.sample(p.values, len(p.values)))
    if p.type is ParamType.SUBSET:
        return "/".join(rng.sample(p.values, rng.randint(0, len(p.values)))) or "none"
    return "/".join(rng.choice(p.values) for _ in range(p.size))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["chess3d", "cyvasse", "yavoch"]), st.randoms(use_true_random=False))
def test_any_valid_variant_string_round_trips_through_its_canonical_form(
    name: str, rng: random.Random
) -> None:
    """Items in any allowed order: parse, format, parse again gives the same configuration,
    and the canonical form is a fixed point."""
    spec = specs()[name]
    variant = rng.choice(spec.variants).name if spec.variants else ""
    chosen: dict[str, Value] = {}
    items = []
    for p in spec.parameters:
        if rng.random() < 0.5 or (p.only and variant not in p.only):
            continue
        if p.needs and p.needs[0] in chosen and chosen[p.needs[0]] != p.needs[1]:
            continue
        if p.needs:
            chosen[p.needs[0]] = p.needs[1]
        value = "true" if p.flag else random_item(p, rng)
        chosen[p.name] = value
    for p in spec.parameters:
        if p.name in chosen:
            value = str(chosen[p.name])
            items.append(p.name if p.flag else value if p.bare else f"{p.name}={value}")
    rng.shuffle(items)
    if variant:
        items.insert(0 if spec.first else rng.randint(0, len(items)), variant)
    text = "+".join(items)
    canonical = RULESETS[name].create(text).variant
    assert canonical == format_variant(spec, parse(spec, text))
    assert RULESETS[name].create(canonical).variant == canonical
    assert parse(spec, canonical) == parse(spec, text)
    for p in spec.parameters:  # what differs from the default is written, once
        shown = [item for item in canonical.split("+") if item.partition("=")[0] == p.name]
        assert len(shown) <= 1
        if shown and not p.bare:
            assert shown[0] != f"{p.name}={format_value(p, p.default)}"
