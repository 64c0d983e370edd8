"""The reduced fault run of `make test` (`make test-faults` runs the full one): bot games of every
registered ruleset through a `tabula up` stack while a rules replica, the randomness service,
Valkey and nats-server are killed and Valkey is frozen, once each; then every acknowledged
command is found exactly once, every log passes the audit and every game finished sealed."""

import pytest

from tests.faults import run


def test_every_kind_of_kill_loses_duplicates_forks_and_stalls_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = run.main(["--games", "3", "--kills", "1", "--step", "20", "--deadline", "300"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "0 lost, 0 duplicated, 0 forked, 0 unsealed" in out, out
    for kind in run.KINDS:  # each fault happened, and the stack replaced what it struck
        assert f"{kind}: SIG" in out, out
