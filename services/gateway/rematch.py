"""Rematches (issue 23): once a game has ended, any of its players may offer the same game
again, colours rotated.

An offer is a private challenge (services/gateway/lobby.py) for the game's other players: the
same ruleset, variant, position, time per move, clocks and rating as the game's GameCreated
(the first event of its log), each player at the next seat round (seat i's player sits at
seat (i + 1) mod n), the offerer seated and each other player invited to its own seat. Its id
comes from the game's, so two players offering at once make one offer (HSETNX), and an offer
made while another stands is taken as its acceptance; the last seat taken starts the game, as
any challenge's. Declined (or withdrawn by its offerer), it stays, marked, until it lapses, so
the others' pages say so; offering again replaces it.
"""

import hashlib
import time

import msgspec

from contracts import subjects
from contracts.commands import Clock, Events, ReadEvents
from contracts.errors import ErrorCode
from contracts.events import GameCreated
from domain.registry import find_ruleset
from services.client.client import TabulaError
from services.gateway.lobby import Challenge, Invited, Lobby, Opened, Seated, Table, is_bot
from services.gateway.people import Player, refuse
from services.gateway.play import Play
from services.runtime.codec import created

OFFERS_TRIED = 3  # a declined offer replaced by two players at once: one of them tries again


class Rematch(msgspec.Struct, frozen=True, kw_only=True):
    """A game's rematch offer as a player's page shows it."""

    challenge_id: str
    by: str  # the offerer's name
    seated: list[Seated]  # who sits where in the rematch so far
    invited: list[Invited]  # who it is for, each at its rotated seat
    you_invited: bool  # you are asked, and have not answered yet
    your_seat: int | None  # your seat in the rematch
    declined: bool
    declined_by: str = ""
    game_id: str = ""  # the rematch's game, once made


def rematch_id(game_id: str) -> str:
    """The challenge id of a game's rematch: the same for every player who offers it."""
    return "r" + hashlib.sha256(game_id.encode()).hexdigest()[:15]


class Rematches:
    """Rematch offers, over the lobby's challenges and the game as the gateway plays it."""

    def __init__(self, lobby: Lobby, play: Play) -> None:
        self.lobby = lobby
        self.play = play

    async def offer(self, player: Player, game_id: str) -> Rematch:
        """Offer a rematch, or (another player having offered one) accept it."""
        table = await self._ended(player, game_id)
        challenge = await self._challenge(player, table)
        you = table.seat_of(player.id)
        assert you is not None  # _ended checked it
        mine = Seated((you + 1) % challenge.seats, player.id, player.name)
        for _ in range(OFFERS_TRIED):
            if await self.lobby.put(challenge, mine):
                await self.lobby.index(challenge)
                # Another player who offered meanwhile took its seat before ours was written.
                opened = await self.lobby.start_if_full(await self.lobby.show(challenge.id))
                return _shown(opened, player)
            try:
                standing = await self.lobby.show(challenge.id)
            except TabulaError:  # lapsed meanwhile: offer afresh
                continue
            if standing.declined:
                await self.lobby.forget_declined(challenge.id)
                continue
            if standing.game_id or any(s.player == player.id for s in standing.seated):
                return _shown(standing, player)
            return _shown(await self.lobby.accept(player, challenge.id, None), player)
        raise refuse(ErrorCode.CONFLICT, "the rematch offer changed meanwhile: try again")

    async def accept(self, player: Player, game_id: str) -> Rematch:
        """Take your rotated seat; the last one taken starts the rematch."""
        await self._offered(game_id)
        return _shown(await self.lobby.accept(player, rematch_id(game_id), None), player)

    async def decline(self, player: Player, game_id: str) -> Rematch:
        """Decline the offer (a player it is for) or withdraw it (its offerer)."""
        await self._offered(game_id)
        await self.lobby.withdraw(player, rematch_id(game_id))
        return _shown(await self._offered(game_id), player)

    async def of(self, player: Player, game_id: str) -> Rematch | None:
        """The game's rematch offer as this player sees it, None when none stands."""
        try:
            return _shown(await self._offered(game_id), player)
        except TabulaError as exc:
            if exc.code != ErrorCode.UNKNOWN_CHALLENGE:
                raise
            return None

    async def _offered(self, game_id: str) -> Opened:
        try:
            return await self.lobby.show(rematch_id(game_id))
        except TabulaError as exc:
            if exc.code != ErrorCode.UNKNOWN_CHALLENGE:
                raise
            raise refuse(ErrorCode.UNKNOWN_CHALLENGE, "no rematch is offered for this game "
                         "(or the offer has lapsed)") from None  # fmt: skip

    async def _ended(self, player: Player, game_id: str) -> Table:
        """The game's table, once the game has ended, if the player sits in it."""
        view = await self.play.view(player, game_id)  # an unknown game: 404
        table = await self.play.table(game_id)
        if table is None or table.seat_of(player.id) is None:
            raise refuse(ErrorCode.FORBIDDEN, "you have no seat in this game")
        if not view.result:
            raise refuse(ErrorCode.IN_PLAY, "a rematch is offered once the game has ended")
        return table

    async def _challenge(self, player: Player, table: Table) -> Challenge:
        """The rematch as a challenge: the game's own terms, each seat's player one seat on."""
        first = await self._created(table.game_id)
        players = [s.player for s in table.seated]
        if sorted(s.seat for s in table.seated) != list(range(first.seats)) or \
                len(set(players)) != first.seats or any(map(is_bot, players)):  # fmt: skip
            raise refuse(ErrorCode.CONFLICT, "a rematch is for games whose every seat the "
                         "gateway gave to a different person")  # fmt: skip
        # Checked again, and canonical, as a challenge's (a ruleset may have changed since).
        again = find_ruleset(first.ruleset).create(first.variant, first.position)
        clock = None if first.clock is None else Clock(**msgspec.structs.asdict(first.clock))
        invited = [Invited(player=s.player, name=s.name, seat=(s.seat + 1) % first.seats)
                   for s in table.seated if s.player != player.id]  # fmt: skip
        return Challenge(id=rematch_id(table.game_id), ruleset=first.ruleset,
                         variant=again.variant, position=first.position,
                         move_deadline_ms=first.move_deadline_ms, clock=clock,
                         rated=first.rated, seats=first.seats, by=player.id,
                         created_ms=_now_ms(), invited=invited,
                         rematch_of=table.game_id)  # fmt: skip

    async def _created(self, game_id: str) -> GameCreated:
        """The game's GameCreated: the first event of its log (public), read alone."""
        read = ReadEvents(game_id=game_id, after=0, limit=1)
        page = await self.play.client.request(subjects.RULES_READ, read, Events)
        if not page.events:
            raise refuse(ErrorCode.UNKNOWN_GAME, f"no game {game_id}")
        return created(page.events[0])


def _shown(opened: Opened, player: Player) -> Rematch:
    spec = opened.challenge
    invited = spec.invitation(player.id)
    seated = any(s.player == player.id for s in opened.seated)
    mine = next((s.seat for s in opened.seated if s.player == player.id), None)
    by = next((s.name for s in opened.seated if s.player == spec.by), spec.by)
    return Rematch(challenge_id=spec.id, by=by, seated=opened.seated, invited=spec.invited,
                   you_invited=invited is not None and not seated and not opened.declined
                   and not opened.game_id,
                   your_seat=mine if invited is None else invited.seat,
                   declined=bool(opened.declined), declined_by=opened.declined,
                   game_id=opened.game_id)  # fmt: skip


def _now_ms() -> int:
    return int(time.time() * 1000)
