"""The legal action list against the rules' own judgement: in positions from random games, every
action a player could write (each piece to each of the 125 positions, with and without a mine;
each shot; each transfer; each detonation; END; in `full` the weapons that take a position) is
put to `decide`, and the accepted ones must be exactly `legal_actions` (Y-4.3, sections 5.1 to
5.10). Generation and validation are separate code paths, so each checks the other."""

import random
import re

import pytest

from contracts.yavoch import Played
from domain.core import NeedDraws, Rejection
from domain.core import table as tables
from domain.yavoch.field import POSITIONS, adjacent_positions
from domain.yavoch.notation import format_position
from domain.yavoch.rules import YAVOCH
from domain.yavoch.state import State
from tests.domain.yavoch.test_properties import play

WEAPONS_AT_A_POSITION = ("AT", "REA", "RD", "HD")


def written(state: State) -> set[str]:
    """Every action text worth trying for the mover: superset of the legal ones (weapons with
    two-part arguments excepted)."""
    board, owner = state.board, state.mover + 1
    out = {"END"}
    f = format_position
    for p, ship in board.owned(owner):
        letter = ship.kind.value
        for q in POSITIONS:
            out.add(f"{letter}{f(p)}-{f(q)}")
            out.add(f"{letter}{f(p)}-{f(q)}/M")
            out.add(f"{letter}{f(p)}*{f(q)}")
            if state.cfg.full:
                out.update(f"W:{code}:{letter}{f(p)}:{f(q)}" for code in WEAPONS_AT_A_POSITION)
        out.add(f"{letter}{f(p)}!")
        out.update(f"E{f(p)}>{f(q)}" for q in adjacent_positions(p))
    for p, gate in board.gates.items():
        if gate.owner == owner:
            out.update(f"G{f(p)}-{f(q)}" for q in POSITIONS)
    return out


def canonical(state: State, text: str) -> str | None:
    """The stored form of `text` if the rules accept it (battle result dropped), else None."""
    action = YAVOCH.parse_action(state, state.mover, text)
    if isinstance(action, Rejection):
        return None
    decision = YAVOCH.decide(state, state.mover, action)
    if isinstance(decision, Rejection):
        return None
    if isinstance(decision, NeedDraws):  # a battle: accepted, the die still to come
        return text.replace("-", "x", 1) if "-" in text else text
    played = next(e for e in decision if isinstance(e, Played))
    return re.sub(r"\{[^}]*\}", "", played.action)


def positions(variant: str, games: int, every: int) -> list[State]:
    out = []
    for seed in range(games):
        game = play(100 + seed, variant, check=False)
        table = tables.fold(YAVOCH, game.game_id, game.log[:1])
        for i, event in enumerate(game.log[1:]):
            table = tables.evolve(table, event)
            state = table.game
            if i % every == 0 and state.phase == "play" and state.outcome is None:
                out.append(state)
    return out


@pytest.mark.parametrize(("variant", "games", "every"), [("decker", 2, 97), ("full", 4, 23)])
def test_accepted_actions_are_exactly_the_legal_list(variant: str, games: int, every: int) -> None:
    states = positions(variant, games, every)
    assert len(states) >= 8
    for state in states:
        legal = {
            YAVOCH.format_action(state, a)
            for a in YAVOCH.legal_actions(state, state.mover)
            if not isinstance(a, str)
        }
        weapons_with_two_parts = {t for t in legal if t.startswith(("W:TB", "W:EV", "W:CL"))}
        legal = {t.split("@")[0] for t in legal - weapons_with_two_parts}
        accepted = {c for t in written(state) if (c := canonical(state, t)) is not None}
        accepted = {c.split("@")[0] for c in accepted}
        assert accepted == legal, (
            f"only accepted: {sorted(accepted - legal)[:8]}, only listed: "
            f"{sorted(legal - accepted)[:8]}\n{YAVOCH.render(state)}"
        )


def test_the_written_actions_include_refusals_too() -> None:
    """The check above has teeth: most written actions are refused."""
    state = positions("decker", 1, 97)[0]
    tried = written(state)
    accepted = [t for t in tried if canonical(state, t) is not None]
    assert 0 < len(accepted) < len(tried) / 10
    rng = random.Random(1)
    assert canonical(state, rng.choice(sorted(set(tried) - set(accepted)))) is None


def test_refusals_speak_the_rulings_terms_not_the_sources_variants() -> None:
    """Y-R62: one name per thing — no "teleportal", "rings", "Squamata", "particle beam"..."""
    variants = ("teleportal", "perpendicual", "astroid", "neornithes", "squamata",
                "architeuthidae", "particle beam", "deflector shield", "ring")  # fmt: skip
    state = positions("decker", 1, 97)[0]
    reasons = set()
    for text in written(state):
        action = YAVOCH.parse_action(state, state.mover, text)
        decision = action if isinstance(action, Rejection) else YAVOCH.decide(
            state, state.mover, action)  # fmt: skip
        if isinstance(decision, Rejection):
            reasons.add(decision.reason.lower())
    assert len(reasons) > 10
    assert not [r for r in reasons for v in variants if re.search(rf"\b{v}", r)]
