"""The archive's packing (services.runtime.archived): every byte of every entry and command id
comes back, whatever the entries hold; a regular entry is packed by column, anything else
verbatim; and the fast parse of an archived game is what parse_entry makes of each entry."""

import zlib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.envelope import StoredEvent
from domain.fairplay import CHAIN_V2, CHAIN_VERSIONS, chain_link, genesis_hash
from services.runtime import archived
from services.runtime.archived import Entries, pack_commands, pack_log, unpack_commands, unpack_log
from services.runtime.codec import CorruptEntry
from services.runtime.eventstore import parse_entry
from tests.contracts.test_golden import load

GOLDEN = Path(__file__).parents[1] / "contracts" / "golden"
GAMES = sorted(p.stem for p in GOLDEN.glob("*.jsonl"))


def raw_entries(stored: list[StoredEvent]) -> Entries:
    """The entries a log's events are in Valkey, as append.lua and import_log write them."""
    out: Entries = []
    for s in stored:
        fields = {b"g": s.game_id.encode(), b"v": b"%d" % s.version, b"type": s.type.encode(),
                  b"body": bytes(s.body), b"cmd": s.command_id.encode(),
                  b"ts": b"%d" % s.time_ms, b"h": s.hash.encode()}  # fmt: skip
        if s.action:
            fields[b"act"] = s.action.encode()
        out.append((b"0-%d" % s.version, fields))
    return out


def commands_of(entries: Entries) -> dict[bytes, bytes]:
    """The command ids append.lua keeps for a log: "<first> <last> <hash>"."""
    out: dict[bytes, list[bytes]] = {}
    for _, f in entries:
        span = out.setdefault(f[b"cmd"], [f[b"v"], f[b"v"], f[b"h"]])
        span[1], span[2] = f[b"v"], f[b"h"]
    return {k: b" ".join(v) for k, v in out.items()}


def row(game_id: str, entries: Entries, commands: dict[bytes, bytes], with_log: bool = True
        ) -> tuple[Any, ...]:  # fmt: skip
    cmds = pack_commands(commands, entries if with_log else None)
    return (game_id, "", len(entries), "00" * 32, archived.FORMAT, pack_log(entries), cmds)


def parsed(game_id: str, entries: Entries) -> tuple[StoredEvent, ...] | str:
    """What the hot store's reader makes of the entries: the events, or the first CorruptEntry."""
    try:
        return tuple(parse_entry(game_id, i, f) for i, f in entries)
    except (CorruptEntry, UnicodeDecodeError) as exc:  # as parse_entry raises
        return repr(exc)


def archive_parsed(game_id: str, r: tuple[Any, ...]) -> tuple[StoredEvent, ...] | str:
    try:
        return archived.archived_game(r).stored
    except (CorruptEntry, UnicodeDecodeError) as exc:  # as parse_entry raises
        return repr(exc)


def packed_log(entries: Entries) -> archived._Log:
    return msgspec.msgpack.decode(zlib.decompress(pack_log(entries)), type=archived._Log)


def odd_indexes(entries: Entries) -> list[int]:
    return [i for i, _, _ in packed_log(entries).odd]


def check(game_id: str, entries: Entries, commands: dict[bytes, bytes]) -> None:
    assert unpack_log(pack_log(entries)) == entries
    assert unpack_commands(pack_commands(commands)) == commands
    assert unpack_commands(pack_commands(commands, entries), archived.FORMAT, entries) == commands
    expected = parsed(game_id, entries)
    try:  # the command ids as text, as ArchivedGame holds them (one not UTF-8 fails the read)
        texts = {k.decode(): v.decode() for k, v in commands.items()}
    except UnicodeDecodeError as exc:
        texts, expected = {}, expected if isinstance(expected, str) else repr(exc)
    for with_log in (True, False):
        r = row(game_id, entries, commands, with_log)
        assert archive_parsed(game_id, r) == expected
        if not isinstance(expected, str):
            game = archived.archived_game(r)
            assert list(game.stored) == list(expected)
            assert game.commands == texts


