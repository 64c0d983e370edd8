"""Variant strings, declared once per ruleset (`VariantSpec`) and read by one parser.

A ruleset declares its named variants and its parameters; `parse(spec, text)` reads a variant
string into the ruleset's configuration and `format_variant(spec, config)` writes the canonical
string that `GameCreated.variant` stores. The grammar, for every ruleset:

    variant = "" | item *("+" item)      ; "" (or blanks) is every default
    item    = name                       ; a named variant (`decker`, `B`); the first declared
                                         ;   is the default; with `first`, only as the first item
            | flag                       ; a boolean parameter declared bare, set by its name
            | value                      ; the value alone of a choice declared bare (`hex91`)
            | key "=" value              ; any other parameter

Each variant, parameter or flag at most once; an unknown item, a repeated one or a value out of
its declared range is a `VariantError` (`ruleset/bad-variant`) naming it. A parameter declared
`only` for some named variants is refused with any other (or, if `ignored`, accepted and
dropped); one that `needs` another's value is refused without it.

The canonical form: the named variant (always written when the ruleset has some), the bare
choices that differ from their defaults (in declared order), the flags set (sorted), then the
other parameters that differ from their defaults as `key=value` (sorted):
`B+square10+dragon-reserve+repetition_count=4`; "" when a ruleset without named variants has
every default.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from contracts.errors import ErrorCode
from domain.core.ruleset import VariantError

Value = bool | int | str | tuple[str, ...]
NONE = "none"  # an empty subset, as written

C = TypeVar("C")


class ParamType(StrEnum):
    """A parameter's type, which says how its value is written."""

    BOOL = "bool"  # true | false; declared bare: a flag, set by writing its name
    INT = "int"  # decimal digits, within [minimum, maximum]; `zero` is a word for 0 (e.g. off)
    CHOICE = "choice"  # one of `values`; declared bare: the value is written alone
    PERMUTATION = "permutation"  # the characters of `values`, each once, in any order
    SUBSET = "subset"  # distinct `values` joined by /, or `none`; kept in the declared order
    COMBINATION = "combination"  # `size` of `values` (repeats allowed) joined by /; kept sorted


@dataclass(frozen=True, slots=True)
class Variant:
    """A named variant (a version, a ruleset of the game)."""

    name: str
    description: str


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter: its name (the key, or the flag as written), a one-line description, its
    type, default and allowed values."""

    name: str
    description: str
    type: ParamType
    default: Value
    values: tuple[str, ...] = ()  # choice, permutation, subset, combination: the allowed values
    minimum: int | None = None  # int
    maximum: int | None = None  # int
    zero: str = ""  # int: the word written for 0, which is then allowed below `minimum`
    size: int = 0  # combination: how many values
    bare: bool = False  # bool: a flag; choice: its value is written without the key
    only: tuple[str, ...] = ()  # the named variants it belongs to (empty: every one)
    ignored: bool = False  # with another named variant: accepted and dropped (else refused)
    needs: tuple[str, str] | None = None  # (parameter, value as written) it needs when set

    @property
    def flag(self) -> bool:
        return self.bare and self.type is ParamType.BOOL


class Values(dict[str, Value]):
    """A parsed variant: every parameter's value by name (defaults filled in) and the named
    variant's under the spec's `key`, with typed reads for a ruleset's `to_config`."""

    def flag(self, name: str) -> bool:
        value = self[name]
        if not isinstance(value, bool):
            raise TypeError(f"variant value {name} is not a boolean: {value!r}")
        return value

    def number(self, name: str) -> int:
        value = self[name]
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"variant value {name} is not an integer: {value!r}")
        return value

    def text(self, name: str) -> str:
        value = self[name]
        if not isinstance(value, str):
            raise TypeError(f"variant value {name} is not a string: {value!r}")
        return value

    def texts(self, name: str) -> tuple[str, ...]:
        value = self[name]
        if not isinstance(value, tuple):
            raise TypeError(f"variant value {name} is not a tuple: {value!r}")
        return value


