"""The reduced fault run of `make test` (`make test-faults` runs the full one): bot games of every
registered ruleset through a `tabula up` stack while a rules replica, the randomness service,
Valkey and nats-server are killed and Valkey is frozen, once each; then every acknowledged
command is found exactly once, every log passes the audit and every game finished sealed; and
the same on the cluster (`make test-cluster`)."""

import secrets

import pytest
import redis.asyncio as aioredis

from services.runtime import keys
from tests.faults import fuzz, run


def test_every_kind_of_kill_loses_duplicates_forks_and_stalls_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = run.main(["--games", "3", "--kills", "1", "--step", "20", "--deadline", "300"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "0 lost, 0 duplicated, 0 forked, 0 unsealed" in out, out
    assert "0 unarchived" in out, out
    for kind in run.KINDS:  # each fault happened, and the stack replaced what it struck
        assert f"{kind}: SIG" in out, out


def test_on_the_cluster_every_kind_of_kill_loses_duplicates_forks_and_stalls_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`make test-cluster`'s run, reduced: on `tabula up --cluster`, a NATS node, a Valkey
    primary (its replica takes over), a rules replica, a matchmaker, a gateway and a randomness
    service SIGKILLed once each during bot games of every ruleset."""
    status = run.main(["--cluster", "--games", "1", "--kills", "1", "--step", "20",
                       "--deadline", "300"])  # fmt: skip
    out = capsys.readouterr().out
    assert status == 0, out
    assert "0 lost, 0 duplicated, 0 forked, 0 unsealed" in out, out
    assert "0 unarchived" in out, out
    for kind in run.CLUSTER_KINDS:
        assert f"{kind}: SIG" in out, out
    assert "its replica took over after" in out, out


async def test_the_fuzz_counts_an_expired_rate_window_as_expired_and_a_deleted_key_as_lost(
    redis: "aioredis.Redis",
) -> None:
    """A rate window that expires during the fuzz is not a lost key (issue 20, item 12: the
    gateway's window expires 61 s after `tabula up`'s probe); a key of a family kept for ever,
    and a rate key that had no TTL, are lost when they disappear."""
    me = secrets.token_hex(6)
    window = keys.rate_key("ip", f"fuzz-{me}", 1)
    untimed = keys.rate_key("ip", f"fuzz-{me}", 2)
    account = keys.account_key(f"fuzz-{me}")
    await redis.set(window, 1, ex=61)  # as RateLimits.check leaves it
    await redis.set(untimed, 1)
    await redis.hset(account, "player", "p")
    before = {window, untimed, account}
    timed = await fuzz.expiring(redis, before)
    assert timed == {window}
    await redis.pexpireat(window, 1)  # its expiry, now rather than in 61 s: a time past
    assert not await redis.exists(window)
    await redis.delete(untimed, account)
    expired, lost = fuzz.gone(before, set(), timed)
    assert expired == {window}
    assert lost == [f"key {account!r} is gone", f"key {untimed!r} is gone"]
