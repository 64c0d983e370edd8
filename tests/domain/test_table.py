"""The fair-play table (domain/core/table.py) with the race test ruleset and with 3-D Chess.

Sections cited as `# fair-play N.M` are those of the fair-play protocol v1 (docs/fair-play.md).
"""

import dataclasses
import random
from typing import Any

import msgspec
import pytest

from contracts.errors import ErrorCode
from contracts.events import (
    PLATFORM_EVENTS,
    CardDealt,
    CardRevealed,
    ClientSeedCommitted,
    ClientSeedRevealed,
    DeckShuffled,
    Event,
    GameCreated,
    GameEnded,
    RandomDrawn,
    Resigned,
    SeedCommitted,
    SeedRevealed,
    SetupCommitted,
    SetupRevealed,
    TimedOut,
)
from domain import fairplay
from domain.chess3d import CHESS3D
from domain.core import DrawResult, NeedDraws, Rejection, VariantError
from domain.core import table as tables
from domain.registry import RULESETS, find_ruleset
from tests.rulesets import register
from tests.rulesets.driver import LocalGame, fulfil, play_game, play_locally, setup_bytes
from tests.rulesets.race import (
    DECK,
    RACE,
    Advanced,
    Held,
    RaceAction,
    RaceState,
    Verb,
    card_value,
)

register()

SERVER_SEED = "9f2c" * 16
GAME = "race-0001"
SEEDS = ("alice0123456789ab", "bob0123456789abcd")
NONCES = ("a1" * 32, "b2" * 32)
BOOST0 = setup_bytes({"boost": 0})


def new_game() -> LocalGame:
    return LocalGame.create(SERVER_SEED, GAME)


def seeded() -> LocalGame:
    game = new_game()
    game.seed(SEEDS)
    return game


def playing(boosts: tuple[int, int] = (0, 0)) -> LocalGame:
    """A race past the seeds and the setup: seat 0 to move."""
    game = seeded()
    game.set_up([setup_bytes({"boost": b}) for b in boosts], NONCES)
    return game


def rejected(result: tuple[Event, ...] | Rejection | NeedDraws) -> Rejection:
    assert isinstance(result, Rejection), result
    return result


def client_commit(seat: int) -> str:
    return f"seed-commit {fairplay.client_seed_commitment(GAME, seat, SEEDS[seat])}"


def race_state(game: LocalGame) -> RaceState:
    state = game.table.game
    assert isinstance(state, RaceState)
    return state


# -- the race ruleset and the registry --------------------------------------------------------


def test_register_is_idempotent() -> None:
    """register() puts RACE into the registry once; chess3d stays."""
    register()
    register()
    assert find_ruleset("race") is RACE
    assert RULESETS["chess3d"] is CHESS3D


def test_race_create() -> None:
    """create() announces randomness and a hidden setup; variants and positions are refused."""
    assert RACE.create("") == GameCreated(ruleset="race", seats=2, randomness=True,
                                          hidden_setup=True, variant="")  # fmt: skip
    with pytest.raises(VariantError) as bad_variant:
        RACE.create("fast")
    assert bad_variant.value.code is ErrorCode.BAD_VARIANT
    with pytest.raises(VariantError) as bad_position:
        RACE.create("", "7-12")
    assert bad_position.value.code is ErrorCode.BAD_POSITION


def test_race_deck_and_values() -> None:
    """The canonical deck is c1..c10, card cN worth N mod 5 + 1, dealt in the shuffle's order."""
    assert list(DECK) == [f"c{i}" for i in range(1, 11)]
    assert [card_value(c) for c in DECK] == [2, 3, 4, 5, 1, 2, 3, 4, 5, 1]
    state = RaceState("g", order=(3, 0, 1, 2, 4, 5, 6, 7, 8, 9))
    assert RACE.card_at(state, 0) == "c4"
    assert RACE.card_at(state, 10) is None
    assert RACE.card_at(RaceState("g"), 0) is None  # nothing before the shuffle


@pytest.mark.parametrize(
    ("setup", "why"),
    [
        (b"{boost: 1}", "JSON"),
        (b"\xff", "JSON"),
        (b"[1]", "one key"),
        (b'{"boost": 1, "extra": 0}', "one key"),
        (b'{"speed": 1}', "one key"),
        (b'{"boost": true}', "integer"),
        (b'{"boost": 1.0}', "integer"),
        (b'{"boost": -1}', "0 to 3"),
        (b'{"boost": 4}', "0 to 3"),
    ],
)
def test_race_check_setup_rejects(setup: bytes, why: str) -> None:
    """check_setup refuses bad JSON, wrong keys, non-integers and out-of-range boosts (RACE-1)."""
    problem = RACE.check_setup(RACE.start(RACE.create("")), 0, setup)
    assert problem is not None
    assert problem.code is ErrorCode.ILLEGAL_ACTION
    assert problem.clause == "RACE-1"
    assert why in problem.reason


