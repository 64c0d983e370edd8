"""Messages for every request subject, shared by tests/security/test_limits.py and
tests/faults/fuzz.py:
- `hostile`: objects with a message's own field names and random values, or raw bytes; almost
  all of them fail to decode (`request/malformed`), which is what they test;
- `typed`: messages built from the contracts' own types (msgspec.inspect), every field within
  its declared bounds, so they decode and reach the handlers; biased toward meaningful values
  (registered rulesets and their variants, real actions, the ids, seats and tokens of games
  created legitimately, versions around theirs) and toward what the contract admits at its
  edges (bounds, and a trailing newline, which a pattern's `$` allows).
"""

import contextlib
import hashlib
import re
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
import msgspec.inspect as mi
from hypothesis import strategies as st

from contracts import subjects
from contracts.commands import (
    Act,
    Cancel,
    CreateGame,
    CreateSeed,
    Draw,
    Enqueue,
    GetView,
    ReadEvents,
    RevealSeed,
)
from domain import fairplay
from domain.core import VariantError
from domain.registry import RULESETS
from services.client.client import Client
from services.runtime.sealing import new_reply_key

KEY = new_reply_key()[1]
T = TypeVar("T")
Case = tuple[str, bytes]

# The player's request subjects, and the randomness service's (whose only caller is the rules
# service).
SUBJECTS: dict[str, type[Any]] = {
    subjects.RULES_CREATE: CreateGame,
    subjects.RULES_ACT: Act,
    subjects.RULES_READ: ReadEvents,
    subjects.RULES_VIEW: GetView,
    subjects.MATCH_ENQUEUE: Enqueue,
    subjects.MATCH_CANCEL: Cancel,
}
RANDOMNESS: dict[str, type[Any]] = {
    subjects.RANDOM_SEED: CreateSeed,
    subjects.RANDOM_DRAW: Draw,
    subjects.RANDOM_REVEAL: RevealSeed,
}


