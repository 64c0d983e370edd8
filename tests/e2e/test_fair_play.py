"""A whole game with dice, private cards and a hidden setup, through the services.

The race ruleset (tests/rulesets/race.py) draws dice, shuffles a deck, deals private cards and
opens with a hidden setup. Here two bots play it through matchmaking and the rules and
randomness services; a subscriber on `>` with full NATS access records every message.
"""

import asyncio
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import nats
import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from typer.testing import CliRunner, Result

from contracts import subjects
from contracts.commands import GetView, View
from contracts.envelope import StoredEvent
from contracts.errors import ErrorCode
from contracts.events import (
    CardDealt,
    CardRevealed,
    ClientSeedRevealed,
    DeckShuffled,
    GameEnded,
    RandomDrawn,
    SeedRevealed,
    SetupRevealed,
    TimedOut,
)
from domain import fairplay
from domain.audit import audit
from services.cli.main import app
from services.client.bot import play_seat
from services.client.client import Client, TabulaError
from services.matchmaking.__main__ import build as matchmaking_build
from services.rules.__main__ import build as rules_build
from services.runtime.codec import decode_log
from services.runtime.config import Settings
from services.runtime.embedded import start_valkey
from services.runtime.eventstore import EventStore
from services.runtime.keys import meta_key
from tests.conftest import running
from tests.rulesets import register

register()  # the in-process services share this registry


async def play_race(client: Client) -> str:
    a, b = await asyncio.gather(client.find_match("race", player="ann"),
                                client.find_match("race", player="bob"))  # fmt: skip
    results = await asyncio.gather(
        play_seat(client, a.game_id, a.seat, a.token, policy=race_policy, seed=1),
        play_seat(client, b.game_id, b.seat, b.token, policy=race_policy, seed=2),
    )
    assert results[0].outcome == results[1].outcome
    return a.game_id


def race_policy(rs, state, seat, rng):  # type: ignore[no-untyped-def]
    """Any legal action but resigning, so games run to the finish."""
    actions = [a for a in rs.legal_actions(state, seat)
               if rs.format_action(state, a) != "resign"]  # fmt: skip
    return rng.choice(actions) if actions else None


async def test_a_fair_game_through_the_services_passes_the_audit(
    client: Client, store: EventStore
) -> None:
    game_id = await play_race(client)
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)
    kinds = [type(e).__name__ for e in events]
    assert kinds[:2] == ["GameCreated", "SeedCommitted"]
    assert kinds[-2:] == ["SeedRevealed", "GameSealed"]
    assert "RandomDrawn" in kinds
    assert "CardDealt" in kinds
    report = audit(stored)
    assert report.ok, report.failure


async def test_four_seats_in_two_teams_queue_play_and_pass_the_audit(
    client: Client, store: EventStore
) -> None:
    """Four players queue for a team race (RACE-8): matchmaking seats all four in one game,
    each seat's seed and hidden setup go through the protocol, and the finisher's team wins."""
    seated = await asyncio.gather(*(client.find_match("race", "seats=4+teams", player=name)
                                    for name in ("ann", "bob", "cat", "dan")))  # fmt: skip
    assert len({s.game_id for s in seated}) == 1
    assert sorted(s.seat for s in seated) == [0, 1, 2, 3]
    results = await asyncio.gather(*(
        play_seat(client, s.game_id, s.seat, s.token, policy=race_policy, seed=s.seat)
        for s in seated
    ))  # fmt: skip
    outcome = results[0].outcome
    assert all(r.outcome == outcome for r in results)
    assert outcome.winners in ((0, 2), (1, 3))
    assert outcome.result == "-".join("1" if s in outcome.winners else "0" for s in range(4))
    stored = await store.read_all(seated[0].game_id)
    _, events = decode_log(stored)
    assert sum(isinstance(e, SetupRevealed) for e in events) == 4
    assert sum(isinstance(e, ClientSeedRevealed) for e in events) == 4
    report = audit(stored)
    assert report.ok, report.failure