@pytest.mark.parametrize("boost", [0, 1, 2, 3])
def test_race_check_setup_accepts(boost: int) -> None:
    """Every boost 0..3 is a legal setup."""
    assert RACE.check_setup(RACE.start(RACE.create("")), 1, setup_bytes({"boost": boost})) is None


def test_race_forfeit() -> None:
    """forfeit: the other seat wins by illegal_setup."""
    state = RACE.start(RACE.create(""))
    assert RACE.forfeit(state, (0,), "x") == (GameEnded(result="0-1", reason="illegal_setup",
                                                     winners=[1]),)  # fmt: skip
    assert RACE.forfeit(state, (1,), "x") == (GameEnded(result="1-0", reason="illegal_setup",
                                                     winners=[0]),)  # fmt: skip


def test_race_actions_text_round_trip() -> None:
    """Every legal action formats to a text that parses back to it; junk is malformed."""
    game = playing()
    game.must(0, "draw")
    game.must(1, "roll")
    state = race_state(game)
    actions = RACE.legal_actions(state, 0)
    assert [RACE.format_action(state, a) for a in actions] == ["roll", "draw", "play 0", "resign"]
    for action in actions:
        assert RACE.parse_action(state, 0, RACE.format_action(state, action)) == action
    assert RACE.legal_actions(state, 1) == [RaceAction(Verb.RESIGN)]  # out of turn (RACE-6)
    for junk in ("", "jump", "play", "play x", "play -1", "roll 3"):
        problem = rejected(tables.decide(game.table, 0, junk))
        assert problem.code is ErrorCode.MALFORMED_ACTION
        assert problem.clause == "RACE-0"


def test_race_roll_and_turns() -> None:
    """A roll advances by the die's face + 1 and passes the turn; out of turn is refused."""
    game = playing(boosts=(2, 0))
    events = game.must(0, "roll")
    drawn, advanced = events
    assert isinstance(drawn, RandomDrawn)
    assert advanced == Advanced(seat=0, by=drawn.value + 1, reason="roll")
    assert race_state(game).squares == (2 + drawn.value + 1, 0)
    assert tables.to_act(game.table) == {1}
    problem = rejected(tables.decide(game.table, 0, "roll"))
    assert (problem.code, problem.clause) == (ErrorCode.NOT_YOUR_TURN, "RACE-2")


def test_race_hand_limit() -> None:
    """A fourth card in hand is refused (RACE-4)."""
    game = playing()  # no boosts: seat 1's three rolls cannot reach 20
    for _ in range(3):
        game.must(0, "draw")
        game.must(1, "roll")
    assert len(race_state(game).hands[0]) == 3
    assert RaceAction(Verb.DRAW) not in RACE.legal_actions(race_state(game), 0)
    problem = rejected(tables.decide(game.table, 0, "draw"))
    assert (problem.code, problem.clause) == (ErrorCode.ILLEGAL_ACTION, "RACE-4")
    assert "at most 3" in problem.reason


def test_race_empty_deck() -> None:
    """With all ten cards dealt, `draw` is neither legal nor accepted (RACE-4)."""
    state = dataclasses.replace(race_state(playing()), order=tuple(range(10)), dealt=10)
    assert RaceAction(Verb.DRAW) not in RACE.legal_actions(state, 0)
    problem = RACE.decide(state, 0, RaceAction(Verb.DRAW))
    assert isinstance(problem, Rejection)
    assert (problem.clause, problem.reason) == ("RACE-4", "the deck is empty")


def test_race_play_reveals_and_advances() -> None:
    """`play <p>` reveals the held card with its salt and advances by its value (RACE-5)."""
    game = playing()
    (dealt,) = [e for e in game.must(0, "draw") if isinstance(e, CardDealt)]
    game.must(1, "roll")
    revealed, advanced = game.must(0, f"play {dealt.position}")
    assert revealed == CardRevealed(seat=0, position=0, card=dealt.card, salt=dealt.salt)
    assert advanced == Advanced(seat=0, by=card_value(dealt.card), reason="card")
    assert race_state(game).hands[0] == ()
    problem = rejected(tables.decide(game.table, 1, "play 0"))  # seat 1 holds no card 0
    assert problem.clause == "RACE-5"