async def ask(client: Client, subject: str, payload: bytes) -> dict[str, Any]:
    """The reply as plain JSON: whatever kind it is, its `reply` tag and an error's `code`."""
    msg = await client.nc.request(subject, payload, timeout=10)
    reply: dict[str, Any] = msgspec.json.decode(msg.data)
    return reply


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40)
    | st.sampled_from(["chess3d", "yavoch", "g-1", KEY, "0" * 64, "IE2-IE4", "resign", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=8,
)  # fmt: skip


def hostile(types: dict[str, type[Any]]) -> st.SearchStrategy[Case]:
    """(subject, payload): objects with the message's own field names and random values, or
    raw bytes."""

    def message(subject: str) -> st.SearchStrategy[Case]:
        fields = list(types[subject].__struct_fields__)
        names = st.text(max_size=8)  # and the message's own, if it has fields
        names = st.sampled_from(fields) | names if fields else names
        body = st.dictionaries(names, values, max_size=8)
        payload = body.map(msgspec.json.encode) | st.binary(max_size=64)
        return payload.map(lambda p: (subject, p))

    return st.sampled_from(sorted(types)).flatmap(message)


# -- typed: valid messages -------------------------------------------------------------------


@dataclass(frozen=True)
class Legit:
    """A game created legitimately before the run, for typed messages to aim at."""

    game_id: str
    ruleset: str
    version: int = 1  # its version when created (versions asked for lie around it)
    tokens: tuple[str, ...] = ()  # its seats' tokens, when the caller has them


FRESH = "(fresh)"  # a valid command id, replaced by one made from the message (_fresh)
CLIENT_SEED = "fuzz-client-seed-0123456789"  # a valid client seed ([A-Za-z0-9_-]{16,64})
HEX = "0123456789abcdef"
VARIANTS = [
    "", "A", "B", "C", "C+hex91", "B+square10+dragon-reserve", "C+hex91+sea-movement",
    "sea-movement", "A+A", "decker", "full", "full+hand_limit=4+turn_limit=60", "full+x=1",
    "queen_directions=18", "fifty_move_mode=off+repetition_count=2", "queen_directions=17",
]  # fmt: skip
ACTIONS = [
    "resign", "offer-draw", "accept-draw", "decline-draw", "claim-timeout", "IE2-IE4",
    "IIE2-IIE4", "levels 12", "seed-commit " + "0" * 64, "seed-commit xyz",
    "seed-reveal " + CLIENT_SEED, "setup-commit " + "a" * 64, "setup-reveal 00 x", " resign ",
]  # fmt: skip


@dataclass(frozen=True)
class Table:
    """What a ruleset takes: its seats, the variants above it accepts, its start position and
    a few actions legal there (each seat's first few); whether its games have seeds."""

    seats: int
    seeded: bool
    variants: tuple[str, ...]
    position: str
    actions: tuple[str, ...]


def _openings() -> dict[str, Table]:
    """Each registered ruleset's Table."""
    tables = {}
    for name, rs in RULESETS.items():
        created = rs.create("")
        state = rs.start(created)
        variants, actions = [], []
        for variant in VARIANTS:
            with contextlib.suppress(VariantError):
                rs.create(variant)
                variants.append(variant)
        for seat in range(created.seats):
            actions += [rs.format_action(state, a) for a in rs.legal_actions(state, seat)][:6]
        tables[name] = Table(created.seats, created.randomness, tuple(variants),
                             rs.position(state), tuple(actions))  # fmt: skip
    return tables


TABLES = _openings()
POSITIONS = [t.position for t in TABLES.values()]
OPENING_ACTIONS = [a for t in TABLES.values() for a in t.actions]


def _hex(size: int) -> st.SearchStrategy[str]:
    return st.text(HEX, min_size=size, max_size=size)


def _sometimes(size: int) -> st.SearchStrategy[bool]:
    """True about once in `size` (or less: hypothesis draws the least integer more often than
    the others, so that one stands for False)."""
    return st.integers(1, size).map(lambda i: i == size)


def _pick(options: Sequence[T]) -> st.SearchStrategy[T]:
    """One of `options`, more evenly than sampled_from (whose first option hypothesis draws far
    more often than the others; here it is drawn about half the time, the rest evenly)."""
    return st.integers(0, 2**32 - 1).map(lambda i: options[i % len(options)])


def from_type(t: mi.Type) -> st.SearchStrategy[Any]:
    """Values of a msgspec type within its constraints (msgspec.inspect.type_info)."""
    if isinstance(t, mi.StrType):
        return _strings(t)
    if isinstance(t, mi.IntType):
        lo = t.ge if t.ge is not None else None if t.gt is None else t.gt + 1
        hi = t.le if t.le is not None else None if t.lt is None else t.lt - 1
        edges = [v for v in (lo, hi) if v is not None]
        ints = st.integers(lo, hi)
        return st.sampled_from(edges) | ints if edges else ints
    if isinstance(t, mi.NoneType):
        return st.none()
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.UnionType):
        return st.one_of([from_type(u) for u in t.types])
    if isinstance(t, mi.ListType):
        most = t.max_length if t.max_length is not None else 8
        return st.lists(from_type(t.item_type), min_size=t.min_length or 0, max_size=most)
    if isinstance(t, mi.LiteralType):
        return st.sampled_from(list(t.values))
    if isinstance(t, mi.EnumType):
        return st.sampled_from(list(t.cls))
    if isinstance(t, mi.StructType):  # a nested message (a clock): as the JSON object it is
        return st.fixed_dictionaries(
            {f.encode_name: from_type(f.type) for f in t.fields if f.required},
            optional={f.encode_name: from_type(f.type) for f in t.fields if not f.required},
        )
    raise NotImplementedError(f"no strategy for {t!r}")


