"""Past views (`GetView.at`): the rules service folds the stored log up to a version and shows
that state exactly as the live view showed it then, to the same seat or spectator, without
legal actions; a version the game does not have is a typed error."""

import msgspec
import pytest

from contracts import subjects
from contracts.commands import Error, GetView
from contracts.errors import ErrorCode
from domain import fairplay
from domain.core import table as tables
from services.client.client import Client, TabulaError
from services.runtime.codec import decode_log
from services.runtime.eventstore import EventStore
from tests.rulesets import register

register()  # the in-process services share this registry

MOVES = ["IE2-IE4", "IIIE7-IIIE5", "IG1-IF3"]


async def test_a_past_view_is_the_state_the_log_folds_to_then(
    client: Client, store: EventStore
) -> None:
    created = await client.create_game("chess3d")
    game_id, tokens = created.game_id, [g.token for g in created.seats]
    for i, move in enumerate(MOVES):
        await client.act(game_id, i % 2, tokens[i % 2], move)
    head = await client.view(game_id, 0, tokens[0])
    assert head.version == 1 + len(MOVES)
    assert head.legal  # the live view: Black has moved, White's actions are listed
    ruleset, events = decode_log(await store.read_all(game_id))
    for at in range(1, head.version):
        past = await client.view(game_id, 0, tokens[0], at=at)
        folded = tables.fold(ruleset, game_id, events[:at])
        assert past.version == at
        assert past.position == ruleset.position(folded.game)
        assert past.board == ruleset.view(folded.game, 0)
        assert past.to_act == sorted(tables.to_act(folded))
        assert past.legal == []  # a replay offers nothing to play
        assert past.position != head.position
    spectator = await client.view(game_id, at=2)
    assert spectator.position == ruleset.position(tables.fold(ruleset, game_id, events[:2]).game)
    assert (await client.view(game_id, 0, tokens[0], at=head.version)).legal == head.legal


async def test_a_version_the_game_has_not_reached_or_a_wrong_token_is_a_typed_error(
    client: Client,
) -> None:
    created = await client.create_game("chess3d")
    game_id, tokens = created.game_id, [g.token for g in created.seats]
    await client.act(game_id, 0, tokens[0], "IE2-IE4")
    for at in (0, 3, 10**6):
        with pytest.raises(TabulaError) as refused:
            await client.view(game_id, 0, tokens[0], at=at)
        assert refused.value.code == ErrorCode.MALFORMED
        assert "1 to 2" in refused.value.reason
    with pytest.raises(TabulaError) as wrong:
        await client.view(game_id, 0, tokens[1], at=1)
    assert wrong.value.code == ErrorCode.BAD_TOKEN
    # A negative version is refused where the request is decoded, before any handler.
    raw = msgspec.json.encode({"game_id": game_id, "at": -1})
    reply = msgspec.json.decode((await client.nc.request(subjects.RULES_VIEW, raw, 5)).data,
                                type=Error)  # fmt: skip
    assert reply.code == ErrorCode.MALFORMED
    assert GetView(game_id=game_id).at is None


async def race_to_a_dealt_card(client: Client) -> tuple[str, list[str], int]:
    """A race where seat 0 rolls and seat 1 draws a card; the version just after the deal."""
    created = await client.create_game("race")
    game_id, tokens = created.game_id, [g.token for g in created.seats]
    seeds = ["seat0seed0123456789", "seat1seed0123456789"]
    nonce, setup = "ab" * 32, b'{"boost":0}'
    for verb in ("seed-commit", "seed-reveal", "setup-commit", "setup-reveal"):
        for seat in (0, 1):
            arg = {
                "seed-commit": fairplay.client_seed_commitment(game_id, seat, seeds[seat]),
                "seed-reveal": seeds[seat],
                "setup-commit": fairplay.setup_commitment(game_id, seat, nonce, setup),
                "setup-reveal": f"{nonce} {setup.decode()}",
            }[verb]
            await client.act(game_id, seat, tokens[seat], f"{verb} {arg}")
    await client.act(game_id, 0, tokens[0], "roll")
    dealt = await client.act(game_id, 1, tokens[1], "draw")
    await client.act(game_id, 0, tokens[0], "roll")
    return game_id, tokens, dealt.version


async def test_a_past_view_of_a_hidden_game_hides_the_other_seats_secrets(
    client: Client, store: EventStore
) -> None:
    game_id, tokens, dealt = await race_to_a_dealt_card(client)
    stored = await store.read_all(game_id)
    card = next(msgspec.json.decode(s.body)["card"] for s in stored if s.type == "CardDealt")
    holder = await client.view(game_id, 1, tokens[1], at=dealt)
    assert [h["card"] for h in holder.board["hands"][1]] == [card]  # opened with its token
    assert holder.legal == []
    assert holder.legal_box == ""
    other = await client.view(game_id, 0, tokens[0], at=dealt)
    assert other.board["hands"] == [[], 1]  # seat 1 holds one card: which, seat 0 is not told
    spectator = await client.view(game_id, at=dealt)
    assert spectator.board["hands"] == [0, 1]
    # a past view of seat 1's own board travels sealed, as the live one does
    sealed = GetView(game_id=game_id, seat=1, token=tokens[1], at=dealt)
    reply = msgspec.json.decode(
        (await client.nc.request(subjects.RULES_VIEW, msgspec.json.encode(sealed), 5)).data
    )
    assert reply["board"] == {}
    assert reply["board_box"]
    assert reply["version"] == dealt