def test_race_finish() -> None:
    """Reaching square 20 or beyond wins (RACE-7)."""
    state = dataclasses.replace(race_state(playing()), squares=(19, 0))
    die = DrawResult(0, "die", 6, "roll", (0,))
    assert RACE.decide(state, 0, RaceAction(Verb.ROLL), [die]) == (
        Advanced(seat=0, by=1, reason="roll"),
        GameEnded(result="1-0", reason="finish", winners=[0]),
    )
    state = dataclasses.replace(state, turn=1, squares=(0, 17), hands=((), (Held(3, "c4", ""),)))
    events = RACE.decide(state, 1, RaceAction(Verb.PLAY, 3))
    assert isinstance(events, tuple)
    assert events[-1] == GameEnded(result="0-1", reason="finish", winners=[1])


def test_race_resign_out_of_turn() -> None:
    """Either seat may resign at any time (RACE-6); the game is then over for everyone."""
    game = playing()
    assert game.must(1, "resign") == (
        Resigned(seat=1),
        GameEnded(result="1-0", reason="resignation", winners=[0]),
    )
    assert tables.phase(game.table) == "ended"
    assert tables.to_act(game.table) == frozenset()
    assert rejected(tables.decide(game.table, 0, "roll")).code is ErrorCode.GAME_ENDED


def test_race_projections() -> None:
    """position, render and view describe the race; view shows a hand only to its holder."""
    game = playing(boosts=(3, 1))
    game.must(0, "draw")
    state = race_state(game)
    assert RACE.position(state) == "race 3-1 hands 1/0 deck 9 to-move 1"
    assert "seat 1 to move" in RACE.render(state)
    mine, theirs = RACE.view(state, 0), RACE.view(state, 1)
    assert mine["hands"][0][0]["card"] == state.hands[0][0].card
    assert theirs["hands"] == [1, []]
    assert RACE.view(state, None)["hands"] == [1, 0]


# -- the seed protocol (fair-play 1) ----------------------------------------------------------


def test_seeding_phase_blocks_play() -> None:
    """Before the mix is known every seat must commit and nothing else is accepted."""
    game = new_game()
    assert game.table.fair is not None  # fair-play 1.1: the server's commitment comes first
    assert game.table.fair.commitment == fairplay.seed_commitment(SERVER_SEED)
    assert tables.phase(game.table) == "seeding"
    assert tables.to_act(game.table) == {0, 1}
    for text in ("roll", "resign", f"setup-commit {'0' * 64}"):  # fair-play 1.3
        problem = rejected(tables.decide(game.table, 0, text))
        assert problem.code is ErrorCode.NOT_STARTED


def test_seed_commit_then_reveal_after_all_committed() -> None:
    """A seat reveals only once every seat has committed; to_act follows each step."""
    game = new_game()
    assert game.must(0, client_commit(0)) == (  # fair-play 1.2
        ClientSeedCommitted(seat=0, commitment=fairplay.client_seed_commitment(GAME, 0, SEEDS[0])),
    )
    assert tables.to_act(game.table) == {1}
    early = rejected(tables.decide(game.table, 0, f"seed-reveal {SEEDS[0]}"))  # fair-play 1.3
    assert (early.code, early.clause) == (ErrorCode.NOT_YOUR_TURN, "fair-play 1.3")
    again = rejected(tables.decide(game.table, 0, client_commit(0)))
    assert again.code is ErrorCode.ILLEGAL_ACTION
    game.must(1, client_commit(1))
    assert tables.to_act(game.table) == {0, 1}  # now both reveal
    assert rejected(tables.decide(game.table, 1, "roll")).code is ErrorCode.NOT_STARTED
    assert game.must(1, f"seed-reveal {SEEDS[1]}") == (ClientSeedRevealed(seat=1, seed=SEEDS[1]),)
    assert tables.to_act(game.table) == {0}
    assert rejected(tables.decide(game.table, 1, f"seed-reveal {SEEDS[1]}")).code is (
        ErrorCode.ILLEGAL_ACTION
    )
    game.must(0, f"seed-reveal {SEEDS[0]}")
    assert game.table.fair is not None
    assert game.table.fair.mix == fairplay.mix(SEEDS)  # fair-play 1.4
    assert tables.phase(game.table) == "setup"
    assert tables.to_act(game.table) == {0, 1}


