"""The randomness service: committed seeds, idempotent draws, secrets kept off NATS; outcomes
written once and bound to the game's progress. It answers the rules service only, so these tests
ask as the rules service does (tests/security shows that nobody else gets an answer)."""

from collections.abc import AsyncIterator, Callable

import msgspec
import pytest
import redis.asyncio as aioredis

from contracts import subjects
from contracts.commands import (
    CreateSeed,
    Draw,
    Drawn,
    RevealSeed,
    SeedCommitted,
    SeedRevealedReply,
)
from contracts.errors import ErrorCode
from domain import fairplay
from services.client.client import Client, TabulaError
from services.randomness.handlers import AHEAD
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore, NewEvent
from services.runtime.keys import log_key, meta_key, secret_key, seed_key

MIX = fairplay.mix(["alice0123456789ab", "bob0123456789abcd"])


@pytest.fixture
async def client(
    stack: Settings, role_settings: Callable[[str], Settings]
) -> AsyncIterator[Client]:
    """The randomness service's one caller: the rules service's user."""
    c = await Client.connect(role_settings("rules").nats_url)
    yield c
    await c.close()


async def draw(client: Client, game_id: str, nonce: int, kind: str, n: int) -> Drawn:
    req = Draw(game_id=game_id, nonce=nonce, kind=kind, n=n, mix=MIX)
    return await client.request(subjects.RANDOM_DRAW, req, Drawn)


async def seed_of(client: Client, redis, game_id: str) -> tuple[str, SeedCommitted]:  # type: ignore[no-untyped-def]
    committed = await client.request(subjects.RANDOM_SEED, CreateSeed(game_id=game_id),
                                     SeedCommitted)  # fmt: skip
    return (await redis.get(seed_key(game_id))).decode(), committed


async def test_seed_is_committed_once_and_never_sent(client: Client, redis) -> None:  # type: ignore[no-untyped-def]
    seed, committed = await seed_of(client, redis, "rnd-1")
    _, again = await seed_of(client, redis, "rnd-1")
    assert committed == again  # the seed is made once
    assert committed.commitment == fairplay.seed_commitment(seed)
    assert seed not in msgspec.json.encode(committed).decode()


async def test_dice_recompute_and_a_retry_gets_the_same_outcome(client: Client, redis) -> None:  # type: ignore[no-untyped-def]
    seed, _ = await seed_of(client, redis, "rnd-2")
    for nonce in range(5):
        d = await draw(client, "rnd-2", nonce, "die", 10)
        assert d == await draw(client, "rnd-2", nonce, "die", 10)
        assert d.values == [fairplay.die(seed, "rnd-2", MIX, nonce, 10)]


async def test_a_shuffle_and_a_salt_are_stored_not_sent(client: Client, redis) -> None:  # type: ignore[no-untyped-def]
    """Secret outcomes never cross NATS: they are written under the game's secret key."""
    seed, _ = await seed_of(client, redis, "rnd-3")
    for nonce in range(5):
        await draw(client, "rnd-3", nonce, "die", 6)
    deck = await draw(client, "rnd-3", 5, "shuffle", 52)
    assert (deck.values, deck.stored) == ([], True)
    order = msgspec.json.decode(await redis.hget(secret_key("rnd-3"), "shuffle:5"))
    assert order == fairplay.shuffle(seed, "rnd-3", MIX, 5, 52)
    salt = await draw(client, "rnd-3", 0, "salt", 3)
    assert (salt.values, salt.stored) == ([], True)
    stored_salt = (await redis.hget(secret_key("rnd-3"), "salt:3")).decode()
    assert stored_salt == fairplay.card_salt(seed, "rnd-3", 3)


