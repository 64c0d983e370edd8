"""The audit of recorded Yavoch games (tests/contracts/golden) against forgeries that keep the
hash chain intact: a battle result or roll that its die does not give, an Enemy Defector pick
the rolls do not give, a card the shuffle did not put there. Y-6.1: `tabula audit` verifies
every die of fate and every card."""

import re
from pathlib import Path

import msgspec

from contracts.envelope import StoredEvent
from contracts.events import CardDealt, GameSealed
from contracts.yavoch import CardTaken, Played
from domain import fairplay
from domain.audit import AuditReport, audit
from services.runtime.codec import decode_log

GOLDEN = Path(__file__).parents[2] / "contracts" / "golden"


def load(name: str) -> list[StoredEvent]:
    dec = msgspec.json.Decoder(StoredEvent)
    return [dec.decode(line) for line in (GOLDEN / name).read_bytes().splitlines() if line]


def forged(stored: list[StoredEvent], version: int, body: bytes) -> list[StoredEvent]:
    """`stored` with the body at `version` replaced and the chain (and seal) recomputed, as a
    dishonest server holding the log could write it."""
    out: list[StoredEvent] = []
    prev = fairplay.genesis_hash(stored[0].game_id)
    for s in stored:
        data = body if s.version == version else bytes(s.body)
        if s.type == "GameSealed":
            data = msgspec.json.encode(GameSealed(version=s.version - 1, hash=prev))
        digest = fairplay.chain_hash(s.version, prev, s.type, data)
        out.append(msgspec.structs.replace(s, body=msgspec.Raw(data), hash=digest))
        prev = digest
    return out


def failed_at(report: AuditReport, version: int, *words: str) -> None:
    assert report.failure is not None
    assert report.failure.version == version, report.failure
    for word in words:
        assert word in report.failure.message, report.failure.message


def test_the_recorded_games_pass_as_they_are() -> None:
    for name in ("yavoch-decker-v1.jsonl", "yavoch-full-v1.jsonl"):
        assert audit(load(name)).ok


def test_a_battle_result_its_roll_does_not_give_fails_the_replay() -> None:
    """Y-5.22 / Y-R5: `{d=r,W}` turned into `{d=r,L}` (the roll kept) is caught."""
    stored = load("yavoch-decker-v1.jsonl")
    _, events = decode_log(stored)
    version, played = next((v, e) for v, e in enumerate(events, 1)
                           if isinstance(e, Played) and "{d=" in e.action)  # fmt: skip
    flipped = played.action.replace(",W}", ",X}").replace(",L}", ",W}").replace(",X}", ",L}")
    body = msgspec.json.encode(msgspec.structs.replace(played, action=flipped))
    report = audit(forged(stored, version, body))
    failed_at(report, version, "another result")


def test_a_battle_roll_other_than_the_die_drawn_fails_the_replay() -> None:
    """Y-6.2: the roll written in the action must be the recorded die's."""
    stored = load("yavoch-decker-v1.jsonl")
    _, events = decode_log(stored)
    version, played = next((v, e) for v, e in enumerate(events, 1)
                           if isinstance(e, Played) and "{d=" in e.action)  # fmt: skip
    roll = int(re.search(r"d=(\d)", played.action).group(1))  # type: ignore[union-attr]
    other = played.action.replace(f"d={roll}", f"d={(roll + 1) % 10}")
    body = msgspec.json.encode(msgspec.structs.replace(played, action=other))
    report = audit(forged(stored, version, body))
    assert not report.ok
    assert report.failure is not None
    assert report.failure.version == version


def test_an_enemy_defector_pick_the_rolls_do_not_give_fails_the_replay() -> None:
    """Y-6.22 / Y-R42: the card taken is the one the roll indexes in the sorted hand."""
    stored = load("yavoch-full-v1.jsonl")
    _, events = decode_log(stored)
    version, taken = next((v, e) for v, e in enumerate(events, 1) if isinstance(e, CardTaken))
    dealt = {e.position for e in events[:version] if isinstance(e, CardDealt)}
    other = next(p for p in sorted(dealt) if p != taken.position)
    body = msgspec.json.encode(msgspec.structs.replace(taken, position=other))
    report = audit(forged(stored, version, body))
    failed_at(report, version, "rolls give")


def test_a_card_the_shuffle_did_not_deal_fails_even_with_a_valid_commitment() -> None:
    """Y-6.10 / Y-6.12 / fair-play 2: a dealt card re-committed under its salt is still not
    the card the recorded shuffle put on top."""
    stored = load("yavoch-full-v1.jsonl")
    _, events = decode_log(stored)
    version, card = next((v, e) for v, e in enumerate(events, 1)
                         if isinstance(e, CardDealt) and e.card.startswith("C-"))  # fmt: skip
    swap = "C-ANY-X" if card.card != "C-ANY-X" else "C-AMI-T"
    game = stored[0].game_id
    commitment = fairplay.card_commitment(game, card.position, swap, card.salt)
    body = msgspec.json.encode(msgspec.structs.replace(card, card=swap, commitment=commitment))
    report = audit(forged(stored, version, body))
    failed_at(report, version, "shuffled deck")