async def test_nothing_secret_crosses_nats_before_its_reveal(
    client: Client, store: EventStore, admin_bus: NATS
) -> None:
    """Every message on `>` (requests, replies, notices, sealed boxes) during a whole game:
    none holds the server seed before the game ends, a card's salt before that card is
    revealed, a deck order, or a setup before its reveal."""
    wire: list[bytes] = []

    async def record(msg: Msg) -> None:
        wire.append(msg.subject.encode() + b" " + msg.data)

    spy = await admin_bus.subscribe(">", cb=record)
    game_id = await play_race(client)
    await admin_bus.flush()
    await spy.unsubscribe()
    _, events = decode_log(await store.read_all(game_id))

    def first(pattern: bytes) -> int:
        """Index of the first message on the wire containing `pattern` (or len)."""
        return next((i for i, m in enumerate(wire) if pattern in m), len(wire))

    end = first(b'"type":"GameEnded"')
    assert end < len(wire)
    seed = next(e for e in events if isinstance(e, SeedRevealed)).server_seed
    assert first(seed.encode()) > end  # fair-play 1.1/1.6: the seed only after the end
    revealed = {e.position: e for e in events if isinstance(e, CardRevealed)}
    dealt = [e for e in events if isinstance(e, CardDealt)]
    assert dealt
    for card in dealt:
        shown = first(
            b'"type":"CardRevealed","seat":%d,"position":%d,' % (card.seat, card.position)
        )
        visible_from = shown if card.position in revealed else end
        assert first(card.salt.encode()) >= visible_from, card  # fair-play 2: private cards
    order = next(e for e in events if isinstance(e, DeckShuffled)).order
    assert first(msgspec.json.encode(order)) > end  # the deck order, never before the end
    for setup in (e for e in events if isinstance(e, SetupRevealed)):
        assert first(setup.nonce.encode()) == first(b"setup-reveal " + setup.nonce.encode())


async def test_each_seat_sees_its_own_cards_and_no_one_elses(client: Client) -> None:
    """The seat feeds: a seat's own CardDealt whole, the other's reduced to its commitment."""
    a, b = await asyncio.gather(client.find_match("race", player="cy"),
                                client.find_match("race", player="di"))  # fmt: skip
    seen: dict[int, list[StoredEvent]] = {0: [], 1: []}

    async def watch(seat: int, token: str) -> None:
        async for e in client.watch(a.game_id, seat=seat, token=token):
            seen[seat].append(e)
            if e.type == "GameSealed":
                return

    tokens = {x.seat: x.token for x in (a, b)}
    watchers = [asyncio.create_task(watch(s, t)) for s, t in tokens.items()]
    await asyncio.gather(
        play_seat(client, a.game_id, a.seat, a.token, policy=race_policy, seed=3),
        play_seat(client, b.game_id, b.seat, b.token, policy=race_policy, seed=4),
    )
    await asyncio.wait_for(asyncio.gather(*watchers), 30)
    dec = msgspec.json.Decoder(CardDealt)
    for seat, events in seen.items():
        assert [e.version for e in events] == list(range(1, len(events) + 1))
        ended = next(e.version for e in events if e.type == "GameEnded")
        for e in events:
            if e.type != "CardDealt":
                continue
            card = dec.decode(e.body)
            if card.seat == seat or e.version > ended:
                assert card.card
                assert card.salt
            else:
                assert (card.card, card.salt) == ("", "")
                assert e.redacted


@pytest.fixture(autouse=True)
def _race_registered() -> None:
    register()