def _strings(t: mi.StrType) -> st.SearchStrategy[str]:
    lo, hi = t.min_length or 0, t.max_length
    if t.pattern is None:
        return st.text(min_size=lo, max_size=hi if hi is not None else 64)
    pattern = re.compile(t.pattern)

    def fits(s: str) -> bool:  # msgspec checks a pattern with re.search: `$` admits a "\n"
        return lo <= len(s) <= (hi if hi is not None else len(s)) and bool(pattern.search(s))

    exact = st.from_regex(pattern, fullmatch=True)
    if t.min_length is not None or t.max_length is not None:
        exact = exact.filter(fits)
    newline = st.tuples(exact, _sometimes(16))  # at times, with one where the contract admits it
    return newline.map(lambda p: p[0] + "\n" if p[1] and fits(p[0] + "\n") else p[0])


def _meaningful(games: Sequence[Legit]) -> dict[str, st.SearchStrategy[Any]]:
    """Values with a meaning, by field name (each is checked against the field's type)."""
    ids = [g.game_id for g in games]
    return {
        "game_id": st.sampled_from([*ids, "g-1", "g-" + "0" * 20]) | _hex(20).map("g-".__add__),
        "ruleset": st.sampled_from([*sorted(RULESETS), "chess"]),
        "variant": st.sampled_from(VARIANTS),
        "position": st.sampled_from(["", "", *POSITIONS, POSITIONS[0].replace("w", "b")]),
        "players": st.sampled_from([[], ["alice", "bob"], ["alice"], ["a", "b", "c"]]),
        "reveal_deadline_ms": st.sampled_from([None, 0, 1, 86_400_000]),
        # fresh ones first (a command id applied once makes its retries duplicates)
        "command_id": st.sampled_from([FRESH, "c-1", *(f"finish:{i}" for i in ids), "match:t1:t2"]),
        "reply_key": st.just(KEY),
        "seat": st.sampled_from([0, 1, 2, 63]),
        "token": st.sampled_from(["", "0" * 64, *(t for g in games for t in g.tokens)]),
        "action": st.sampled_from([*ACTIONS, *OPENING_ACTIONS]),
        "expected_version": st.sampled_from([None, 0, 1, 2]),
        "after": st.sampled_from([0, 1, 2, 2**53]),
        "limit": st.sampled_from([1, 2, 1000]),
        "ticket": st.sampled_from(["t1", "t2", "t3", "t4"]),
        "owner": st.sampled_from(["o" * 16, "owner-of-ticket-2", "x" * 128]),
        "player": st.sampled_from(["", "alice", "bob"]),
        "nonce": st.sampled_from([0, 1, 2, 3, 64, 65, 2**53]),
        "kind": st.sampled_from(["die", "uniform", "shuffle", "salt", "card", ""]),
        "n": st.sampled_from([0, 1, 2, 6, 52, 1024, 1025, 2**32]),
        "mix": st.sampled_from(["", "0" * 64]),
    }


def _tables() -> st.SearchStrategy[dict[str, Any]]:
    """A registered ruleset with a variant it accepts, its default or start position, and as
    many players as it has seats, or none: what a create or an enqueue names, mostly valid."""

    def of(name: str) -> st.SearchStrategy[dict[str, Any]]:
        table = TABLES[name]
        players = [f"player-{seat}" for seat in range(table.seats)]
        return st.fixed_dictionaries({
            "ruleset": st.just(name),
            "variant": st.sampled_from(table.variants),
            "position": st.sampled_from(["", "", table.position]),
            "players": st.sampled_from([[], players]),
            "player": st.sampled_from(["", *players]),
        })  # fmt: skip

    return st.sampled_from(sorted(TABLES)).flatmap(of)