def test_wrong_seed_refused() -> None:
    """A revealed seed must match the seat's own commitment (fair-play 1.3)."""
    game = new_game()
    game.must(0, client_commit(0))
    game.must(1, client_commit(1))
    for seat, seed in ((0, SEEDS[1]), (1, SEEDS[0]), (0, "alice0123456789ac")):
        problem = rejected(tables.decide(game.table, seat, f"seed-reveal {seed}"))
        assert problem.code is ErrorCode.ILLEGAL_ACTION
        assert "does not match" in problem.reason


@pytest.mark.parametrize(
    ("committed", "text"),
    [
        (False, "seed-commit"),
        (False, "seed-commit abc"),
        (False, f"seed-commit {'A' * 64}"),  # upper case is not the protocol's hex
        (False, f"seed-commit {'0' * 63}g"),
        (True, "seed-reveal short"),
        (True, "seed-reveal has space in it 0123"),
        (True, f"seed-reveal {'x' * 65}"),
        (True, "seed-reveal alice0123456789a!"),
    ],
)
def test_seed_bad_format_refused(committed: bool, text: str) -> None:
    """A commitment is 64 lower-case hex; a client seed [A-Za-z0-9_-]{16,64} (fair-play 1.2)."""
    game = new_game()
    if committed:
        game.must(0, client_commit(0))
        game.must(1, client_commit(1))
    assert rejected(tables.decide(game.table, 0, text)).code is ErrorCode.MALFORMED_ACTION


# -- draws and nonces (fair-play 1.5, 2) ------------------------------------------------------


def test_nonces_number_draws_in_order() -> None:
    """The first draw gets nonce 0, then 1, 2 ...; a shuffle and a die share the sequence;
    a salt takes no nonce (fair-play 1.5, 2)."""
    game = playing()
    need = tables.decide(game.table, 0, "roll")
    assert isinstance(need, NeedDraws)
    ((request,),) = (need.requests,)
    assert (request.kind, request.n, request.purpose, request.nonce) == ("die", 6, "roll", 0)
    (drawn, _) = game.must(0, "roll")
    assert isinstance(drawn, RandomDrawn)
    assert drawn.nonce == 0
    assert drawn.value == fairplay.die(SERVER_SEED, GAME, fairplay.mix(SEEDS), 0, 6)

    need = tables.decide(game.table, 1, "draw")  # the first draw: shuffle + salt
    assert isinstance(need, NeedDraws)
    shuffle, salt = need.requests
    assert (shuffle.kind, shuffle.n, shuffle.purpose, shuffle.nonce) == ("shuffle", 10, "deck", 1)
    assert (salt.kind, salt.n, salt.purpose, salt.nonce) == ("salt", 0, "deal", None)
    shuffled, dealt = game.must(1, "draw")  # the table records the shuffle before the deal
    assert isinstance(shuffled, DeckShuffled)
    assert shuffled.nonce == 1
    assert shuffled.order == fairplay.shuffle(SERVER_SEED, GAME, fairplay.mix(SEEDS), 1, 10)
    assert isinstance(dealt, CardDealt)
    assert game.table.fair is not None
    assert game.table.fair.next_nonce == 2

    need = tables.decide(game.table, 0, "draw")  # a later draw: the salt alone, no nonce
    assert isinstance(need, NeedDraws)
    ((salt,),) = (need.requests,)
    assert (salt.kind, salt.n, salt.nonce) == ("salt", 1, None)
    (dealt,) = game.must(0, "draw")
    assert isinstance(dealt, CardDealt)
    assert game.table.fair.next_nonce == 2  # the salt spent nothing

    need = tables.decide(game.table, 1, "roll")
    assert isinstance(need, NeedDraws)
    assert need.requests[0].nonce == 2


def test_wrong_nonce_refused() -> None:
    """Outcomes must carry the game's next nonces in order; anything else is refused."""
    game = playing()
    assert game.table.fair is not None
    mix = game.table.fair.mix
    need = tables.decide(game.table, 0, "roll")
    assert isinstance(need, NeedDraws)
    (good,) = fulfil(need.requests, SERVER_SEED, GAME, mix)
    for nonce in (1, 5, None):
        with pytest.raises(ValueError, match="nonce"):
            tables.decide(game.table, 0, "roll", [dataclasses.replace(good, nonce=nonce)])
        with pytest.raises(ValueError, match="nonce"):
            tables._draw_events(game.table, [dataclasses.replace(good, nonce=nonce)])
    with pytest.raises(ValueError, match="nonce 0 given where 1"):  # twice the same nonce
        tables._draw_events(game.table, [good, good])
    assert tables._draw_events(game.table, [good]) == [
        RandomDrawn(nonce=0, kind="die", n=6, purpose="roll", value=good.values[0])
    ]