async def test_killing_the_randomness_service_mid_draw_loses_no_nonce(
    settings: Settings, store: EventStore, tmp_path: Path
) -> None:
    """SIGKILL of the randomness service as a draw request crosses NATS; it restarts at once.
    The game goes on with the next nonce: no gap, no repeat, and the audit passes."""
    log = tmp_path / "randomness.log"
    randomness = start_service("services.randomness", settings, log)
    killed = asyncio.Event()
    client = await Client.connect(settings.nats_url)
    try:
        await wait_for(client, subjects.RANDOM_SERVICE)
        draws_seen = 0

        async def on_draw(_: Msg) -> None:
            nonlocal draws_seen, randomness
            draws_seen += 1
            if draws_seen == 5 and not killed.is_set():
                randomness.kill()  # in the middle of a draw: the request is in flight
                randomness.wait()
                killed.set()
                randomness = start_service("services.randomness", settings, log)

        spy = await client.nc.subscribe(subjects.RANDOM_DRAW, cb=on_draw)
        async with running(rules_build, settings), running(matchmaking_build, settings):
            game_id = await play_race(client)
        await spy.unsubscribe()
    finally:
        await client.close()
        randomness.kill()
        randomness.wait()
    assert killed.is_set()
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)
    nonces = [e.nonce for e in events if isinstance(e, (RandomDrawn, DeckShuffled))]
    assert nonces == list(range(len(nonces)))
    report = audit(stored)
    assert report.ok, report.failure


def start_service(module: str, settings: Settings, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "NATS_URL": settings.nats_url, "REDIS_URL": settings.redis_url,
           "TABULA_LOG_LEVEL": "info"}  # fmt: skip
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", module], env=env, stdout=out, stderr=out)


async def wait_for(client: Client, service: str) -> None:
    """Until the service answers $SRV.PING (polled, bounded)."""
    async with asyncio.timeout(30):
        while True:
            try:
                await client.nc.request(f"$SRV.PING.{service}", b"", timeout=0.5)
                return
            except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
                await asyncio.sleep(0.1)  # poll interval while the process boots


async def test_done_when_audit_online_offline_after_import_and_by_openssl(
    client: Client, store: EventStore, settings: Settings, tmp_path: Path
) -> None:
    """Issue 3's bar: a game with dice and private cards played through the services passes
    `tabula audit`, on its export offline, and after import into a second, empty stack; one of
    its rolls checks with the openssl recipe of docs/fair-play.md."""
    game_id = await play_race(client)
    assert (await tabula(settings.redis_url, "audit", game_id)).exit_code == 0
    export = tmp_path / "game.jsonl"
    assert (await tabula(settings.redis_url, "export", game_id, "-o", str(export))).exit_code == 0
    offline = await tabula("redis://127.0.0.1:1/0", "audit", "--file", str(export))
    assert offline.exit_code == 0, offline.output  # no server needed: nothing listens there
    second = start_valkey()  # a second, empty Tabula store
    try:
        assert (await tabula(second.url, "import", str(export))).exit_code == 0
        imported = await tabula(second.url, "audit", game_id)
        assert imported.exit_code == 0, imported.output
    finally:
        second.stop()

    _, events = decode_log(await store.read_all(game_id))
    seed = next(e for e in events if isinstance(e, SeedRevealed)).server_seed
    # The mix joins the seeds in seat order (protocol 1.4), whatever order they were revealed in.
    revealed = sorted((e.seat, e.seed) for e in events if isinstance(e, ClientSeedRevealed))
    seeds = [seed for _seat, seed in revealed]
    roll = next(e for e in events if isinstance(e, RandomDrawn))

    def openssl(data: str, *args: str) -> str:
        done = subprocess.run(["openssl", "dgst", "-sha256", *args], input=data.encode(),
                              capture_output=True, check=True)  # fmt: skip
        return done.stdout.decode().split("= ")[-1].strip()

    mix = openssl(":".join(seeds))
    block = openssl(f"v1:{game_id}:{mix}:{roll.nonce}:0", "-hmac", seed)
    limit = 256 - 256 % roll.n
    first = next(b for b in bytes.fromhex(block) if b < limit)
    assert first % roll.n == roll.value


