"""Yavoch through the services: random bots play both rulesets to a result, the audit checks
every die of fate and every card, and nothing secret crosses NATS before its time."""

import asyncio

import msgspec
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from contracts.envelope import StoredEvent
from contracts.events import CardDealt, CardRevealed, DeckShuffled, RandomDrawn, SeedRevealed
from contracts.yavoch import FleetPlaced, LevelsChosen, Played
from domain.audit import audit
from services.client.bot import play_seat
from services.client.client import Client
from services.runtime.codec import decode_log
from services.runtime.eventstore import EventStore


def ending_append(stored: list[StoredEvent]) -> list[StoredEvent]:
    """The events appended with the game's GameEnded (one command's append)."""
    command = next(e.command_id for e in stored if e.type == "GameEnded")
    return [e for e in stored if e.command_id == command]


async def play(client: Client, variant: str, seeds: tuple[int, int] = (1, 2)) -> str:
    a, b = await asyncio.gather(client.find_match("yavoch", variant, player="p1"),
                                client.find_match("yavoch", variant, player="p2"))  # fmt: skip
    results = await asyncio.gather(
        play_seat(client, a.game_id, a.seat, a.token, seed=seeds[a.seat]),
        play_seat(client, b.game_id, b.seat, b.token, seed=seeds[b.seat]),
    )
    assert results[0].outcome == results[1].outcome
    return a.game_id


@pytest.mark.parametrize("variant", ["decker+turn_limit=120", "full+turn_limit=120"])
async def test_bot_games_reach_a_result_and_pass_the_audit(
    client: Client, store: EventStore, variant: str
) -> None:
    """Y-3.1-3.3 through the services (levels, then player one's fleet, then player two's),
    play to a result (Y-8), and the audit recomputes every roll and card (Y-6.1)."""
    game_id = await play(client, variant)
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)
    kinds = [type(e) for e in events]
    assert kinds.index(LevelsChosen) < kinds.index(FleetPlaced)
    placed = [e.seat for e in events if isinstance(e, FleetPlaced)]
    assert placed == [0, 1]  # Y-3.3: player two places after seeing player one's fleet
    rolls = [e for e in events if isinstance(e, RandomDrawn)]
    battles = [e for e in events if isinstance(e, Played) and "{d=" in e.action]
    assert len([r for r in rolls if r.purpose == "battle"]) == len(battles)
    if variant.startswith("full"):
        assert any(isinstance(e, DeckShuffled) and e.purpose == "shuffle_initial" for e in events)
        assert any(isinstance(e, CardDealt) for e in events)
    report = audit(stored)
    assert report.ok, report.failure
    assert report.status == "ended"
    commands = {s.command_id for s in stored if s.action}
    assert next(c for c in report.checks if c.name == "commands").count == len(commands)


async def test_no_hand_no_deck_order_and_no_seed_cross_nats_before_their_time(
    client: Client, store: EventStore, admin_bus: NATS
) -> None:
    """Y-7.2-7.5, fair-play 1.6 and 2: during a whole Full Yavoch game, every message on `>`
    is recorded; no card's salt before that card is turned face up (or the game ends), no
    deck order and no server seed before the end."""
    wire: list[bytes] = []

    async def record(msg: Msg) -> None:
        wire.append(msg.subject.encode() + b" " + msg.data)

    spy = await admin_bus.subscribe(">", cb=record)
    game_id = await play(client, "full+turn_limit=60", seeds=(5, 6))
    await admin_bus.flush()
    await spy.unsubscribe()
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)

    def first(pattern: bytes, prefix: bytes = b"") -> int:
        return next((i for i, m in enumerate(wire) if m.startswith(prefix) and pattern in m),
                    len(wire))  # fmt: skip

    # Y-7.7: everything is public once the game has ended, from the notices of the append
    # that ends it (its earlier events included)
    last = ending_append(stored)[0]
    end = first(b'"version":%d,' % last.version, prefix=b"tabula.game.")
    assert end < len(wire)
    seed = next(e for e in events if isinstance(e, SeedRevealed)).server_seed
    assert first(seed.encode()) > end

    def notice(version: int) -> int:
        """The first notice of the append holding `version` (its events go public together)."""
        command = stored[version - 1].command_id
        start = next(e.version for e in stored if e.command_id == command)
        return first(b'"version":%d,' % start, prefix=b"tabula.game.")

    revealed = {e.position: v for v, e in enumerate(events, 1) if isinstance(e, CardRevealed)}
    dealt = [e for e in events if isinstance(e, CardDealt)]
    assert dealt
    for card in dealt:
        shown = notice(revealed[card.position]) if card.position in revealed else end
        assert first(card.salt.encode()) >= shown, card
    for shuffle in (e for e in events if isinstance(e, DeckShuffled)):
        assert first(msgspec.json.encode(shuffle.order)) > end


async def feeds_of_one_game(client: Client, variant: str, seeds: tuple[int, int]
                            ) -> tuple[int, int]:  # fmt: skip
    """Play one game while each seat watches its own feed; check every CardDealt before the
    end as that seat saw it, and return (own cards seen whole, others' seen as commitments)."""
    a, b = await asyncio.gather(client.find_match("yavoch", variant, player="x"),
                                client.find_match("yavoch", variant, player="y"))  # fmt: skip
    seen: dict[int, list[StoredEvent]] = {0: [], 1: []}

    async def watch(seat: int, token: str) -> None:
        async for e in client.watch(a.game_id, seat=seat, token=token):
            seen[seat].append(e)
            if e.type == "GameSealed":
                return

    watchers = [asyncio.create_task(watch(x.seat, x.token)) for x in (a, b)]
    await asyncio.gather(
        play_seat(client, a.game_id, a.seat, a.token, seed=seeds[0]),
        play_seat(client, b.game_id, b.seat, b.token, seed=seeds[1]),
    )
    await asyncio.wait_for(asyncio.gather(*watchers), 60)
    dec = msgspec.json.Decoder(CardDealt)
    own = other = 0
    for seat, events in seen.items():
        ended = ending_append(events)[0].version  # Y-7.7: public from the end on
        for e in events:
            if e.type != "CardDealt" or e.version >= ended:
                continue
            card = dec.decode(e.body)
            if card.seat == seat:
                assert card.card
                assert card.salt
                own += 1
            else:
                assert (card.card, card.salt) == ("", "")
                other += 1
    return own, other


async def test_each_seat_feed_holds_its_own_cards_and_only_commitments_of_the_other(
    client: Client,
) -> None:
    """Y-7.3 / Y-7.4: watching its own feed, a seat gets its CardDealt whole and the other
    seat's reduced to the commitment, until the game ends (Y-7.7). The dice are the server's:
    a game may end before its first deal, so games are played until cards were seen."""
    own = other = 0
    for game in range(8):
        mine, theirs = await feeds_of_one_game(client, "full+turn_limit=40", (7 + game, 8))
        own, other = own + mine, other + theirs
        if own and other:
            break
    assert own
    assert other
