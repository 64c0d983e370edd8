"""Attack 7: an operator deletes a finished game and plays it again under the same id with
another ending. The chain of the new log verifies and the audit passes; the receipts a player
kept, signed by the rules service, show it is not the history the service vouched for."""

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from contracts.commands import Receipt
from contracts.events import GameSealed
from services.client.client import Client
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from services.runtime.keys import commands_key, log_key, meta_key
from services.runtime.signing import (
    Signer,
    check_receipts,
    check_seals,
    merkle,
    read_receipts,
    receipt_message,
    root_message,
    verify_receipt,
)

TABULA = str(Path(sys.executable).parent / "tabula")


def tabula(as_role: Callable[[str], Settings], *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as an arbiter runs it: the player's bus, the auditor's store."""
    env = {**os.environ, "NATS_URL": as_role("player").nats_url,
           "REDIS_URL": as_role("auditor").redis_url}  # fmt: skip
    return subprocess.run([TABULA, *args], env=env, capture_output=True, text=True, timeout=120,
                          check=False)  # fmt: skip


async def play_to_resignation(client: Client, game_id: str | None, loser: int) -> str:
    created = await client.create_game("chess3d", game_id=game_id)
    tokens = [s.token for s in created.seats]
    await client.act(created.game_id, 0, tokens[0], "IE2-IE4")
    await client.act(created.game_id, loser, tokens[loser], "resign")
    return created.game_id


async def test_every_head_and_the_seal_are_signed_with_the_published_key(
    closed_stack: Callable[[str], Settings], tmp_path: Path
) -> None:
    kept = tmp_path / "receipts.jsonl"
    client = await Client.connect(closed_stack("player").nats_url, receipts=kept)
    try:
        game_id = await play_to_resignation(client, None, loser=1)
        keys = await client.keys()
        log = await client.read(game_id)
    finally:
        await client.close()
    assert len(client.receipts) == 3  # the creation and both actions
    assert read_receipts(kept.read_bytes()) == client.receipts
    assert all(verify_receipt(r) and r.key in keys for r in client.receipts)
    assert log[-1].type == "GameSealed"
    assert check_seals(log, keys) == (1, None)
    assert check_receipts(log, client.receipts, keys) == (3, None)

    seal = msgspec.json.decode(log[-1].body, type=GameSealed)
    forged = msgspec.structs.replace(seal, version=seal.version - 1)  # the signature kept
    bad = [
        *log[:-1],
        msgspec.structs.replace(log[-1], body=msgspec.Raw(msgspec.json.encode(forged))),
    ]
    assert check_seals(bad, keys)[1] is not None
    assert check_seals(log, ["0" * 64])[1] is not None  # pinned to another key
    lie = msgspec.structs.replace(client.receipts[-1], hash="0" * 64)
    assert not verify_receipt(lie)
    assert check_receipts(log, [lie], keys)[1] is not None


async def test_a_game_rewritten_under_its_id_is_caught_by_a_kept_receipt(
    closed_stack: Callable[[str], Settings], store: EventStore, tmp_path: Path
) -> None:
    kept = tmp_path / "receipts.jsonl"
    player = await Client.connect(closed_stack("player").nats_url, receipts=kept)
    try:
        game_id = await play_to_resignation(player, None, loser=1)  # 1-0
    finally:
        await player.close()
    assert tabula(closed_stack, "audit", game_id, "--receipts", str(kept)).returncode == 0

    # The operator (admin on the store) deletes the game and plays it again, to 0-1.
    await store.redis.delete(log_key(game_id), meta_key(game_id), commands_key(game_id))
    operator = await Client.connect(closed_stack("player").nats_url)
    try:
        assert await play_to_resignation(operator, game_id, loser=0) == game_id
    finally:
        await operator.close()
    plain = tabula(closed_stack, "audit", game_id)
    assert plain.returncode == 0, plain.stdout  # a consistent history: only receipts tell
    caught = tabula(closed_stack, "audit", game_id, "--receipts", str(kept))
    assert caught.returncode == 1
    assert "not the history the service signed" in caught.stdout
    assert "receipt for version 1" in caught.stdout


async def test_a_receipt_with_a_forged_signature_is_refused(
    closed_stack: Callable[[str], Settings], tmp_path: Path
) -> None:
    """An arbiter is not fooled the other way either: a receipt the service did not sign."""
    player = await Client.connect(closed_stack("player").nats_url)
    try:
        game_id = await play_to_resignation(player, None, loser=1)
    finally:
        await player.close()
    real = player.receipts[-1]
    flipped = "1" if real.signature[0] == "0" else "0"
    forged = msgspec.structs.replace(real, signature=flipped + real.signature[1:])
    path = tmp_path / "forged.jsonl"
    path.write_bytes(msgspec.json.encode(forged) + b"\n")
    result = tabula(closed_stack, "audit", game_id, "--receipts", str(path))
    assert result.returncode == 1
    assert "signature does not verify" in result.stdout


@pytest.mark.parametrize("size", [1, 2, 3, 7, 8, 33])
def test_every_receipt_of_a_batch_verifies_under_one_signature(size: int) -> None:
    """One signature over a Merkle root: each receipt proves its place; another index, a
    changed sibling or another receipt's path does not."""
    signer = Signer(bytes(range(32)))
    heads = [(f"g-{i}", i + 1, f"{i:064x}") for i in range(size)]
    root, paths = merkle([receipt_message(*h) for h in heads])
    signature = signer.sign(root_message(root))

    def receipt(i: int, index: int, path: list[str]) -> Receipt:
        g, v, h = heads[i]
        return Receipt(game_id=g, version=v, hash=h, first_version=v, signature=signature,
                       key=signer.public, index=index, path=path)  # fmt: skip

    assert all(verify_receipt(receipt(i, i, paths[i])) for i in range(size))
    verified: set[tuple[str, bytes, str]] = set()  # as a client remembers checked roots
    assert all(verify_receipt(receipt(i, i, paths[i]), verified) for i in range(size))
    assert len(verified) == 1
    lie = msgspec.structs.replace(receipt(0, 0, paths[0]), hash="f" * 64)
    assert not verify_receipt(lie, verified)  # another leaf: another root, not remembered
    if size > 1:
        assert not verify_receipt(receipt(0, 1, paths[0]))
        assert not verify_receipt(receipt(0, 0, paths[1]))
        bent = [("0" if paths[0][0][0] != "0" else "1") + paths[0][0][1:], *paths[0][1:]]
        assert not verify_receipt(receipt(0, 0, bent))
    assert not verify_receipt(receipt(0, 0, [*paths[0], "00" * 32]))  # a level too many