# -- the hidden setup (fair-play 3) -----------------------------------------------------------


def test_setup_commit_then_reveal() -> None:
    """Both commit; reveals only after that; a valid reveal is applied to the game."""
    game = seeded()
    assert tables.phase(game.table) == "setup"
    assert rejected(tables.decide(game.table, 0, "roll")).code is ErrorCode.NOT_STARTED
    boost = setup_bytes({"boost": 3})
    commitment = fairplay.setup_commitment(GAME, 1, NONCES[1], boost)
    assert game.commit_setup(1, NONCES[1], boost) == (
        SetupCommitted(seat=1, commitment=commitment),
    )
    assert tables.to_act(game.table) == {0}
    early = rejected(tables.decide(game.table, 1, f"setup-reveal {NONCES[1]} {boost.decode()}"))
    assert early.code is ErrorCode.NOT_YOUR_TURN
    assert rejected(tables.decide(game.table, 1, f"setup-commit {'0' * 64}")).code is (
        ErrorCode.ILLEGAL_ACTION
    )
    assert rejected(tables.decide(game.table, 0, "setup-commit xyz")).code is (
        ErrorCode.MALFORMED_ACTION
    )
    game.commit_setup(0, NONCES[0], BOOST0)
    assert tables.to_act(game.table) == {0, 1}  # the commit phase is closed
    assert game.reveal_setup(1, NONCES[1], boost) == (
        SetupRevealed(seat=1, nonce=NONCES[1], setup='{"boost":3}'),
    )
    assert race_state(game).squares == (0, 3)
    assert tables.to_act(game.table) == {0}
    bad_nonce = rejected(tables.decide(game.table, 0, 'setup-reveal {"boost":0}'))
    assert bad_nonce.code is ErrorCode.MALFORMED_ACTION
    game.reveal_setup(0, NONCES[0], BOOST0)
    twice = rejected(tables.decide(game.table, 0, f"setup-reveal {NONCES[0]} {BOOST0.decode()}"))
    assert twice.code is ErrorCode.ILLEGAL_ACTION
    assert tables.phase(game.table) == "play"
    assert tables.to_act(game.table) == {0}


@pytest.mark.parametrize(
    ("nonce", "revealed"),
    [
        (NONCES[0], b'{"boost":3}'),  # other bytes than committed
        (NONCES[1], b'{"boost":0}'),  # other nonce
        (NONCES[0], b'{"boost": 0}'),  # same JSON, other bytes
    ],
)
def test_setup_mismatching_reveal_loses(nonce: str, revealed: bytes) -> None:
    """A reveal that does not open the commitment is recorded as rejected and loses."""
    game = seeded()
    game.commit_setup(0, NONCES[0], BOOST0)
    game.commit_setup(1, NONCES[1], BOOST0)
    events = game.must(0, f"setup-reveal {nonce} {revealed.decode()}")
    assert events == (
        SetupRevealed(seat=0, nonce=nonce, setup=revealed.decode(),
                      rejected="the revealed setup does not match its commitment"),
        GameEnded(result="0-1", reason="illegal_setup", winners=[1]),
    )  # fmt: skip
    assert race_state(game).squares == (0, 0)  # a rejected setup is not applied
    assert tables.phase(game.table) == "ended"
    assert tables.outcome(game.table) is not None
    assert rejected(tables.decide(game.table, 1, "setup-reveal x")).code is ErrorCode.GAME_ENDED


def test_setup_illegal_but_matching_reveal_loses() -> None:
    """A reveal that opens its commitment but breaks RACE-1 (boost 9) loses too."""
    game = seeded()
    nine = setup_bytes({"boost": 9})
    game.commit_setup(0, NONCES[0], BOOST0)
    game.commit_setup(1, NONCES[1], nine)
    game.reveal_setup(0, NONCES[0], BOOST0)
    revealed, ended = game.reveal_setup(1, NONCES[1], nine)
    assert isinstance(revealed, SetupRevealed)
    assert revealed.rejected == "the boost is 0 to 3, got 9 [RACE-1]"
    assert ended == GameEnded(result="1-0", reason="illegal_setup", winners=[0])
    assert race_state(game).squares == (0, 0)


# -- visibility -------------------------------------------------------------------------------


