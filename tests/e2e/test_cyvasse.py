"""Cyvasse through the services: the hidden setup behind the screen, then play, then audit."""

import asyncio

import pytest

from contracts.events import GameEnded, SetupCommitted, SetupRevealed, SetupsDiscarded
from domain import fairplay
from domain.audit import audit
from services.client.bot import play_seat
from services.client.client import Client
from services.runtime.codec import decode_log
from services.runtime.eventstore import EventStore
from tests.domain.cyvasse.helpers import setup_bytes
from tests.domain.cyvasse.test_setup import men


@pytest.mark.parametrize(
    "variant",
    [
        "A",
        "B",
        "C",
        "A+square10",
        "B+square10",
        "C+square10",
        "A+hex91",
        "B+hex91",
        "C+hex91",
        "B+dragon-reserve+dragonfyre+super-trebuchet",
        "C+fortress-promotion+fortress-storming+wildfyre",
        "C+hex91+dragon-reserve+dragonfyre+sea-movement+super-trebuchet",
    ],
)
async def test_bot_games_set_up_behind_the_screen_play_and_pass_the_audit(
    client: Client, store: EventStore, variant: str
) -> None:
    """fair-play 3 / CY-R02: both commitments are in the log before either reveal; the game
    ends by the rules (or the no-progress limit); the audit passes."""
    a, b = await asyncio.gather(client.find_match("cyvasse", variant, player="w"),
                                client.find_match("cyvasse", variant, player="b"))  # fmt: skip
    results = await asyncio.gather(
        play_seat(client, a.game_id, a.seat, a.token, seed=11),
        play_seat(client, b.game_id, b.seat, b.token, seed=12),
    )
    assert results[0].outcome == results[1].outcome
    stored = await store.read_all(a.game_id)
    _, events = decode_log(stored)
    commits = [i for i, e in enumerate(events) if isinstance(e, SetupCommitted)]
    reveals = [i for i, e in enumerate(events) if isinstance(e, SetupRevealed)]
    assert len(commits) == 2
    assert len(reveals) == 2
    assert max(commits) < min(reveals)
    report = audit(stored)
    assert report.ok, report.failure
    commands = {s.command_id for s in stored if s.action}
    assert next(c for c in report.checks if c.name == "commands").count == len(commands)


async def setup_game(client: Client, white: bytes, black: bytes, revealed_white: bytes
                     ) -> list[object]:  # fmt: skip
    """A game whose seats commit to `white` and `black`; White then reveals `revealed_white`."""
    created = await client.create_game("cyvasse", "A")
    game_id, tokens = created.game_id, [s.token for s in created.seats]
    nonces = ("3" * 64, "4" * 64)
    for seat, setup in ((0, white), (1, black)):
        digest = fairplay.setup_commitment(game_id, seat, nonces[seat], setup)
        await client.act(game_id, seat, tokens[seat], f"setup-commit {digest}")
    await client.act(game_id, 0, tokens[0], f"setup-reveal {nonces[0]} {revealed_white.decode()}")
    _, events = decode_log(await client.read(game_id))
    return list(events)


async def test_a_reveal_that_does_not_match_its_commitment_loses(client: Client) -> None:
    """fair-play 3: White commits to one setup and reveals another: White loses."""
    white = setup_bytes(men(0, ["a2", "c2", "e2", "g2", "b3", "h3"]))
    other = setup_bytes(men(0, ["a3", "c2", "e2", "g2", "b3", "h3"]))
    black = setup_bytes(men(1, ["a5", "c5", "e5", "g5", "b6", "h7"]))
    events = await setup_game(client, white, black, other)
    revealed = next(e for e in events if isinstance(e, SetupRevealed))
    assert revealed.rejected == "the revealed setup does not match its commitment"
    ended = events[-2]  # then GameSealed
    assert isinstance(ended, GameEnded)
    assert ended.winners == [1]


async def test_a_matching_reveal_that_breaks_the_mountain_rule_loses(client: Client) -> None:
    """CY-3.4 / CY-R04: mountains at b1 and a2 close a1 off; the honest reveal still loses."""
    white = setup_bytes(men(0, ["a2", "b1", "d4", "e4", "f4", "h4"]))
    black = setup_bytes(men(1, ["a5", "c5", "e5", "g5", "b6", "h7"]))
    events = await setup_game(client, white, black, white)
    revealed = next(e for e in events if isinstance(e, SetupRevealed))
    assert "close a1 off" in revealed.rejected
    ended = events[-2]  # then GameSealed
    assert isinstance(ended, GameEnded)
    assert (ended.result, ended.reason, ended.winners) == ("0-1", "illegal_setup", [1])


async def test_replace_sets_up_again_through_the_services_and_audits(
    client: Client, store: EventStore
) -> None:
    """CY-3.5 `replace`: jointly sealing Mountains void both setups; the seats commit and
    reveal again; the log records it all and passes the audit."""
    created = await client.create_game("cyvasse", "A+combined_mountain_check=replace")
    game_id, tokens = created.game_id, [s.token for s in created.seats]
    white = setup_bytes(men(0, ["d3", "c4", "e4", "a1", "h1", "h2"]))
    rounds = [(white, setup_bytes(men(1, ["d5", "a8", "b8", "h8", "a5", "h5"]))),
              (white, setup_bytes(men(1, ["a8", "b8", "h8", "a5", "h5", "c6"])))]  # fmt: skip
    for setups in rounds:
        for seat, setup in enumerate(setups):
            digest = fairplay.setup_commitment(game_id, seat, "5" * 64, setup)
            await client.act(game_id, seat, tokens[seat], f"setup-commit {digest}")
        for seat, setup in enumerate(setups):
            await client.act(
                game_id, seat, tokens[seat], f"setup-reveal {'5' * 64} {setup.decode()}"
            )
    assert (await client.view(game_id)).phase == "play"
    await client.act(game_id, 1, tokens[1], "resign")
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)
    assert sum(isinstance(e, SetupsDiscarded) for e in events) == 1
    report = audit(stored)
    assert report.ok, report.failure