async def tabula(redis_url: str, *args: str) -> Result:
    """The CLI in-process (so the test ruleset is known), in a thread: it runs its own loop."""
    env = {"REDIS_URL": redis_url, "NATS_URL": "nats://127.0.0.1:1"}
    return await asyncio.to_thread(CliRunner().invoke, app, list(args), env=env)


async def test_a_missing_seed_reveal_loses_the_game_after_the_deadline(
    client: Client, store: EventStore
) -> None:
    """fair-play 1.3: seat 1 never commits its client seed; once the (here zero) deadline has
    passed, seat 0 claims the game; the seed is revealed, the log sealed, the audit passes."""
    created = await client.create_game("race", reveal_deadline_ms=0)
    game_id = created.game_id
    tokens = [s.token for s in created.seats]
    digest = fairplay.client_seed_commitment(game_id, 0, "patient0123456789")
    await client.act(game_id, 0, tokens[0], f"seed-commit {digest}")
    with pytest.raises(TabulaError) as exc:  # the laggard cannot claim against the others
        await client.act(game_id, 1, tokens[1], "claim-timeout")
    assert exc.value.code == ErrorCode.ILLEGAL_ACTION
    await client.act(game_id, 0, tokens[0], "claim-timeout")
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)
    tail = [type(e).__name__ for e in events][-4:]
    assert tail == ["TimedOut", "GameEnded", "SeedRevealed", "GameSealed"]
    timed_out = next(e for e in events if isinstance(e, TimedOut))
    assert timed_out.seats == [1]
    ended = next(e for e in events if isinstance(e, GameEnded))
    assert ended.winners == [0]
    assert type(events[-1]).__name__ == "GameSealed"
    report = audit(stored)
    assert report.ok, report.failure


async def test_a_seats_legal_actions_travel_sealed_in_a_hidden_game(client: Client) -> None:
    """A seat's legal actions can tell its hand: in a game with hidden information they cross
    NATS sealed to the seat; the seat's client opens them; the raw reply holds none."""
    created = await client.create_game("race")
    game_id, tokens = created.game_id, [s.token for s in created.seats]
    seeds = ["ann0123456789abcd", "bob0123456789abcd"]
    for verb, args in (("seed-commit", [fairplay.client_seed_commitment(game_id, s, seeds[s])
                                        for s in (0, 1)]),
                       ("seed-reveal", seeds)):  # fmt: skip
        for seat in (0, 1):
            await client.act(game_id, seat, tokens[seat], f"{verb} {args[seat]}")
    setup, nonce = b'{"boost":1}', "ab" * 32
    for seat in (0, 1):
        digest = fairplay.setup_commitment(game_id, seat, nonce, setup)
        await client.act(game_id, seat, tokens[seat], f"setup-commit {digest}")
    for seat in (0, 1):
        await client.act(game_id, seat, tokens[seat], f"setup-reveal {nonce} {setup.decode()}")
    raw = await client.request(
        subjects.RULES_VIEW, GetView(game_id=game_id, seat=0, token=tokens[0]), View
    )
    assert raw.phase == "play"
    assert raw.legal == []
    assert raw.legal_box
    opened = await client.view(game_id, 0, tokens[0])
    assert {"roll", "draw"} <= set(opened.legal)


async def end_while_randomness_away(
    client: Client,
    store: EventStore,
    randomness: subprocess.Popen[bytes],
    settings: Settings,
    log: Path,
) -> tuple[str, subprocess.Popen[bytes]]:
    """A race game ended (a timeout claim) while the randomness service is down, so its end is
    in the log but its seed is not revealed; then the service is started again. The game's id
    and the new service process."""
    created = await client.create_game("race", reveal_deadline_ms=0)
    game_id, tokens = created.game_id, [s.token for s in created.seats]
    digest = fairplay.client_seed_commitment(game_id, 0, "patient0123456789")
    await client.act(game_id, 0, tokens[0], f"seed-commit {digest}")
    randomness.kill()
    randomness.wait()
    await client.act(game_id, 0, tokens[0], "claim-timeout")  # ends the game
    _, events = decode_log(await store.read_all(game_id))
    assert type(events[-1]).__name__ == "GameEnded"  # no seed yet: the service is away
    return game_id, start_service("services.randomness", settings, log)