@pytest.mark.parametrize("name", GAMES)
def test_a_real_log_comes_back_byte_for_byte_and_packed_by_column(name: str) -> None:
    stored = load(GOLDEN / f"{name}.jsonl")
    entries = raw_entries(stored)
    commands = commands_of(entries)
    check(stored[0].game_id, entries, commands)
    assert odd_indexes(entries) == []  # every entry regular: nothing kept verbatim
    log = packed_log(entries)  # every hash stored (a short log: each recomputed if long)
    assert (log.chain, len(log.hashes)) == (0, 32 * len(entries))
    # Packed smaller than the whole entries were: the columns and the log's command ids pay.
    plain = len(zlib.compress(msgspec.msgpack.encode(entries)))
    plain += len(zlib.compress(msgspec.msgpack.encode(commands)))
    packed = len(pack_log(entries)) + len(pack_commands(commands, entries))
    assert packed < 0.7 * plain, (packed, plain)
    # The log's command ids cost next to nothing beside it.
    assert len(pack_commands(commands, entries)) < 40


def regular(n: int = 6, game_id: str = "g-test") -> Entries:
    entries: Entries = []
    for v in range(1, n + 1):
        fields = {b"g": game_id.encode(), b"v": b"%d" % v, b"type": b"Moved",
                  b"body": b'{"type":"Moved","n":%d}' % v, b"cmd": b"c%d" % ((v + 1) // 2),
                  b"ts": b"%d" % (1_700_000_000_000 + v // 2), b"h": b"%064x" % (v * 7919),
                  b"act": b"0 move %d" % v}  # fmt: skip
        entries.append((b"0-%d" % v, fields))
    return entries


def changed(entries: Entries, i: int, **fields: bytes | None) -> Entries:
    out = [(e, dict(f)) for e, f in entries]
    for name, value in fields.items():
        if value is None:
            out[i][1].pop(name.encode(), None)
        else:
            out[i][1][name.encode()] = value
    return out


ODD: dict[str, Any] = {
    "no g": lambda e: changed(e, 2, g=None),
    "no v": lambda e: changed(e, 2, v=None),
    "no type": lambda e: changed(e, 2, type=None),
    "no body": lambda e: changed(e, 2, body=None),
    "no cmd": lambda e: changed(e, 2, cmd=None),
    "no ts": lambda e: changed(e, 2, ts=None),
    "no h": lambda e: changed(e, 2, h=None),
    "an unknown field": lambda e: changed(e, 2, extra=b"x"),
    "another game's g": lambda e: changed(e, 2, g=b"g-other"),
    "a v not its position": lambda e: changed(e, 2, v=b"9"),
    "a v with a leading zero": lambda e: changed(e, 2, v=b"03"),
    "an id not 0-v": lambda e: [*e[:2], (b"1-3", e[2][1]), *e[3:]],
    "a ts with leading zeros": lambda e: changed(e, 2, ts=b"0012"),
    "a ts not a number": lambda e: changed(e, 2, ts=b"12a"),
    "an empty ts": lambda e: changed(e, 2, ts=b""),
    "a ts of 20 digits": lambda e: changed(e, 2, ts=b"9" * 20),
    "an uppercase hash": lambda e: changed(e, 2, h=b"AB" * 32),
    "a 63-digit hash": lambda e: changed(e, 2, h=b"%063x" % 5),
    "a 65-digit hash": lambda e: changed(e, 2, h=b"%065x" % 5),
    "a hash with spaces": lambda e: changed(e, 2, h=b"ab " * 21 + b"a"),
    "a hash not hex": lambda e: changed(e, 2, h=b"z" * 64),
    "a non-UTF-8 hash": lambda e: changed(e, 2, h=b"\xff" * 64),
}
REGULAR: dict[str, Any] = {
    "no act": lambda e: changed(e, 2, act=None),
    "an empty act": lambda e: changed(e, 2, act=b""),
    "no act anywhere": lambda e: [changed(e, i, act=None)[i] for i in range(len(e))],
    "an empty body": lambda e: changed(e, 2, body=b""),
    "a non-UTF-8 body": lambda e: changed(e, 2, body=b"\xff\xfe\x00"),
    "a non-UTF-8 type": lambda e: changed(e, 2, type=b"\xc3("),
    "a non-UTF-8 command id": lambda e: changed(e, 2, cmd=b"\x80"),
    "a non-UTF-8 act": lambda e: changed(e, 2, act=b"\xe2\x82"),
    "a ts of 0": lambda e: changed(e, 0, ts=b"0"),
    "a time going back": lambda e: changed(e, 4, ts=b"5"),
    "a command id seen before": lambda e: changed(e, 4, cmd=b"c1"),
}


@pytest.mark.parametrize("case", sorted(ODD))
def test_an_entry_the_columns_cannot_derive_is_kept_verbatim(case: str) -> None:
    entries = ODD[case](regular())
    check(
        "g-test",
        entries,
        commands_of([(i, f) for i, f in entries if {b"cmd", b"v", b"h"} <= f.keys()]),
    )
    assert odd_indexes(entries) == [2]


@pytest.mark.parametrize("case", sorted(REGULAR))
def test_what_the_columns_keep_as_bytes_comes_back_as_they_were(case: str) -> None:
    entries = REGULAR[case](regular())
    check("g-test", entries, commands_of(entries))
    assert odd_indexes(entries) == []


def test_a_log_whose_g_is_not_the_game_id_keeps_it() -> None:
    entries = regular(game_id="g-one")
    check("g-two", entries, commands_of(entries))  # parsed as the row's game, g kept
    assert unpack_log(pack_log(entries))[0][1][b"g"] == b"g-one"


def test_command_ids_the_log_does_not_imply_come_back_as_they_were() -> None:
    entries = regular()
    commands = commands_of(entries)
    commands[b"c1"] = b"1 2 " + b"%064x" % 1  # not the log's last hash of c1
    commands[b"c2"] = b"03 4 " + b"%064x" % 2  # not canonical
    commands[b"c3"] = b"5 6 " + b"%064X" % 3  # uppercase
    commands[b"other"] = b"7 7 " + b"%064x" % 4  # a command not in the log
    commands[b"\xff"] = b"\x00 odd"
    check("g-test", entries, commands)
    del commands[b"c1"]  # the log's first command id missing: the others still implied
    check("g-test", entries, commands)


def test_command_ids_packed_with_their_log_are_not_read_without_it() -> None:
    entries = regular()
    blob = pack_commands(commands_of(entries), entries)
    with pytest.raises(ValueError, match="without it"):
        unpack_commands(blob)


def test_an_unknown_format_is_refused() -> None:
    entries = regular()
    with pytest.raises(ValueError, match="format 3"):
        unpack_log(pack_log(entries), 3)
    with pytest.raises(ValueError, match="format 3"):
        unpack_commands(pack_commands({}), 3)
    with pytest.raises(ValueError, match="format 3"):
        archived.archived_game(
            (*row("g-test", entries, {})[:4], 3, *row("g-test", entries, {})[5:])
        )


# -- hashes recomputed (format 2) --------------------------------------------------------------


@pytest.fixture
def long(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every log counts as long: its hashes are recomputed (archived.IMPLIED_FROM)."""
    monkeypatch.setattr(archived, "IMPLIED_FROM", 1)


def chained(entries: Entries, chain: int = CHAIN_V2) -> Entries:
    """The entries with each h the chain's link from the one before, as append.lua writes."""
    out: Entries = []
    prev = bytes.fromhex(genesis_hash(entries[0][1][b"g"].decode()))
    for entry_id, f in entries:
        prev = chain_link(chain, int(f[b"v"]), prev, f[b"type"], f[b"body"], int(f[b"ts"]),
                          f[b"cmd"], f.get(b"act", b""))  # fmt: skip
        out.append((entry_id, {**f, b"h": prev.hex().encode()}))
    return out


@pytest.mark.parametrize("chain", CHAIN_VERSIONS)
def test_a_hash_that_is_its_link_is_recomputed_not_stored(
    chain: int, long: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = chained(regular(40), chain)
    check("g-test", entries, commands_of(entries))
    log = packed_log(entries)
    assert (log.chain, log.hashes, log.odd) == (chain, b"", [])
    packed = len(pack_log(entries))
    monkeypatch.setattr(archived, "CHAIN_VERSIONS", ())  # as format 1 packed it: hashes stored
    assert packed < len(pack_log(entries)) - 30 * 40


def test_a_hash_that_is_not_its_link_is_kept_with_its_entry(long: None) -> None:
    entries = chained(regular(8))
    wrong = changed(entries, 3, h=b"%064x" % 1)  # the next entry's link is then not its h
    check("g-test", wrong, commands_of(wrong))
    assert odd_indexes(wrong) == [3, 4]
    moved = changed(entries, 3, body=b"{}")  # a body changed after its hash was made
    check("g-test", moved, commands_of(moved))
    assert odd_indexes(moved) == [3]


def test_an_entry_after_one_without_a_hash_is_kept_whole(long: None) -> None:
    entries = changed(chained(regular(8)), 2, h=None)  # no link from it to the next
    check("g-test", entries, commands_of([(i, f) for i, f in entries if b"h" in f]))
    assert odd_indexes(entries) == [2, 3]


def test_a_first_entry_of_no_chain_stores_every_hash(long: None) -> None:
    entries = changed(chained(regular(8)), 0, h=b"%064x" % 1)
    check("g-test", entries, commands_of(entries))
    log = packed_log(entries)
    assert (log.chain, len(log.hashes), log.odd) == (0, 8 * 32, [])


def test_only_a_long_log_has_its_hashes_recomputed() -> None:
    short = chained(regular(archived.IMPLIED_FROM - 1))
    assert (packed_log(short).chain, len(packed_log(short).hashes)) == (0, 32 * len(short))
    long = chained(regular(archived.IMPLIED_FROM))
    assert (packed_log(long).chain, packed_log(long).hashes) == (CHAIN_V2, b"")
    check("g-test", long, commands_of(long))


def test_a_format_1_row_still_unpacks() -> None:
    """Format 1 stored every hash, and its _Log had no `chain`."""
    entries = regular(8)
    log = packed_log(entries)
    assert log.chain == 0
    blob = zlib.compress(msgspec.msgpack.encode(msgspec.structs.astuple(log)[:-1]))
    assert unpack_log(blob, 1) == entries
    commands = pack_commands(commands_of(entries))
    r = (*row("g-test", entries, {})[:4], 1, blob, commands)
    assert list(archived.archived_game(r).stored) == list(parsed("g-test", entries))


_SPECIAL = [b"", b"0", b"00", b"1", b"0012", b"\xff", b"g-test", b"0-1"]
_bytes = st.one_of(st.binary(max_size=8), st.sampled_from(_SPECIAL))
_mutation = st.tuples(
    st.integers(0, 5),
    st.sampled_from([b"g", b"v", b"type", b"body", b"cmd", b"ts", b"h", b"act", b"zz"]),
    st.one_of(st.none(), _bytes, st.builds(lambda n: b"%064x" % n, st.integers(0, 2**256 - 1)),
              st.builds(lambda n: b"%064X" % n, st.integers(0, 2**256 - 1))),
)  # fmt: skip


@pytest.mark.parametrize("base", [regular(), chained(regular())], ids=["stored", "chained"])
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    mutations=st.lists(_mutation, max_size=6),
    ids=st.lists(st.tuples(st.integers(0, 5), st.binary(max_size=6)), max_size=2),
    extra=st.dictionaries(_bytes, _bytes, max_size=3),
)
def test_any_entries_and_command_ids_come_back_byte_for_byte(
    long: None,
    base: Entries,
    mutations: list[tuple[int, bytes, bytes | None]],
    ids: list[tuple[int, bytes]],
    extra: dict[bytes, bytes],
) -> None:
    entries = base
    for i, name, value in mutations:
        entries = changed(entries, i, **{name.decode(): value})
    for i, entry_id in ids:
        entries[i] = (entry_id, entries[i][1])
    commands = commands_of([(i, f) for i, f in entries if {b"cmd", b"v", b"h"} <= f.keys()])
    commands |= extra
    check("g-test", entries, commands)
