"""`decide` returns the state it computed (issue 11): every accepted decision is a `Decided`,
whose `state` equals folding its events over the state decided on, for every ruleset and at
the table; the service then uses that state instead of folding the events again (so the
rulesets keep no memo of their own)."""

import random
from functools import reduce
from typing import Any

import msgspec
import pytest

from domain import fairplay
from domain.chess3d import CHESS3D
from domain.core import Decided, DrawResult, NeedDraws, Rejection, Ruleset
from domain.core import table as tables
from domain.cyvasse import CYVASSE
from domain.yavoch import YAVOCH
from domain.yiora import YIORA
from services.client.bot import greedy_policy
from tests.domain.cyvasse.helpers import position
from tests.rulesets.driver import LocalGame, client_seed, fulfil

SEED, GAME = "5e" * 32, "decided-test"
CYVASSE_START = position(
    "Ke1 Td1 Rc1 Sb1 Ca1 Ef1 Hg1 Lh1 Dd3", "Ke8 Td8 Rc8 Sb8 Ca8 Ef8 Hg8 Lh8 Dd6"
)


def decide(rs: Ruleset[Any, Any], state: Any, seat: int, action: Any, rng: random.Random) -> Any:
    """Decide, answering the draws a ruleset asks for as the randomness service would."""
    draws: list[DrawResult] = []
    while isinstance(decision := rs.decide(state, seat, action, draws), NeedDraws):
        for r in decision.requests:
            if r.kind == "salt":
                draws.append(DrawResult(None, "salt", r.n, r.purpose,
                                        salt=fairplay.card_salt(SEED, GAME, r.n)))  # fmt: skip
                continue
            values = tuple(rng.sample(range(r.n), r.n)) if r.kind == "shuffle" else (
                rng.randrange(r.n),)  # fmt: skip
            draws.append(DrawResult(len(draws), r.kind, r.n, r.purpose, values))
    return decision


@pytest.mark.parametrize(
    ("rs", "variant", "start"),
    [
        (CHESS3D, "", ""),
        (CYVASSE, "A", CYVASSE_START),
        (CYVASSE, "B", CYVASSE_START),
        (YAVOCH, "decker", ""),
        (YAVOCH, "full", ""),
        (YIORA, "", ""),
        (YIORA, "secondary_basic", ""),
        (YIORA, "secondary_complex+teams", ""),
    ],
)
def test_every_decision_carries_the_state_its_events_lead_to(
    rs: Ruleset[Any, Any], variant: str, start: str
) -> None:
    rng = random.Random(11)
    state = rs.start(msgspec.structs.replace(rs.create(variant, start), game_id=GAME))
    checked = 0
    for _ in range(150):
        seats = sorted(rs.to_act(state))
        if not seats or rs.outcome(state) is not None:
            break
        seat = seats[0]
        action = greedy_policy(rs, state, seat, rng)
        if action is None:
            break
        decision = decide(rs, state, seat, action, rng)
        assert not isinstance(decision, Rejection), decision
        assert isinstance(decision, Decided), rs.format_action(state, action)
        assert decision.state == reduce(rs.evolve, decision, state)
        state = decision.state
        checked += 1
    assert checked >= 20


def test_the_table_hands_on_the_state_without_folding_again() -> None:
    rng = random.Random(5)
    table = tables.open_table(CHESS3D, GAME, CHESS3D.create(""))
    for _ in range(60):
        seat = min(tables.to_act(table))
        action = greedy_policy(CHESS3D, table.game, seat, rng)
        decision = tables.decide(table, seat, CHESS3D.format_action(table.game, action))
        assert isinstance(decision, Decided)
        assert decision.state == reduce(tables.evolve, decision, table)
        table = decision.state
        if tables.outcome(table) is not None:
            break


@pytest.mark.parametrize("variant", ["decker", "full"])
def test_at_the_table_a_ruleset_recording_its_own_draws_carries_the_table_too(
    variant: str,
) -> None:
    """Yavoch records its dice and shuffles where they fall in an action: the table it leads
    to (the nonces spent included) equals folding the events at the table."""
    rng = random.Random(3)
    game = LocalGame.create(rng.randbytes(32).hex(), f"decided-{variant}", YAVOCH, variant)
    game.seed([client_seed(rng), client_seed(rng)])
    carried = 0
    while tables.outcome(game.table) is None and carried < 80:
        (seat,) = tables.to_act(game.table)
        state = game.table.game
        text = YAVOCH.format_action(state, YAVOCH.bot_action(state, seat, rng.randrange))
        draws: list[DrawResult] = []
        while isinstance(decision := tables.decide(game.table, seat, text, draws), NeedDraws):
            assert game.table.fair is not None
            draws += fulfil(decision.requests, game.server_seed, game.game_id,
                            game.table.fair.mix)  # fmt: skip
        assert not isinstance(decision, Rejection), decision
        if isinstance(decision, Decided):
            assert decision.state == reduce(tables.evolve, decision, game.table)
            carried += 1
        game.apply(decision)
    assert carried >= 20