async def test_a_player_command_named_like_the_finish_does_not_stop_the_seal(
    client: Client, store: EventStore
) -> None:
    """Once, the platform's finish (seed reveal and seal) had the command id `finish:<game>`:
    a player who ended the game with a command of that id made the finish a duplicate, and the
    game was never sealed. The finish's id is now unguessable."""
    created = await client.create_game("race", reveal_deadline_ms=0)
    game_id, tokens = created.game_id, [s.token for s in created.seats]
    digest = fairplay.client_seed_commitment(game_id, 0, "patient0123456789")
    await client.act(game_id, 0, tokens[0], f"seed-commit {digest}")
    await client.act(game_id, 0, tokens[0], "claim-timeout", command_id=f"finish:{game_id}")
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)
    assert [type(e).__name__ for e in events][-3:] == ["GameEnded", "SeedRevealed", "GameSealed"]
    assert stored[-1].command_id.startswith("finish:")
    assert stored[-1].command_id != f"finish:{game_id}"


async def test_a_game_ending_while_randomness_is_away_is_sealed_by_the_sweep_unvisited(
    settings: Settings, store: EventStore, tmp_path: Path
) -> None:
    """Nobody looks at the game again after its end (issue 10: a game whose end is in its log
    is finished by the service without waiting for a visitor): the rules service's periodic
    sweep reveals the seed and seals the log once the randomness service is back."""
    log = tmp_path / "randomness.log"
    randomness = start_service("services.randomness", settings, log)
    client = await Client.connect(settings.nats_url)
    try:
        await wait_for(client, subjects.RANDOM_SERVICE)
        async with running(rules_build, dataclasses.replace(settings, sweep_s=0.2)):
            ended = await end_while_randomness_away(client, store, randomness, settings, log)
            game_id, randomness = ended
            async with asyncio.timeout(30):  # a bound on a hang, not a timing check
                # The sweep's work shows only in the store: poll it there.
                while (await store.read_all(game_id))[-1].type != "GameSealed":  # noqa: ASYNC110
                    await asyncio.sleep(0.1)
    finally:
        await client.close()
        randomness.kill()
        randomness.wait()
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)
    assert [type(e).__name__ for e in events][-3:] == ["GameEnded", "SeedRevealed", "GameSealed"]
    assert (await store.redis.hget(meta_key(game_id), "sealed")) == b"1"
    report = audit(stored)
    assert report.ok, report.failure


async def test_a_game_ending_while_randomness_is_away_is_sealed_on_its_next_access(
    settings: Settings, store: EventStore, tmp_path: Path
) -> None:
    """The seed reveal waits for the randomness service: the game's end is stored at once,
    and the next request for the game (here a view) reveals the seed and seals the log."""
    log = tmp_path / "randomness.log"
    randomness = start_service("services.randomness", settings, log)
    client = await Client.connect(settings.nats_url)
    try:
        await wait_for(client, subjects.RANDOM_SERVICE)
        async with running(rules_build, settings):
            ended = await end_while_randomness_away(client, store, randomness, settings, log)
            game_id, randomness = ended
            await wait_for(client, subjects.RANDOM_SERVICE)
            view = await client.view(game_id)
            assert view.phase == "ended"
    finally:
        await client.close()
        randomness.kill()
        randomness.wait()
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)
    assert [type(e).__name__ for e in events][-2:] == ["SeedRevealed", "GameSealed"]
    report = audit(stored)
    assert report.ok, report.failure
