"""An action that would lose the game at once (issue 23: a Yavoch END with the Command ship's
energy spent, a HEP CAT fired with the last of it) is refused to a careful client with
`action/loses-the-game` and changes nothing; sent again without `careful`, it is played and
the game is lost by it. Bots play Yavoch games through the real services until one comes."""

import asyncio
from typing import Any

from contracts.commands import Receipt
from contracts.errors import ErrorCode
from contracts.events import GameEnded
from services.client.bot import play_seat
from services.client.client import Client, TabulaError
from services.runtime.codec import decode_log
from services.runtime.eventstore import EventStore

GAMES = 12  # bot games looked at; issue 23 counted such an end in 6 of 20


class Careful(Client):
    """A client whose every action is careful, as a person's page is, that then plays a
    refused one anyway (the person confirmed), noting the log's head before and after."""

    def __init__(self, nc: Any, store: EventStore) -> None:
        super().__init__(nc)
        self.store = store
        self.refused: list[tuple[str, int, str, int, int]] = []  # game, seat, action, heads

    async def act(self, game_id: str, seat: int, token: str, action: str,
                  **options: Any) -> Receipt:  # fmt: skip
        before = await self.store.head(game_id)
        try:
            return await super().act(game_id, seat, token, action, careful=True, **options)
        except TabulaError as exc:
            if exc.code != ErrorCode.LOSES:
                raise
            after = await self.store.head(game_id)
            assert before is not None
            assert after is not None
            self.refused.append((game_id, seat, action, before.version, after.version))
            return await super().act(game_id, seat, token, action, careful=False, **options)


async def test_an_action_that_loses_at_once_is_refused_when_careful_then_played(
    client: Client, store: EventStore
) -> None:
    # issue 23 "Actions that lose on the spot are marked before they are made"
    careful = Careful(client.nc, store)
    for n in range(GAMES):
        game = await careful.create_game("yavoch", "decker")
        async with asyncio.timeout(120):
            await asyncio.gather(*(play_seat(careful, game.game_id, g.seat, g.token, seed=n)
                                   for g in game.seats))  # fmt: skip
        if careful.refused:
            break
    assert careful.refused, f"no action lost a game at once in {GAMES} bot games"
    game_id, seat, _action, before, after = careful.refused[0]
    assert before == after  # refused: nothing appended
    _, events = decode_log(await store.read_all(game_id))
    ended = next(e for e in events if isinstance(e, GameEnded))
    assert seat not in ended.winners  # played anyway, it lost the game
    assert ended.winners
