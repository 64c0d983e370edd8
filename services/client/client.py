"""The Python client for Tabula's subjects, used by the CLI, bots and tests.

Every command carries a command id; on a timeout, no responder, an unknown outcome or a
service away, the client retries with the same id until its retry deadline (30 s unless set),
so the service applies it once (the store is idempotent per command id). `TabulaError` and `new_id`
come from services.runtime.bus and are importable from here.
"""

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from contracts import subjects
from contracts.commands import (
    Act,
    Assignment,
    Clock,
    Created,
    CreateGame,
    Enqueue,
    Error,
    Events,
    GetKeys,
    GetView,
    Keys,
    Queued,
    ReadEvents,
    Receipt,
    SeatGrant,
    View,
)
from contracts.envelope import SealedEvent, StoredEvent
from contracts.errors import ErrorCode
from services.runtime import bus
from services.runtime.bus import Requester, TabulaError, new_id
from services.runtime.sealing import new_reply_key, open_bytes, open_sealed, unseal
from services.runtime.signing import verify_receipt

__all__ = ["Client", "NewGame", "Seated", "TabulaError", "new_id"]
_encode = msgspec.json.Encoder().encode
_stored = msgspec.json.Decoder(StoredEvent)
_sealed = msgspec.json.Decoder(SealedEvent)


class NewGame(msgspec.Struct, frozen=True, kw_only=True):
    """A created game as its creator holds it: the seat tokens opened."""

    game_id: str
    version: int
    hash: str
    seats: list[SeatGrant]


class Seated(msgspec.Struct, frozen=True, kw_only=True):
    """A matchmaking assignment as its player holds it: the seat token opened."""

    game_id: str
    ruleset: str
    variant: str
    seat: int
    token: str