def test_visibility_during_and_after_the_game() -> None:
    """The deck order is hidden from everyone and a card from all but its holder, until the
    game ends; then every event is public."""
    game = playing()
    shuffled, dealt = game.must(0, "draw")
    assert isinstance(shuffled, DeckShuffled)
    assert isinstance(dealt, CardDealt)
    for seat in (0, 1, None):
        seen = tables.visible(game.table, shuffled, seat)
        assert isinstance(seen, DeckShuffled)
        assert (seen.nonce, seen.n, seen.order) == (shuffled.nonce, 10, [])
    assert tables.visible(game.table, dealt, 0) == dealt
    for seat in (1, None):
        assert tables.visible(game.table, dealt, seat) == CardDealt(
            seat=0, position=0, commitment=dealt.commitment
        )
    assert tables.audience(dealt) == (0,)
    assert tables.audience(shuffled) == ()
    for event in game.log:  # everything else is public
        if not isinstance(event, (DeckShuffled, CardDealt)):
            assert all(tables.visible(game.table, event, s) == event for s in (0, 1, None))
    game.must(1, "resign")
    for seat in (0, 1, None):
        assert tables.visible(game.table, shuffled, seat) == shuffled
        assert tables.visible(game.table, dealt, seat) == dealt


# -- a game without randomness ----------------------------------------------------------------


def test_chess3d_passes_straight_through() -> None:
    """3-D Chess draws nothing and hides nothing: no seeds, no screen, decide and evolve are
    the ruleset's own."""
    game = LocalGame.create(SERVER_SEED, "chess-1", CHESS3D)
    table = game.table
    assert (table.fair, table.screen) == (None, None)
    assert tables.phase(table) == "play"
    assert tables.to_act(table) == {0}
    for text in (client_commit(0), "seed-reveal alice0123456789ab"):  # fair-play 1
        assert rejected(tables.decide(table, 0, text)).code is ErrorCode.ILLEGAL_ACTION
    for text in (f"setup-commit {'0' * 64}", f"setup-reveal {NONCES[0]} x"):  # fair-play 3
        assert rejected(tables.decide(table, 0, text)).code is ErrorCode.ILLEGAL_ACTION
    rng = random.Random(7)
    for _ in range(6):
        (seat,) = tables.to_act(game.table)
        state = game.table.game
        moves = [a for a in CHESS3D.legal_actions(state, seat) if not isinstance(a, str)]
        text = CHESS3D.format_action(state, rng.choice(moves))
        events = game.must(seat, text)
        action = CHESS3D.parse_action(state, seat, text)
        assert not isinstance(action, Rejection)
        assert events == CHESS3D.decide(state, seat, action)
        for event in events:
            assert all(tables.visible(game.table, event, s) == event for s in (0, 1, None))
    assert game.table.game == _chess_fold(game.log[1:])
    assert tables.fold(CHESS3D, "chess-1", game.log) == game.table


def _chess_fold(events: list[Event]) -> Any:
    state = CHESS3D.start(GameCreated(ruleset="chess3d", seats=2))
    for event in events:
        state = CHESS3D.evolve(state, event)
    return state


# -- whole games ------------------------------------------------------------------------------

RACE_EVENTS: tuple[type[Event], ...] = (*PLATFORM_EVENTS, *RACE.events)


def test_fold_equals_live_table() -> None:
    """Replaying a whole game's log, also through its stored JSON, rebuilds the live table."""
    game = play_game(3, SERVER_SEED, GAME)
    assert tables.fold(RACE, GAME, game.log) == game.table
    stored = [msgspec.json.encode(e) for e in game.log]
    decoder: msgspec.json.Decoder[Event] = msgspec.json.Decoder(_union())
    assert tables.fold(RACE, "ignored", [decoder.decode(b) for b in stored]) == game.table
    assert game.log == play_locally(3, SERVER_SEED, GAME)  # deterministic


def _union() -> Any:
    """The tagged union of a race log's event types, for msgspec."""
    union: Any = RACE_EVENTS[0]
    for t in RACE_EVENTS[1:]:
        union = union | t
    return union


