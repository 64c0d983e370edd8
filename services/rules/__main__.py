"""`python -m services.rules`: one rules replica (run several: they share a queue group, and
the games' actions by partition, services.rules.partitions).
DATABASE_URL (PostgreSQL as the `rules` role, read-only): the archive its reads fall through to
once a game has left Valkey, and the copy a Forget is checked against."""

import os
import secrets
import socket

import redis.asyncio as aioredis
import structlog
from nats.aio.client import Client as NATS
from nats.aio.subscription import Subscription

from contracts import subjects
from contracts.commands import Act, CreateGame, ForgetGames, GetKeys, GetView, ReadEvents
from contracts.envelope import StoredEvent
from services.rules.handlers import FLAG_S, Rules
from services.rules.partitions import PERIOD_S, Partitions
from services.rules.tokens import shared_secret
from services.runtime.archived import ArchiveReader
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from services.runtime.service import ServiceApp, main
from services.runtime.signing import ReceiptSigner, load_signer


async def build(nc: NATS, redis: "aioredis.Redis", settings: Settings) -> ServiceApp:
    signer = await load_signer(redis, settings.signing_key)
    archive = ArchiveReader(settings.database_url) if settings.database_url else None
    store = EventStore(redis, signer=signer, archive=archive)
    rules = Rules(store, nc, await shared_secret(redis, settings.secret), ReceiptSigner(signer))
    app = ServiceApp(nc, subjects.RULES_SERVICE, "Creates games and adjudicates every action")
    app.on_close.append(store.close)
    q = subjects.RULES_QUEUE
    app.endpoint("create", subjects.RULES_CREATE, CreateGame, rules.create, q)
    app.endpoint("act", subjects.RULES_ACT, Act, rules.act, q)
    app.endpoint("read", subjects.RULES_READ, ReadEvents, rules.read, q)
    app.endpoint("view", subjects.RULES_VIEW, GetView, rules.view, q)
    app.endpoint("keys", subjects.RULES_KEYS, GetKeys, rules.keys, q)
    app.endpoint("forget", subjects.RULES_FORGET, ForgetGames, rules.forget, q)
    app.follow(subjects.all_game_events(), StoredEvent, rules.games.on_committed)
    app.every(settings.sweep_s, rules.sweep)
    app.every(FLAG_S, rules.flag_due)  # the clocks' timer: a flag within this of its time

    served: dict[int, Subscription] = {}  # partition -> its subscription

    async def gain(partition: int) -> None:
        served[partition] = await app.attach("act", subjects.act_partition(partition), q)

    async def lose(partition: int) -> None:
        if (sub := served.pop(partition, None)) is not None:
            await app.detach(sub)

    replica = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"
    structlog.contextvars.bind_contextvars(replica=replica)  # on every line it logs from now
    partitions = Partitions(redis, replica, gain, lose, lambda: nc.is_connected)
    await partitions.tick()  # serving its share once started
    app.every(PERIOD_S, partitions.tick)
    app.on_intake_stopped.append(partitions.release)
    return app


if __name__ == "__main__":
    main(build)
