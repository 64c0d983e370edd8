"""Real clusters on loopback (services.runtime.cluster), one of each per test module, stopped
at its end whatever happened."""

from collections.abc import Iterator

import pytest

from services.runtime import access
from services.runtime.cluster import (
    NatsCluster,
    ValkeyCluster,
    start_nats_cluster,
    start_valkey_cluster,
)


@pytest.fixture(scope="module")
def creds() -> access.Credentials:
    return access.Credentials.generate()


@pytest.fixture(scope="module")
def nats_cluster(
    tmp_path_factory: pytest.TempPathFactory, creds: access.Credentials
) -> Iterator[NatsCluster]:
    cluster = start_nats_cluster(tmp_path_factory.mktemp("nats"), creds)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def valkey_cluster(
    tmp_path_factory: pytest.TempPathFactory, creds: access.Credentials
) -> Iterator[ValkeyCluster]:
    cluster = start_valkey_cluster(tmp_path_factory.mktemp("valkey"), creds)
    try:
        yield cluster
    finally:
        cluster.stop()