def test_random_games_keep_the_invariants() -> None:
    """Seeded random games: replay equals live, nonces run 0, 1, 2 ... with no gap, no hand
    exceeds 3, every outcome is the protocol's function of the seeds, and every dealt card
    opens its commitment."""
    seen_shuffle = seen_play = 0
    for seed in range(60):
        game_id = f"race-{seed}"
        game = play_game(seed, SERVER_SEED, game_id)
        log = game.log
        assert tables.fold(RACE, game_id, log) == game.table
        revealed, committed = log[-1], log[1]
        assert isinstance(revealed, SeedRevealed)
        assert isinstance(committed, SeedCommitted)
        assert fairplay.verify_seed(revealed.server_seed, committed.commitment)  # fair-play 1.6
        assert isinstance(log[-2], GameEnded)
        assert game.table.fair is not None
        mix = game.table.fair.mix
        nonces = [e.nonce for e in log if isinstance(e, (RandomDrawn, DeckShuffled))]
        assert nonces == list(range(len(nonces)))  # fair-play 1.5
        table = tables.open_table(RACE, game_id, game.table.created)
        commitments: dict[int, str] = {}
        for event in log[1:]:
            table = tables.evolve(table, event)
            assert all(len(hand) <= 3 for hand in table.game.hands)
            if isinstance(event, RandomDrawn):
                assert event.value == fairplay.die(SERVER_SEED, game_id, mix, event.nonce, 6)
            elif isinstance(event, DeckShuffled):
                seen_shuffle += 1
                assert event.order == fairplay.shuffle(SERVER_SEED, game_id, mix, event.nonce, 10)
            elif isinstance(event, CardDealt):  # fair-play 2
                assert event.salt == fairplay.card_salt(SERVER_SEED, game_id, event.position)
                assert event.commitment == fairplay.card_commitment(
                    game_id, event.position, event.card, event.salt
                )
                commitments[event.position] = event.commitment
            elif isinstance(event, CardRevealed):
                seen_play += 1
                assert fairplay.verify_card(game_id, event.position, event.card, event.salt,
                                            commitments[event.position])  # fmt: skip
    assert seen_shuffle > 10
    assert seen_play > 10  # the loop exercised the cards, not only the dice


@pytest.mark.parametrize("seat", [-1, 2, 7])
@pytest.mark.parametrize("phase", ["seeding", "setup", "play"])
def test_unknown_seat_refused(seat: int, phase: str) -> None:
    """A seat outside 0..seats-1 is refused in every phase, and the seed state stays whole
    (seat -1 used to index the last seat's slot and grow the tuples)."""
    game = {"seeding": new_game, "setup": seeded, "play": playing}[phase]()
    commitment = fairplay.client_seed_commitment(GAME, 1, SEEDS[1])
    for text in (f"seed-commit {commitment}", f"setup-commit {commitment}", "roll", "resign"):
        assert rejected(tables.decide(game.table, seat, text)).code is ErrorCode.UNKNOWN_SEAT


def test_a_seat_kept_waiting_claims_the_game_after_the_deadline() -> None:
    """fair-play 1.3: a seat that does not reveal in time forfeits; the claim is refused to the
    laggard itself and before the deadline (time comes in as data: idle_ms)."""
    register()
    created = msgspec.structs.replace(RACE.create(""), game_id="g-late", reveal_deadline_ms=1000)
    table = tables.open_table(RACE, "g-late", created)
    table = tables.evolve(table, SeedCommitted(commitment="0" * 64))
    digest = fairplay.client_seed_commitment("g-late", 0, "alice0123456789ab")
    table = tables.evolve(table, ClientSeedCommitted(seat=0, commitment=digest))
    early = tables.decide(table, 0, "claim-timeout", idle_ms=999)
    assert isinstance(early, Rejection)
    assert early.clause == "fair-play 1.3"
    laggard = tables.decide(table, 1, "claim-timeout", idle_ms=5000)
    assert isinstance(laggard, Rejection)
    events = tables.decide(table, 0, "claim-timeout", idle_ms=1000)
    assert isinstance(events, tuple)
    assert events[0] == TimedOut(seats=[1], idle_ms=1000)
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.winners == [0]
    for event in events:
        table = tables.evolve(table, event)
    assert tables.phase(table) == "ended"


# -- more than two seats ----------------------------------------------------------------------

FOUR_SEEDS = (*SEEDS, "cat0123456789abcde", "dan0123456789abcde")


def test_a_four_seat_team_race_seeds_sets_up_and_ends_with_a_team_winning() -> None:
    """RACE-8 / RACE-7: every seat of four commits and reveals its seed and its setup
    (fair-play 1.3, 3), turns go round the four, and a finish wins for the finisher's team."""
    game = LocalGame.create(SERVER_SEED, GAME, variant="teams+seats=4")
    assert (game.table.created.seats, game.table.created.teams) == (4, [[0, 2], [1, 3]])
    game.seed(FOUR_SEEDS)
    game.set_up([setup_bytes({"boost": 3})] * 4, [f"{k:02x}" * 32 for k in range(4)])
    turns = []
    while tables.outcome(game.table) is None:
        (seat,) = tables.to_act(game.table)
        turns.append(seat)
        game.must(seat, "roll")
    assert turns[:8] == [0, 1, 2, 3, 0, 1, 2, 3]  # RACE-2
    ended = game.log[-1]
    assert isinstance(ended, GameEnded)
    finisher = turns[-1]
    team = [finisher % 2, finisher % 2 + 2]
    assert ended.winners == team
    assert ended.result == "-".join("1" if s in team else "0" for s in range(4))