async def test_the_seed_is_revealed_only_after_the_game_ended(client: Client, redis) -> None:  # type: ignore[no-untyped-def]
    _, committed = await seed_of(client, redis, "rnd-4")
    with pytest.raises(TabulaError) as exc:
        await client.request(subjects.RANDOM_REVEAL, RevealSeed(game_id="rnd-4"),
                             SeedRevealedReply)  # fmt: skip
    assert exc.value.code == ErrorCode.ILLEGAL_ACTION
    await redis.hset(meta_key("rnd-4"), "result", "1-0")  # what the rules service marks
    revealed = await client.request(subjects.RANDOM_REVEAL, RevealSeed(game_id="rnd-4"),
                                    SeedRevealedReply)  # fmt: skip
    assert fairplay.seed_commitment(revealed.server_seed) == committed.commitment


async def test_draw_errors_are_typed(client: Client, redis) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TabulaError) as exc:
        await draw(client, "never-seeded", 0, "die", 10)
    assert exc.value.code == ErrorCode.UNKNOWN_GAME
    await seed_of(client, redis, "rnd-5")
    for kind, n in (("die", 1), ("die", 300), ("coin", 2), ("shuffle", 0)):
        with pytest.raises(TabulaError) as exc:
            await draw(client, "rnd-5", 0, kind, n)
        assert exc.value.code == ErrorCode.MALFORMED


async def test_an_outcome_is_written_once(client: Client, redis, store: EventStore) -> None:  # type: ignore[no-untyped-def]
    """The game's mix is fixed by its first draw, and a nonce's kind and n once the log records
    it: another request gets `random/drawn` and the stored shuffle stays the protocol's."""
    game = "rnd-6"
    seed, _ = await seed_of(client, redis, game)
    await draw(client, game, 0, "shuffle", 52)
    stored = await redis.hget(secret_key(game), "shuffle:0")
    recorded = msgspec.json.encode(
        {"type": "DeckShuffled", "nonce": 0, "n": 52, "purpose": "deck",
         "order": msgspec.json.decode(stored)}
    )  # fmt: skip
    await store.append(game, 0, fairplay.genesis_hash(game), "c1",
                       [NewEvent("DeckShuffled", recorded)])  # fmt: skip
    bogus = Draw(game_id=game, nonce=0, kind="shuffle", n=52, mix="0" * 64)
    for req in (bogus, Draw(game_id=game, nonce=0, kind="shuffle", n=40, mix=MIX),
                Draw(game_id=game, nonce=0, kind="die", n=6, mix=MIX)):  # fmt: skip
        with pytest.raises(TabulaError) as exc:
            await client.request(subjects.RANDOM_DRAW, req, Drawn)
        assert exc.value.code == ErrorCode.DRAWN
    assert await redis.hget(secret_key(game), "shuffle:0") == stored
    assert msgspec.json.decode(stored) == fairplay.shuffle(seed, game, MIX, 0, 52)
    again = await draw(client, game, 0, "shuffle", 52)  # the same request: the same outcome
    assert again.stored


async def test_a_nonce_not_yet_in_the_log_may_be_drawn_again(client: Client, redis) -> None:  # type: ignore[no-untyped-def]
    """A decision that drew and was then abandoned (refused, or beaten by another replica)
    leaves its nonce unlogged: the next decision may draw it with other parameters, under the
    same mix, so no game stalls on it."""
    game = "rnd-8"
    seed, _ = await seed_of(client, redis, game)
    await draw(client, game, 0, "die", 10)
    redrawn = await draw(client, game, 0, "die", 6)
    assert redrawn.values == [fairplay.die(seed, game, MIX, 0, 6)]
    await draw(client, game, 0, "shuffle", 20)
    order = msgspec.json.decode(await redis.hget(secret_key(game), "shuffle:0"))
    assert order == fairplay.shuffle(seed, game, MIX, 0, 20)
    other_mix = Draw(game_id=game, nonce=0, kind="die", n=6, mix="1" * 64)
    with pytest.raises(TabulaError) as exc:  # but never under another mix
        await client.request(subjects.RANDOM_DRAW, other_mix, Drawn)
    assert exc.value.code == ErrorCode.DRAWN