class Client(Requester):
    """A player's (or a bot's, or the CLI's) view of Tabula: typed requests with their retries
    (services.runtime.bus), seat tokens and private events opened, receipts checked and kept,
    games watched."""

    def __init__(self, nc: NATS, timeout: float = 5.0, retries: int | None = None,
                 receipts: Path | None = None, remember: bool = True,
                 retry_deadline: float = bus.RETRY_DEADLINE_S) -> None:  # fmt: skip
        # A player's request is retried until the deadline, however many attempts that takes
        # (`retries` bounds them too, when given): a short outage is waited out, never failed.
        super().__init__(nc, timeout, retries, retry_deadline)
        # Every signed head the service gave us, checked; kept in `receipts` (unless a
        # long-running service asks not to: `remember=False`) and appended to the file
        # `receipts` (JSON Lines) when given, for an arbiter (`tabula audit --receipts`).
        self.receipts: list[Receipt] = []
        self.remember = remember
        # A game watched and quiet this long is read from the log: a lost notice never
        # leaves a watcher waiting for ever (the record is the log, not the notice).
        self.quiet = 5.0
        self.receipts_file = receipts
        self._verified: set[tuple[str, bytes, str]] = set()  # signed roots already checked

    @classmethod
    async def connect(cls, url: str, timeout: float = 5.0, retries: int | None = None,
                      receipts: Path | None = None,
                      retry_deadline: float | None = None) -> "Client":  # fmt: skip
        """A client on its own connection; `retry_deadline` None: TABULA_RETRY_DEADLINE_S,
        else 30 s."""
        deadline = bus.retry_deadline_from_env() if retry_deadline is None else retry_deadline
        nc = await bus.connect(url, name="tabula-client", max_reconnect_attempts=-1)
        return cls(nc, timeout, retries, receipts, retry_deadline=deadline)

    def keep(self, receipt: Receipt) -> Receipt:
        """Check the service's signature on a head, and keep the receipt."""
        if not verify_receipt(receipt, self._verified):
            raise TabulaError(Error(code=ErrorCode.INTERNAL,
                                    reason=f"receipt for {receipt.game_id} "
                                    f"v{receipt.version} is not validly signed"))  # fmt: skip
        if self.remember:
            self.receipts.append(receipt)
        if self.receipts_file is not None:
            with self.receipts_file.open("ab") as f:
                f.write(_encode(receipt) + b"\n")
        return receipt

    async def close(self) -> None:
        await self.nc.drain()

    async def create_game(
        self,
        ruleset: str,
        variant: str = "",
        *,
        players: list[str] | None = None,
        game_id: str | None = None,
        position: str = "",
        command_id: str | None = None,
        reveal_deadline_ms: int | None = None,
        move_deadline_ms: int = 0,
        clock: Clock | None = None,
        rated: bool = False,
    ) -> NewGame:
        """Create a game; its seat tokens come sealed to a key made for this request."""
        private, public = new_reply_key()
        req = CreateGame(
            reveal_deadline_ms=reveal_deadline_ms,
            move_deadline_ms=move_deadline_ms,
            clock=clock,
            rated=rated,
            command_id=command_id or new_id(),
            reply_key=public,
            ruleset=ruleset,
            variant=variant,
            game_id=game_id,
            players=players or [],
            position=position,
        )
        created = await self.request(subjects.RULES_CREATE, req, Created)
        head = Receipt(game_id=created.game_id, version=created.version, hash=created.hash,
                       first_version=1, signature=created.signature, key=created.key,
                       index=created.index, path=created.path)  # fmt: skip
        self.keep(head)
        grants = open_sealed(private, f"seats:{created.game_id}", created.tokens)
        return NewGame(game_id=created.game_id, version=created.version, hash=created.hash,
                       seats=msgspec.json.decode(grants, type=list[SeatGrant]))  # fmt: skip

    async def act(
        self,
        game_id: str,
        seat: int,
        token: str,
        action: str,
        *,
        expected_version: int | None = None,
        command_id: str | None = None,
        lag_ms: int = 0,
        careful: bool = False,
    ) -> Receipt:
        """`lag_ms`: the network lag the caller measured, in a game with clocks (the service
        gives back up to that much of the time charged, within the seat's quota); `careful`:
        refuse (action/loses-the-game) an action that would lose the seat the game at once."""
        req = Act(
            game_id=game_id,
            seat=seat,
            token=token,
            command_id=command_id or new_id(),
            action=action,
            expected_version=expected_version,
            lag_ms=lag_ms,
            careful=careful,
        )
        return self.keep(await self.request(subjects.rules_act(game_id), req, Receipt))

    async def keys(self) -> list[str]:
        """The public keys the rules service signs receipts and seals with."""
        return (await self.request(subjects.RULES_KEYS, GetKeys(), Keys)).signing

    async def read(self, game_id: str, after: int = 0, seat: int | None = None,
                   token: str = "") -> list[StoredEvent]:  # fmt: skip
        """Every event with version > after (paged), as `seat` may see it (None: public);
        the seat's own private events come sealed and are opened with its token."""
        out: list[StoredEvent] = []
        while True:
            req = ReadEvents(game_id=game_id, after=after, seat=seat, token=token)
            page = await self.request(subjects.RULES_READ, req, Events)
            whole = {e.version: e for e in (unseal(token, s) for s in page.sealed)}
            out += [whole.get(e.version, e) for e in page.events]
            if not page.events or page.events[-1].version >= page.head:
                return out
            after = page.events[-1].version

    async def view(self, game_id: str, seat: int | None = None, token: str = "",
                   at: int | None = None) -> View:  # fmt: skip
        """The game as `seat` sees it (None: a spectator); sealed legal actions are opened.
        With `at`, the game as it stood after event `at`, without legal actions (a replay)."""
        req = GetView(game_id=game_id, seat=seat, token=token, at=at)
        view = await self.request(subjects.RULES_VIEW, req, View)
        if view.legal_box and seat is not None:
            legal = open_bytes(token, game_id, seat, view.version, "legal", view.legal_nonce,
                               view.legal_box)  # fmt: skip
            view = msgspec.structs.replace(view, legal=msgspec.json.decode(legal, type=list[str]),
                                           legal_nonce="", legal_box="")  # fmt: skip
        if view.board_box and seat is not None:
            board = open_bytes(token, game_id, seat, view.version, "board", view.board_nonce,
                               view.board_box)  # fmt: skip
            view = msgspec.structs.replace(view, board=msgspec.json.decode(board),
                                           board_nonce="", board_box="")  # fmt: skip
        return view

    async def watch(self, game_id: str, after: int = 0, seat: int | None = None,
                    token: str = "") -> AsyncIterator[StoredEvent]:  # fmt: skip
        """Catch up from the log, then follow live, in version order without duplicates.

        Subscribes before reading, so nothing falls between the read and the live feed; a gap
        (a lost notice) is filled from the log, and so is silence past `self.quiet` seconds (a
        lost last notice). For a seat, an event redacted for the public is
        held back until the seat's sealed copy arrives on its own subject.
        """
        async for batch in self.watch_batches(game_id, after, seat, token):
            for e in batch:
                yield e

    async def watch_batches(self, game_id: str, after: int = 0, seat: int | None = None,
                            token: str = "") -> AsyncIterator[list[StoredEvent]]:  # fmt: skip
        """`watch`, in runs: each list holds the consecutive events at hand, so a reader that
        acts on the game (a bot) acts once per run rather than on every event of an append."""
        queue: asyncio.Queue[StoredEvent] = asyncio.Queue()

        async def on_public(msg: Msg) -> None:
            queue.put_nowait(_stored.decode(msg.data))

        async def on_sealed(msg: Msg) -> None:
            queue.put_nowait(unseal(token, _sealed.decode(msg.data)))

        subs = [await self.nc.subscribe(subjects.game_events(game_id), cb=on_public)]
        if seat is not None:
            subs.append(await self.nc.subscribe(subjects.seat_events(game_id, seat),
                                                cb=on_sealed))  # fmt: skip
        known: dict[int, StoredEvent] = {}
        last = after
        quiet = self.quiet

        def complete(e: StoredEvent) -> bool:
            return not e.redacted or seat not in e.audience

        def take(e: StoredEvent) -> None:
            if e.version > last and not (e.version in known and complete(known[e.version])):
                known[e.version] = e

        try:
            for e in await self.read(game_id, after, seat, token):
                take(e)
            while True:
                while not queue.empty():  # everything already delivered joins this run
                    take(queue.get_nowait())
                run = []
                while (ready := known.get(last + 1)) is not None and complete(ready):
                    del known[last + 1]
                    last += 1
                    run.append(ready)
                if run:
                    yield run
                    continue
                try:
                    item = await asyncio.wait_for(queue.get(), quiet)
                except TimeoutError:  # silence: a notice may be lost, the log is not
                    found = await self.read(game_id, last, seat, token)
                    for e in found:
                        take(e)
                    quiet = self.quiet if found else min(2 * quiet, 60.0)  # a slow opponent
                    continue
                quiet = self.quiet
                take(item)
                if item.version > last + 1 and last + 1 not in known:
                    for e in await self.read(game_id, last, seat, token):  # fill the gap
                        take(e)
        finally:
            for sub in subs:
                await sub.unsubscribe()

    async def find_match(
        self, ruleset: str, variant: str = "", player: str = "", timeout: float = 60.0
    ) -> Seated:
        """Queue for a game and wait for the seat assignment (its token sealed to us)."""
        ticket, owner = new_id(), new_id()
        private, public = new_reply_key()
        sub = await self.nc.subscribe(subjects.match_assigned(ticket), max_msgs=1)
        try:
            await self.request(
                subjects.MATCH_ENQUEUE,
                Enqueue(
                    ticket=ticket,
                    ruleset=ruleset,
                    variant=variant,
                    player=player,
                    reply_key=public,
                    owner=owner,
                ),
                Queued,
            )
            msg = await sub.next_msg(timeout=timeout)
        finally:
            await sub.unsubscribe()
        a = msgspec.json.decode(msg.data, type=Assignment)
        token = open_sealed(private, f"assignment:{ticket}:{a.game_id}:{a.seat}", a.token)
        return Seated(game_id=a.game_id, ruleset=a.ruleset, variant=a.variant, seat=a.seat,
                      token=token.decode())  # fmt: skip