def test_a_resignation_among_three_passes_the_turn_and_the_last_seat_left_wins() -> None:
    """RACE-6 / RACE-2: the resigned seat is skipped; one seat left wins."""
    game = LocalGame.create(SERVER_SEED, GAME, variant="seats=3")
    game.seed(FOUR_SEEDS[:3])
    game.set_up([BOOST0] * 3, [f"{k:02x}" * 32 for k in range(3)])
    assert game.must(0, "resign") == (Resigned(seat=0),)  # on its turn: seat 1 to move
    assert tables.to_act(game.table) == {1}
    assert rejected(game.act(0, "roll")).code is ErrorCode.NOT_YOUR_TURN
    game.must(1, "roll")
    assert tables.to_act(game.table) == {2}  # seat 0 is skipped
    game.must(2, "roll")
    assert tables.to_act(game.table) == {1}
    assert game.must(2, "resign")[-1] == GameEnded(result="0-1-0", reason="resignation",
                                                   winners=[1])  # fmt: skip


def test_every_laggard_of_several_loses_a_claimed_game() -> None:
    """fair-play 1.3 with four seats: the two that never committed lose, the waiting two win."""
    created = msgspec.structs.replace(RACE.create("seats=4"), game_id="g-late",
                                      reveal_deadline_ms=1000)  # fmt: skip
    table = tables.open_table(RACE, "g-late", created)
    table = tables.evolve(table, SeedCommitted(commitment="0" * 64))
    for seat in (0, 2):
        digest = fairplay.client_seed_commitment("g-late", seat, FOUR_SEEDS[seat])
        table = tables.evolve(table, ClientSeedCommitted(seat=seat, commitment=digest))
    events = tables.decide(table, 2, "claim-timeout", idle_ms=1000)
    assert isinstance(events, tuple)
    assert events == (TimedOut(seats=[1, 3], idle_ms=1000),
                      GameEnded(result="1-0-1-0", reason="timeout", winners=[0, 2]))  # fmt: skip


def test_a_race_variant_names_two_to_four_seats_and_teams_only_with_four() -> None:
    """RACE-8."""
    assert RACE.create("").variant == ""
    assert RACE.create("seats=2").variant == ""
    assert RACE.create("seats=4+teams").variant == "teams+seats=4"
    for bad in ("seats=5", "seats=1", "teams", "seats=3+teams"):
        with pytest.raises(VariantError):
            RACE.create(bad)


# -- a time per move ----------------------------------------------------------------------------


def test_a_waiting_seat_claims_the_game_once_the_mover_is_past_the_time_per_move() -> None:
    """The mover past the game's time per move loses (`timeout`) when the waiting seat claims;
    the time comes in as data (idle_ms), and TimedOut records it for the audit."""
    created = msgspec.structs.replace(CHESS3D.create(""), game_id="g-clock",
                                      move_deadline_ms=60_000)  # fmt: skip
    table = tables.open_table(CHESS3D, "g-clock", created)
    mover = tables.decide(table, 0, "claim-timeout", idle_ms=90_000)
    assert isinstance(mover, Rejection)
    assert (mover.code, mover.clause) == (ErrorCode.ILLEGAL_ACTION, tables.MOVE_DEADLINE)
    early = tables.decide(table, 1, "claim-timeout", idle_ms=59_999)
    assert isinstance(early, Rejection)
    assert "60000 ms" in early.reason
    events = tables.decide(table, 1, "claim-timeout", idle_ms=60_000)
    assert events == (TimedOut(seats=[0], idle_ms=60_000),
                      GameEnded(result="0-1", reason="timeout", winners=[1]))  # fmt: skip
    for event in events:
        table = tables.evolve(table, event)
    assert tables.phase(table) == "ended"


def test_without_a_time_per_move_nobody_claims_a_game_in_play() -> None:
    table = tables.open_table(CHESS3D, "g-free", CHESS3D.create(""))
    refused = tables.decide(table, 1, "claim-timeout", idle_ms=10**9)
    assert isinstance(refused, Rejection)
    assert refused.reason == "this game has no time per move"
    assert msgspec.json.encode(CHESS3D.create("")).find(b"move_deadline") == -1  # logs unchanged