def _aimed(games: Sequence[Legit]) -> st.SearchStrategy[dict[str, Any]]:
    """A legit game's id with a seat in or out of its range, that seat's token (or another
    seat's, or a wrong one), an action that means something there, versions around its own."""

    def at(g: Legit, seat: int) -> st.SearchStrategy[dict[str, Any]]:
        own = g.tokens[seat] if seat < len(g.tokens) else None
        wrong = st.sampled_from(["", "0" * 64, *g.tokens]) | _hex(64)
        # The game's own first: its seat's seed commitment and reveal, its ruleset's openings.
        table = TABLES[g.ruleset]
        own_actions = [*(["seed-reveal " + CLIENT_SEED] if table.seeded else []), *table.actions]
        if table.seeded and seat < len(g.tokens):
            commitment = fairplay.client_seed_commitment(g.game_id, seat, CLIENT_SEED)
            own_actions.insert(0, "seed-commit " + commitment)
        actions = st.sampled_from([*ACTIONS, *OPENING_ACTIONS])
        actions = _pick(own_actions) | actions if own_actions else actions
        return st.fixed_dictionaries({
            "game_id": st.just(g.game_id),
            "seat": st.just(seat),
            "token": st.just(own) | wrong if own is not None else wrong,
            "action": actions,
            "expected_version": st.none() | st.integers(max(0, g.version - 2), g.version + 40),
            "after": st.integers(0, g.version + 40),
        })  # fmt: skip

    def game(g: Legit) -> st.SearchStrategy[dict[str, Any]]:
        seats = [*range(len(g.tokens))] * 3 + [len(g.tokens), len(g.tokens) + 1, 63]
        return _pick(seats).flatmap(lambda seat: at(g, seat))

    return _pick(list(games)).flatmap(game)


def instances(t: type[Any], games: Sequence[Legit] = ()) -> st.SearchStrategy[Any]:
    """Instances of the request type `t` whose every field is within its declared bounds."""
    info = mi.type_info(t)
    assert isinstance(info, mi.StructType), t
    hints = typing.get_type_hints(t, include_extras=True)
    meaningful = _meaningful(games)
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for f in info.fields:
        strategy = from_type(f.type)
        if f.name in meaningful:
            strategy = meaningful[f.name].filter(_fits(hints[f.name])) | strategy
        fields[f.name] = strategy
    body = st.fixed_dictionaries(fields)
    # Coherent fields, mostly: a legit game's own seats, tokens and actions; a table.
    coherent = [_aimed(games)] if games and "seat" in fields else []
    coherent += [_tables()] if "ruleset" in fields else []
    for overrides in coherent:
        mine = overrides.map(lambda d: {k: v for k, v in d.items() if k in fields})
        body = st.tuples(body, mine, _sometimes(4)).map(
            lambda p: p[0] if p[2] else {**p[0], **p[1]}
        )
    return body.map(lambda d: t(**_fresh(d)))


def _fresh(fields: dict[str, Any]) -> dict[str, Any]:
    """A FRESH command id becomes one of the message's own: the same for the same message (a
    retry), another for any other (hypothesis draws the same few ids again and again)."""
    if fields.get("command_id") == FRESH:
        digest = hashlib.sha256(msgspec.json.encode(sorted(fields.items()))).hexdigest()
        fields = {**fields, "command_id": digest[:32]}
    return fields


def _fits(hint: Any) -> Callable[[Any], bool]:
    """Whether msgspec accepts a value for a field annotated `hint` (its own check)."""

    def fits(value: Any) -> bool:
        try:
            msgspec.convert(value, hint)
        except msgspec.ValidationError:
            return False
        return True

    return fits


def typed(types: dict[str, type[Any]], games: Sequence[Legit] = ()) -> st.SearchStrategy[Case]:
    """(subject, payload): a valid message of the subject's type, JSON-encoded."""

    def message(subject: str) -> st.SearchStrategy[Case]:
        return instances(types[subject], games).map(lambda m: (subject, msgspec.json.encode(m)))

    return st.sampled_from(sorted(types)).flatmap(message)


def decodes(types: dict[str, type[Any]], case: Case) -> bool:
    """Whether the case's payload decodes as its subject's type (as the service decodes it)."""
    subject, payload = case
    try:
        msgspec.json.decode(payload, type=types[subject])
    except msgspec.DecodeError:
        return False
    return True
