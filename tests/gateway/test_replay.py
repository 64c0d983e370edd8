"""Replays through the gateway: `GET /api/games/{game}?at=N` is the game as it stood after event
N, as the asking player's seat (or a spectator) saw it then, folded by the rules service from
the log; what was hidden then stays hidden; a version the game lacks is a typed error."""

import secrets
from pathlib import Path
from typing import Any

import msgspec

from contracts.errors import ErrorCode
from domain import fairplay
from domain.audit import audit
from domain.core import table as tables
from services.cli.records import read_export
from services.runtime.codec import decode_log
from services.runtime.eventstore import EventStore
from tests.gateway.conftest import Person
from tests.gateway.test_gateway import chess_game, error_of
from tests.rulesets import register

register()  # the in-process services and the gateway share this registry


async def act(person: Person, game_id: str, action: str) -> dict[str, Any]:
    reply = await person.post(f"/api/games/{game_id}/actions",
                              {"action": action, "command_id": secrets.token_hex(8)})  # fmt: skip
    assert reply.status_code == 200, reply.text
    receipt: dict[str, Any] = reply.json()
    return receipt


async def view(person: Person, game_id: str, at: int | None = None) -> dict[str, Any]:
    reply = await person.get(f"/api/games/{game_id}" + (f"?at={at}" if at is not None else ""))
    assert reply.status_code == 200, reply.text
    shown: dict[str, Any] = reply.json()["view"]
    return shown


async def test_a_view_at_an_earlier_version_is_the_board_then(
    people: Any, store: EventStore
) -> None:
    ann, bob, game_id = await chess_game(people)
    for i, move in enumerate(["IE2-IE4", "IIIE7-IIIE5", "IG1-IF3"]):
        await act((ann, bob)[i % 2], game_id, move)
    head = await view(ann, game_id)
    early = await view(ann, game_id, at=2)  # after White's first move
    assert (head["version"], early["version"]) == (4, 2)
    assert early["position"] != head["position"]
    assert early["legal"] == []
    assert head["legal"]
    assert early["to_act"] == [1]
    ruleset, events = decode_log(await store.read_all(game_id))
    folded = tables.fold(ruleset, game_id, events[:2])
    assert early["position"] == ruleset.position(folded.game)
    assert early["board"] == msgspec.to_builtins(ruleset.view(folded.game, 0))
    carol = people()
    await carol.sign_in("Carol")
    assert (await view(carol, game_id, at=2))["position"] == early["position"]
    assert (await view(ann, game_id, at=1))["position"] == ruleset.position(
        tables.fold(ruleset, game_id, events[:1]).game
    )


async def test_a_bad_version_is_a_typed_error(people: Any) -> None:
    ann, _bob, game_id = await chess_game(people)
    for at in ("0", "2", "-1", "99999999999999999999"):
        reply = await ann.get(f"/api/games/{game_id}?at={at}")
        assert reply.status_code == 400, (at, reply.text)
        assert error_of(reply)["code"] == ErrorCode.MALFORMED
    assert "1 to 1" in error_of(await ann.get(f"/api/games/{game_id}?at=2"))["reason"]
    words = await ann.get(f"/api/games/{game_id}?at=soon")
    assert words.status_code == 400
    assert error_of(words)["code"] == ErrorCode.MALFORMED


async def race_in_play(ann: Person, bob: Person) -> str:
    """A race between Ann (seat 0) and Bob, through its seeds and setups: Ann to roll."""
    cid = (await ann.post("/api/challenges", {"ruleset": "race"})).json()["challenge"]["id"]
    game_id: str = (await bob.post(f"/api/challenges/{cid}/accept")).json()["game_id"]
    players = {0: ann, 1: bob}
    seeds = {0: "annseed0123456789ab", 1: "bobseed0123456789ab"}
    nonce, setup = secrets.token_hex(32), b'{"boost":0}'
    for seat in (0, 1):
        commitment = fairplay.client_seed_commitment(game_id, seat, seeds[seat])
        await act(players[seat], game_id, f"seed-commit {commitment}")
    for seat in (0, 1):
        await act(players[seat], game_id, f"seed-reveal {seeds[seat]}")
    for seat in (0, 1):
        commitment = fairplay.setup_commitment(game_id, seat, nonce, setup)
        await act(players[seat], game_id, f"setup-commit {commitment}")
    for seat in (0, 1):
        await act(players[seat], game_id, f"setup-reveal {nonce} {setup.decode()}")
    return game_id


async def test_a_game_with_seeds_is_exported_once_it_has_ended(people: Any, tmp_path: Path) -> None:
    """Rolls only: nothing in the public log is redacted, but the seats' actions are withheld
    until the end (the hash chain covers them), so the export waits for the end, where the
    proofs of its rolls pass."""
    ann, bob = people(), people()
    await ann.sign_in("Ann")
    await bob.sign_in("Bob")
    game_id = await race_in_play(ann, bob)
    await act(ann, game_id, "roll")
    early = await ann.get(f"/api/games/{game_id}/export")
    assert early.status_code == 409
    assert error_of(early)["code"] == ErrorCode.IN_PLAY
    await act(bob, game_id, "resign")
    ended = await ann.get(f"/api/games/{game_id}/export")
    assert ended.status_code == 200
    exported = tmp_path / "race.tabula.jsonl"
    exported.write_bytes(ended.content)
    report = audit(read_export(exported))
    assert report.ok, report.failure


async def test_a_past_view_of_a_hidden_game_keeps_the_other_seats_card_hidden(
    people: Any, store: EventStore
) -> None:
    """A race: Bob draws a private card, then the game goes on. Ann's view of the version
    right after the deal shows that Bob holds a card, not which; Bob's shows it; so does no
    spectator's; and it stays so in a past view after the game has ended."""
    ann, bob, carol = people(), people(), people()
    for p, name in ((ann, "Ann"), (bob, "Bob"), (carol, "Carol")):
        await p.sign_in(name)
    game_id = await race_in_play(ann, bob)
    await act(ann, game_id, "roll")
    dealt = (await act(bob, game_id, "draw"))["version"]
    await act(ann, game_id, "roll")
    stored = await store.read_all(game_id)
    card = next(msgspec.json.decode(s.body)["card"] for s in stored if s.type == "CardDealt")

    async def hands_then(person: Person) -> list[Any]:
        shown = await view(person, game_id, at=dealt)
        assert shown["version"] == dealt
        assert shown["legal"] == []
        hands: list[Any] = shown["board"]["hands"]
        return hands

    assert await hands_then(ann) == [[], 1]
    assert [h["card"] for h in (await hands_then(bob))[1]] == [card]
    assert await hands_then(carol) == [0, 1]
    await act(bob, game_id, "resign")
    assert (await view(carol, game_id))["result"] == "1-0"
    assert await hands_then(ann) == [[], 1]  # the view as it was then, not the end's
