"""The bare loop the benchmark compares against: NATS request -> one Redis XADD -> reply.

No rules, no script, no state; appends are group-committed exactly like the event store's
(everything queued during a round trip goes out in the next pipeline).
"""

import asyncio
from typing import Any

import redis.asyncio as aioredis
from nats.aio.client import Client as NATS

from contracts.commands import Act, Receipt, Reply
from services.runtime.config import Settings
from services.runtime.service import ServiceApp, main

SUBJECT = "tabula.bench.bare"


class Batcher:
    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.queue: list[tuple[str, bytes, asyncio.Future[Any]]] = []
        self.wakeup = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def xadd(self, key: str, body: bytes) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.queue.append((key, body, future))
        self.wakeup.set()
        if self.task is None:
            self.task = asyncio.create_task(self.loop())
        return await future

    async def loop(self) -> None:
        while True:
            await self.wakeup.wait()
            self.wakeup.clear()
            while self.queue:
                batch, self.queue = self.queue[:256], self.queue[256:]
                pipe = self.redis.pipeline(transaction=False)
                for key, body, _ in batch:
                    pipe.xadd(key, {"body": body})
                for (_, _, future), result in zip(batch, await pipe.execute(), strict=True):
                    future.set_result(result)


async def build(nc: NATS, redis: "aioredis.Redis", settings: Settings) -> ServiceApp:
    batcher = Batcher(redis)

    async def handle(req: Act) -> Reply:
        entry = await batcher.xadd(f"bench:bare:{{{req.game_id}}}", req.action.encode())
        return Receipt(game_id=req.game_id, version=0, hash=str(entry), first_version=0)

    app = ServiceApp(nc, "tabula-bench-bare", "Benchmark baseline: one XADD per request")
    app.endpoint("bare", SUBJECT, Act, handle, "bench")
    return app


if __name__ == "__main__":
    main(build)
