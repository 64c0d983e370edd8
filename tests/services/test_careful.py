"""An action that would lose the game at once (issue 23: a Yavoch END with the Command ship's
energy spent) is refused to a careful client with `action/loses-the-game`, in the ruleset's
words, and changes nothing; sent again without `careful`, it is played and the game is lost by
it. Real services; Captain Decker's Yavoch from a hand-set position."""

import asyncio
import random
from typing import Any

from contracts.commands import Receipt
from contracts.errors import ErrorCode
from contracts.events import GameEnded
from domain.core import Ruleset
from services.client.bot import greedy_policy, play_seat
from services.client.client import Client, TabulaError
from services.runtime.codec import decode_log
from services.runtime.eventstore import EventStore

# Player one (seat 0, to move) has a Command ship with no energy at 111 and a Trych at 121;
# player two a Command ship with 3 at 511 and a Trych. After T121-131 player one may only END
# (resigning aside), and END ends the game against him: a Command ship with no energy at the
# end of its owner's turn loses (Y-8.3). (tests/browser/test_confirm.py plays it in a page.)
POSITION = "1C111 1T121 2C511:3 2T521 / 1"
PLAN = ("T121-131", "END")


class Careful(Client):
    """A client whose every action is careful, as a person's page is; a refused one is noted
    with the log's head before and after, then played anyway (the person confirmed)."""

    def __init__(self, nc: Any, store: EventStore) -> None:
        super().__init__(nc)
        self.store = store
        self.refused: list[tuple[str, str, int, int]] = []  # action, reason, heads

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
            self.refused.append((action, exc.reason, before.version, after.version))
            return await super().act(game_id, seat, token, action, careful=False, **options)


def planned(rs: Ruleset[Any, Any], state: Any, seat: int, rng: random.Random) -> Any:
    """Player one plays PLAN's moves in turn (the first legal one of them); player two as a
    greedy bot would."""
    if seat != 0:
        return greedy_policy(rs, state, seat, rng)
    texts = {rs.format_action(state, a): a for a in rs.legal_actions(state, seat)}
    return next((texts[t] for t in PLAN if t in texts), None)


async def test_an_action_that_loses_at_once_is_refused_when_careful_then_played(
    client: Client, store: EventStore
) -> None:
    # issue 23 "Actions that lose on the spot are marked before they are made"; Y-8.3
    careful = Careful(client.nc, store)
    game = await careful.create_game("yavoch", "decker", position=POSITION)
    # Both seats to the end: the seeds first, then the plan
    await asyncio.gather(*(play_seat(careful, game.game_id, g.seat, g.token, policy=planned,
                                     seed=1) for g in game.seats))  # fmt: skip
    assert [r[0] for r in careful.refused] == ["END"]
    _, reason, before, after = careful.refused[0]
    assert before == after  # refused: nothing appended
    assert "your Command ship ran out of energy" in reason
    _, events = decode_log(await store.read_all(game.game_id))
    ended = next(e for e in events if isinstance(e, GameEnded))
    assert (ended.result, ended.reason) == ("0-1", "dead_command_ship")  # played anyway: lost