def _as_values(values: Values) -> Any:
    return values


def _read_back(config: Any) -> Mapping[str, Value]:
    if not isinstance(config, Mapping):
        raise TypeError("a VariantSpec without from_config formats a mapping of values")
    return config


@dataclass(frozen=True, slots=True)
class VariantSpec(Generic[C]):
    """What a ruleset's variant strings may say. `to_config` builds the ruleset's configuration
    from the parsed `Values` (it may raise VariantError for what only the whole can check) and
    `from_config` reads it back, by parameter name; without them `parse` gives the `Values`.
    A ruleset with no variants has `VariantSpec()`: only "" parses."""

    variants: tuple[Variant, ...] = ()  # the first is the default
    parameters: tuple[Parameter, ...] = ()
    key: str = "variant"  # the named variant's name in `Values` (and the configuration)
    first: bool = False  # a named variant, when written, is the first item
    to_config: Callable[[Values], C] = _as_values
    from_config: Callable[[C], Mapping[str, Value]] = _read_back
    _keyed: dict[str, Parameter] = field(init=False, repr=False, compare=False)
    _bare: dict[str, tuple[str, Value]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check(self)
        keyed = {p.name: p for p in self.parameters if not p.bare}
        bare: dict[str, tuple[str, Value]] = {v.name: (self.key, v.name) for v in self.variants}
        for p in self.parameters:
            if p.flag:
                bare[p.name] = (p.name, True)
            elif p.bare:
                bare.update((value, (p.name, value)) for value in p.values)
        object.__setattr__(self, "_keyed", keyed)
        object.__setattr__(self, "_bare", bare)

    @property
    def default_variant(self) -> str:
        return self.variants[0].name if self.variants else ""

    def parameter(self, name: str) -> Parameter:
        return next(p for p in self.parameters if p.name == name)


def _check(spec: "VariantSpec[Any]") -> None:
    """Refuse a spec that could not parse back what it writes (a programming error)."""
    names = [v.name for v in spec.variants] + [p.name for p in spec.parameters]
    words = [v.name for v in spec.variants] + [p.name for p in spec.parameters if p.flag]
    words += [value for p in spec.parameters if p.bare and not p.flag for value in p.values]
    if spec.variants:
        names.append(spec.key)
    for listed in (names, words):
        twice = sorted({n for n in listed if listed.count(n) > 1})
        if twice:
            raise ValueError(f"variant spec: {', '.join(twice)} declared twice")
    variants = {v.name for v in spec.variants}
    for p in spec.parameters:
        if any(c in p.name for c in "+=") or not p.name:
            raise ValueError(f"variant spec: bad parameter name {p.name!r}")
        if p.bare and p.type not in (ParamType.BOOL, ParamType.CHOICE):
            raise ValueError(f"variant spec: {p.name} is bare but not a bool or a choice")
        if p.flag and p.default is not False:
            raise ValueError(f"variant spec: flag {p.name} must default to false")
        if not set(p.only) <= variants:
            raise ValueError(f"variant spec: {p.name} is only for undeclared variants")
        if p.needs is not None and p.needs[0] not in {q.name for q in spec.parameters}:
            raise ValueError(f"variant spec: {p.name} needs an undeclared parameter")
        if _problem(p, format_value(p, p.default)) is not None:
            raise ValueError(f"variant spec: the default of {p.name} is not allowed")


# -- reading ---------------------------------------------------------------------------------


def _bad(reason: str) -> VariantError:
    return VariantError(ErrorCode.BAD_VARIANT, reason)


def defaults(spec: "VariantSpec[Any]") -> Values:
    """Every default: the configuration of ""."""
    values = Values((p.name, p.default) for p in spec.parameters)
    if spec.variants:
        values[spec.key] = spec.default_variant
    return values


def parse_values(spec: "VariantSpec[Any]", text: str) -> Values:
    """Read a variant string (the grammar above); raises VariantError (bad-variant)."""
    values = defaults(spec)
    given: set[str] = set()
    items = text.strip().split("+") if text.strip() else []
    for index, item in enumerate(items):
        key, eq, raw = item.partition("=")
        word = None if eq else spec._bare.get(item)  # a variant, flag or bare value: (key, value)
        if not eq:
            if spec.first and spec.variants and index > 0:
                raise _bad(f"variant item {item!r}: the {spec.key} comes first; then key=value")
            if not spec._bare:
                raise _bad(f"variant item {item!r} is not key=value")
            key = word[0] if word else item
        if key in given:
            raise _bad(f"variant {'parameter' if eq else 'item'} {key!r} given twice")
        given.add(key)
        if eq:
            values[key] = _read(spec, key, raw)
        elif word is not None:
            values[key] = word[1]
        else:
            known = ", ".join(spec._bare)
            raise _bad(f"unknown variant item {item!r} (known: {known}, key=value parameters)")
    variant = values[spec.key] if spec.variants else ""
    for p in spec.parameters:
        if p.needs is not None and values[p.name] != p.default:
            other, wanted = p.needs
            if format_value(spec.parameter(other), values[other]) != wanted:
                raise _bad(f"{p.name} needs {requirement(spec, p.needs)}")
    for p in spec.parameters:
        if p.only and variant not in p.only and p.name in given:
            if not p.ignored:
                only = " or ".join(p.only)
                raise _bad(f"{p.name} is a parameter of the {only} {spec.key} only")
            values[p.name] = p.default
    return values


def _read(spec: "VariantSpec[Any]", key: str, raw: str) -> Value:
    p = spec._keyed.get(key)
    if p is None:
        known = ", ".join(spec._keyed)
        raise _bad(f"unknown variant parameter {key!r} (known: {known})")
    problem = _problem(p, raw)
    if problem is not None:
        raise _bad(f"{p.name} must be {problem}, not {raw!r}")
    return _value(p, raw)


def _problem(p: Parameter, raw: str) -> str | None:
    """What `raw` must be, if it is not a value of `p`; None if it is."""
    if p.type is ParamType.BOOL:
        ok = raw in ("true", "false")
    elif p.type is ParamType.INT:
        ok = (p.zero != "" and raw == p.zero) or _in_range(p, raw)
    elif p.type is ParamType.CHOICE:
        ok = raw in p.values
    elif p.type is ParamType.PERMUTATION:
        ok = sorted(raw) == sorted("".join(p.values))
    elif p.type is ParamType.SUBSET:
        parts = () if raw == NONE else tuple(raw.split("/"))
        ok = set(parts) <= set(p.values) and len(set(parts)) == len(parts)
    else:
        parts = tuple(raw.split("/"))
        ok = len(parts) == p.size and set(parts) <= set(p.values)
    return None if ok else allowed(p)


def _in_range(p: Parameter, raw: str) -> bool:
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:  # 18 digits: within int64
        return False
    n = int(raw)
    return (p.minimum is None or n >= p.minimum) and (p.maximum is None or n <= p.maximum)


def _value(p: Parameter, raw: str) -> Value:
    """The value of `raw`, known to be allowed."""
    if p.type is ParamType.BOOL:
        return raw == "true"
    if p.type is ParamType.INT:
        return 0 if p.zero != "" and raw == p.zero else int(raw)
    if p.type is ParamType.SUBSET:
        parts = set(raw.split("/")) if raw != NONE else set()
        return tuple(v for v in p.values if v in parts)
    if p.type is ParamType.COMBINATION:
        return tuple(sorted(raw.split("/")))
    return raw


def parse(spec: VariantSpec[C], text: str) -> C:
    """The ruleset's configuration named by a variant string; raises VariantError."""
    return spec.to_config(parse_values(spec, text))


# -- writing ---------------------------------------------------------------------------------


def format_value(p: Parameter, value: Value) -> str:
    """A value as a variant string writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return p.zero if value == 0 and p.zero else str(value)
    if isinstance(value, tuple):
        return "/".join(value) or (NONE if p.type is ParamType.SUBSET else "")
    return value


def format_values(spec: "VariantSpec[Any]", values: Mapping[str, Value]) -> str:
    """The canonical variant string of these values (see the module docstring)."""
    items = [str(values[spec.key])] if spec.variants else []
    changed = [p for p in spec.parameters if values[p.name] != p.default]
    items += [format_value(p, values[p.name]) for p in changed if p.bare and not p.flag]
    items += sorted(p.name for p in changed if p.flag)
    items += sorted(f"{p.name}={format_value(p, values[p.name])}" for p in changed if not p.bare)
    return "+".join(items)


def format_variant(spec: VariantSpec[C], config: C) -> str:
    """The canonical variant string of a configuration: what `GameCreated.variant` stores."""
    return format_values(spec, spec.from_config(config))


# -- describing ------------------------------------------------------------------------------


def allowed(p: Parameter) -> str:
    """The values `p` allows, in words: "26 or 18", "an integer of at least 2"."""
    if p.type is ParamType.BOOL:
        return "set or not set" if p.flag else "true or false"
    if p.type is ParamType.INT:
        if p.minimum is not None and p.maximum is not None:
            text = f"an integer from {p.minimum} to {p.maximum}"
        elif p.maximum is not None:
            text = f"an integer of at most {p.maximum}"
        else:
            text = f"an integer of at least {p.minimum or 0}"
        return f"{text} or {p.zero}" if p.zero else text
    if p.type is ParamType.CHOICE:
        return _either(p.values)
    if p.type is ParamType.PERMUTATION:
        return f"a permutation of {''.join(p.values)}"
    if p.type is ParamType.SUBSET:
        return f"{NONE} or distinct values of {_listing(p.values)} joined by /"
    return f"{p.size} values of {_listing(p.values)} joined by /"


def requirement(spec: "VariantSpec[Any]", needs: tuple[str, str]) -> str:
    """What a parameter needs, in words: "the hex91 board", "size=large"."""
    other, wanted = needs
    return f"the {wanted} {other}" if spec.parameter(other).bare else f"{other}={wanted}"


_LISTED = 12  # a longer list of values is shown by its first three, its last and its length


def _listing(values: tuple[str, ...]) -> str:
    """The values joined by / (a long list, such as Yiora's 271 men of a setup, shortened)."""
    if len(values) <= _LISTED:
        return "/".join(values)
    return f"{'/'.join(values[:3])}/…/{values[-1]} ({len(values)} values)"


def _either(values: tuple[str, ...]) -> str:
    return values[0] if len(values) == 1 else f"{', '.join(values[:-1])} or {values[-1]}"


def describe(spec: "VariantSpec[Any]") -> dict[str, Any]:
    """The spec, JSON-ready: for a gateway or a matchmaker to offer the variants."""
    return {
        "key": spec.key if spec.variants else None,
        "default": format_values(spec, defaults(spec)),
        "named_first": spec.first,
        "variants": [{"name": v.name, "description": v.description} for v in spec.variants],
        "parameters": [_describe(p) for p in spec.parameters],
    }


def _describe(p: Parameter) -> dict[str, Any]:
    default = list(p.default) if isinstance(p.default, tuple) else p.default
    return {
        "name": p.name,
        "description": p.description,
        "type": str(p.type),
        "written": "flag" if p.flag else "value" if p.bare else "key=value",
        "default": default,
        "default_text": format_value(p, p.default),
        "allowed": allowed(p),
        "values": list(p.values),
        "minimum": p.minimum,
        "maximum": p.maximum,
        "zero": p.zero or None,
        "size": p.size or None,
        "only": list(p.only),
        "elsewhere": ("ignored" if p.ignored else "refused") if p.only else None,
        "needs": {"parameter": p.needs[0], "value": p.needs[1]} if p.needs else None,
    }
