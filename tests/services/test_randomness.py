"""The randomness service: committed seeds and idempotent draws, over real NATS and Redis."""

import hashlib

import pytest

from contracts import subjects
from contracts.commands import CreateSeed, Draw, Drawn, SeedCommitted
from contracts.errors import ErrorCode
from domain import fairplay
from services.client.client import Client, TabulaError
from services.randomness.handlers import seed_key


async def test_seed_is_committed_and_draws_recompute(client: Client, redis) -> None:  # type: ignore[no-untyped-def]
    game_id = "rnd-1"
    committed = await client.request(
        subjects.RANDOM_SEED, CreateSeed(game_id=game_id), SeedCommitted
    )
    again = await client.request(subjects.RANDOM_SEED, CreateSeed(game_id=game_id), SeedCommitted)
    assert committed == again  # the seed is made once
    seed = (await redis.get(seed_key(game_id))).decode()
    assert committed.commitment == fairplay.seed_commitment(seed)
    assert seed not in committed.commitment
    mix = hashlib.sha256(b"").hexdigest()
    for nonce in range(5):
        d = await client.request(
            subjects.RANDOM_DRAW, Draw(game_id=game_id, nonce=nonce, kind="die", n=10), Drawn
        )
        retry = await client.request(
            subjects.RANDOM_DRAW, Draw(game_id=game_id, nonce=nonce, kind="die", n=10), Drawn
        )
        assert d == retry
        assert d.values == [fairplay.die(seed, game_id, mix, nonce, 10)]
    deck = await client.request(
        subjects.RANDOM_DRAW, Draw(game_id=game_id, nonce=5, kind="shuffle", n=52), Drawn
    )
    assert sorted(deck.values) == list(range(52))
    assert deck.values == fairplay.shuffle(seed, game_id, mix, 5, 52)


async def test_draw_errors_are_typed(client: Client) -> None:
    with pytest.raises(TabulaError) as exc:
        await client.request(
            subjects.RANDOM_DRAW, Draw(game_id="never-seeded", nonce=0, kind="die", n=10), Drawn
        )
    assert exc.value.code == ErrorCode.UNKNOWN_GAME
    await client.request(subjects.RANDOM_SEED, CreateSeed(game_id="rnd-2"), SeedCommitted)
    for kind, n in (("die", 1), ("die", 300), ("coin", 2)):
        with pytest.raises(TabulaError) as exc:
            await client.request(
                subjects.RANDOM_DRAW, Draw(game_id="rnd-2", nonce=0, kind=kind, n=n), Drawn
            )
        assert exc.value.code == ErrorCode.MALFORMED