async def test_no_nonce_is_drawn_ahead_of_the_log(client: Client, redis, store: EventStore) -> None:  # type: ignore[no-untyped-def]
    """A nonce comes only after the one before it, and within AHEAD of the nonce the log waits
    for; once the log records the draws, the window moves on."""
    game = "rnd-7"
    seed, _ = await seed_of(client, redis, game)
    with pytest.raises(TabulaError) as exc:
        await draw(client, game, 3, "die", 6)  # nonces 0-2 not drawn
    assert exc.value.code == ErrorCode.DRAW_AHEAD
    for nonce in range(AHEAD):
        await draw(client, game, nonce, "die", 6)
    with pytest.raises(TabulaError) as exc:
        await draw(client, game, AHEAD, "die", 6)  # the log still waits for nonce 0
    assert exc.value.code == ErrorCode.DRAW_AHEAD
    assert not await redis.hexists("tabula:game:{rnd-7}:drawn", f"n:{AHEAD}")
    recorded = msgspec.json.encode(
        {"type": "RandomDrawn", "nonce": 0, "kind": "die", "n": 6, "purpose": "t", "value": 1}
    )
    await store.append(game, 0, fairplay.genesis_hash(game), "c1",
                       [NewEvent("RandomDrawn", recorded)])  # fmt: skip
    moved = await draw(client, game, AHEAD, "die", 6)
    assert moved.values == [fairplay.die(seed, game, MIX, AHEAD, 6)]


async def test_no_card_salt_is_kept_ahead_of_the_deal(
    client: Client, redis, store: EventStore
) -> None:  # type: ignore[no-untyped-def]
    """Issue 10, per-game caps on stored secrets: a card salt's deck position lies within AHEAD
    of the next position the log deals, so a game's secret hash grows with its log and no
    faster; a refused salt stores nothing."""
    game = "rnd-salts"
    await seed_of(client, redis, game)
    for position in range(AHEAD):
        assert (await draw(client, game, 0, "salt", position)).stored
    with pytest.raises(TabulaError) as exc:
        await draw(client, game, 0, "salt", AHEAD)
    assert exc.value.code == ErrorCode.DRAW_AHEAD
    assert await redis.hlen(secret_key(game)) == AHEAD
    dealt = msgspec.json.encode({"type": "CardDealt", "seat": 0, "position": 5,
                                 "commitment": "0" * 64, "card": "x", "salt": ""})  # fmt: skip
    await store.append(game, 0, fairplay.genesis_hash(game), "c1",
                       [NewEvent("CardDealt", dealt)])  # fmt: skip
    assert (await draw(client, game, 0, "salt", AHEAD + 5)).stored  # the window moved on
    with pytest.raises(TabulaError) as exc:
        await draw(client, game, 0, "salt", AHEAD + 6)
    assert exc.value.code == ErrorCode.DRAW_AHEAD


async def test_a_malformed_log_entry_is_named_not_internal(
    client: Client, redis, role_settings: Callable[[str], Settings]
) -> None:  # type: ignore[no-untyped-def]
    """Issue 20, item 14: the service paces draws by the game's log; an entry there that the
    store's writers cannot have written (the rules service's user may XADD) is answered with
    the typed `store/corrupt`, naming the game and the entry, not `internal`."""
    game = "rnd-corrupt"
    await seed_of(client, redis, game)
    rules = aioredis.from_url(role_settings("rules").redis_url)
    try:
        entry = (await rules.xadd(log_key(game), {"type": "RandomDrawn"}, id="0-1")).decode()
    finally:
        await rules.aclose()
    with pytest.raises(TabulaError) as exc:
        await draw(client, game, 0, "salt", 0)
    assert exc.value.code == ErrorCode.STORE_CORRUPT
    assert exc.value.reason == (f"game {game}: the stored entry at stream id {entry} is "
                                "malformed: it has no field body")  # fmt: skip
