"""The Full Yavoch: configuration, recipes, secret weapons and response windows.

Sections 0 (Y-0.1, Y-0.4), 2.7-2.8, 4.4, 5.9-5.11 and 5.53 of the Yavoch rulings, with rulings
Y-R33 to Y-R35 and Y-R47 to Y-R60. Cards, impact events and views: test_rules_full_cards.py.
"""

import pytest

from contracts.errors import ErrorCode
from contracts.events import CardDealt, CardRevealed
from contracts.yavoch import Played, TurnBegan
from domain.core import VariantError
from domain.yavoch.cards import card_sets, matching_marking
from domain.yavoch.notation import parse_position
from domain.yavoch.pieces import COMPONENTS, DECK
from domain.yavoch.record import format_record
from domain.yavoch.rules import YAVOCH
from domain.yavoch.state import State
from domain.yavoch.variant import Config, parse_variant
from tests.domain.yavoch.helpers import act, decide, game, refused, with_hands

FULL = "full"
TB_S = ["C-FEE-S", "C-GRP-X", "C-MMP-S"]  # Tractor Beam for a Squam
DF_S = ["C-FEE-S", "C-GRP-S", "C-PBI-X"]  # Deflector Field for a Squam
SD_S = ["C-AMI-S", "C-WHI-X", "C-MMP-S"]  # Self Destruct for a Squam


def ship(state: State, at: str) -> tuple[str, int, int] | None:
    """(kind letter, owner, energy) of the ship at `at`, or None."""
    s = state.board.ships.get(parse_position(at))
    return None if s is None else (s.kind.value, s.owner, s.energy)


def played(events: tuple) -> list[Played]:
    return [e for e in events if isinstance(e, Played)]


def armed(position: str, seat0: list[str], seat1: list[str] = (), pile=(), variant=FULL) -> State:
    return with_hands(game(position, variant), seat0, seat1, pile=pile)


# -- Y-0.1, Y-0.4: rulesets and the full-only parameters ----------------------------------------


def test_weapons_refused_in_decker():
    # Y-0.1: secret weapons are the Full Yavoch's only
    s = armed("1C111:3 1S112:2 2S134:1 2C555:1 2T554 / 1", TB_S, variant="decker")
    r = refused(s, 0, "W:TB:S112:134>144")
    assert r.clause == "Y-0.1"


def test_full_only_parameters_parse_and_round_trip():
    # Y-0.4: hand_limit, defence_window_always, deck, recipes
    text = "full+hand_limit=4+defence_window_always=false+deck.impacts=none+recipe.TB=AMI/DEC/MET"
    cfg = parse_variant(text)
    assert cfg.full
    assert cfg.hand_limit == 4
    assert cfg.defence_window_always is False
    assert cfg.deck == DECK[:50]  # no impact cards
    assert cfg.recipe("TB") == ("AMI", "DEC", "MET")
    assert cfg.recipe("AT") == Config().recipe("AT")
    assert parse_variant(cfg.variant) == cfg


def test_full_defaults():
    # Y-0.4: the defaults of the official ruleset
    cfg = parse_variant("full")
    assert (cfg.hand_limit, cfg.defence_window_always) == (5, True)
    assert len(cfg.deck) == 56
    assert cfg.variant == "full"


@pytest.mark.parametrize(
    "text",
    [
        "full+hand_limit=2",
        "full+hand_limit=x",
        "full+hand_limit=-1",
        "full+defence_window_always=yes",
        "full+deck.impacts=EF/XX",
        "full+deck.impacts=EF/EF",
        "full+recipe.TB=AMI/DEC",
        "full+recipe.TB=AMI/DEC/ANY",
        "full+recipe.TB=AMI/DEC/FOO",
        "full+recipe.ZZ=AMI/DEC/MET",
        "full+hand_limit=4+hand_limit=5",
        "decker+hand_limit=4",
        "decker+defence_window_always=false",
        "decker+recipe.TB=AMI/DEC/MET",
        "decker+deck.impacts=none",
        "advanced",
    ],
)
def test_bad_variant_values(text):
    # Y-0.4: a bad value, or a full-only parameter on decker, is a bad variant
    with pytest.raises(VariantError) as err:
        parse_variant(text)
    assert err.value.code == ErrorCode.BAD_VARIANT


# -- Y-2.7, Y-2.8: deck and recipes ----------------------------------------------------------


def test_deck_56_cards_in_canonical_order():
    # Y-2.7 / Y-R33 / Y-6.10
    deck = Config().deck
    assert len(deck) == 56
    assert len(set(deck)) == 56
    assert deck[:6] == ("C-AMI-T", "C-AMI-S", "C-AMI-N", "C-AMI-A", "C-AMI-X", "C-DEC-T")
    assert deck[45:50] == ("C-ANY-T", "C-ANY-S", "C-ANY-N", "C-ANY-A", "C-ANY-X")
    assert deck[50:] == ("I-EF", "I-ED", "I-CA", "I-CD", "I-MAS", "I-UAI")
    comps = ["AMI", "DEC", "MET", "FEE", "GRP", "PBI", "WHI", "BET", "MMP", "ANY"]
    assert [deck[5 * i].split("-")[1] for i in range(10)] == comps
    assert deck == DECK


def test_recipes_three_cards_each_component_three_times():
    # Y-2.8 / Y-R34
    cfg = Config()
    recipes = dict(cfg.recipes)
    assert set(recipes) == {"TB", "AT", "EV", "CL", "REA", "RD", "HD", "DF", "SD"}
    assert all(len(parts) == 3 for parts in recipes.values())
    for c in COMPONENTS:
        if c != "ANY":
            assert sum(c in parts for parts in recipes.values()) == 3, c
    assert sorted(recipes["TB"]) == ["FEE", "GRP", "MMP"]
    assert sorted(recipes["DF"]) == ["FEE", "GRP", "PBI"]
    assert sorted(recipes["SD"]) == ["AMI", "MMP", "WHI"]


@pytest.mark.parametrize(
    ("cards", "code", "mark"),
    [
        (["C-FEE-S", "C-GRP-S", "C-MMP-S"], "TB", "S"),
        (["C-MMP-S", "C-FEE-X", "C-GRP-S"], "TB", "S"),  # order free; X fits any type
        (["C-FEE-X", "C-GRP-X", "C-MMP-X"], "TB", "X"),  # all X: any ship but a Command ship
        (["C-ANY-T", "C-GRP-T", "C-MMP-X"], "TB", "T"),  # ANY replaces a component
        (["C-ANY-A", "C-ANY-A", "C-ANY-X"], "HD", "A"),
        (["C-FEE-S", "C-GRP-T", "C-MMP-X"], "TB", None),  # two ship types
        (["C-FEE-S", "C-GRP-S", "C-AMI-S"], "TB", None),  # wrong component
        (["C-FEE-S", "C-FEE-X", "C-GRP-S"], "TB", None),  # one-to-one: FEE twice
        (["C-FEE-S", "C-GRP-S"], "TB", None),  # three cards
        (["C-FEE-S", "C-GRP-S", "I-EF"], "TB", None),
    ],
)
def test_recipe_matching_and_wildcards(cards, code, mark):
    # Y-5.70 / Y-5.71 / Y-R35
    assert matching_marking(Config(), cards, code) == mark


def test_recipe_from_variant():
    # Y-0.4 `recipes` / Y-2.8
    cfg = parse_variant("full+recipe.TB=AMI/DEC/MET")
    assert matching_marking(cfg, ["C-AMI-N", "C-DEC-N", "C-MET-X"], "TB") == "N"
    assert matching_marking(cfg, ["C-FEE-N", "C-GRP-N", "C-MMP-X"], "TB") is None


def test_card_sets_lists_every_fitting_trio():
    # Y-5.70
    s = armed("1C111:3 1S112:2 2C555:1 2T554 / 1", [*TB_S, "C-ANY-T"])
    sets = card_sets(s.cfg, s.cards.hand(0), "TB")
    assert ((0, 1, 2), "S") in sets
    assert ((1, 2, 3), "T") not in sets  # FEE missing: ANY fills it, but S and T clash
    assert ((0, 1, 3), None) not in sets


def test_weapon_with_cards_that_fit_and_engine_choice():
    # Y-5.70: `@p,q,r` names the cards; omitted, the engine picks the first fitting three
    pos = "1C111:3 1S112:2 2S134:1 2C555:1 2T554 / 1"
    s = armed(pos, ["C-DEC-S", *TB_S])
    _, events = act(s, 0, "W:TB:S112:134>144")
    assert played(events)[0].action == "W:TB:S112:134>144@1,2,3"
    assert refused(s, 0, "W:TB:S112:134>144@0,1,2").clause == "Y-5.70"  # DEC is no TB part
    assert refused(s, 0, "W:TB:S112:134>144@1,2,9").clause == "Y-5.70"  # not held


def test_marking_rules_the_user_type():
    # Y-5.71: markings other than X name the user's type; all X: any ship but a Command ship
    pos = "1C111:3 1S112:2 1A113:1 2S134:1 2A115:1 2C555:1 2T554 / 1"
    s = armed(pos, TB_S)
    r = refused(s, 0, "W:TB:A113:115>125")
    assert r.clause == "Y-5.70"  # the hand does not make TB for an Archid
    r = refused(s, 0, "W:TB:A113:115>125@0,1,2")
    assert r.clause == "Y-5.71"
    s = armed(pos, ["C-FEE-X", "C-GRP-X", "C-MMP-X"])
    s, _ = act(s, 0, "W:TB:A113:115>125")  # all X: an Archid may use it
    assert s.phase == "respond"


def test_command_ships_never_use_weapons():
    # Y-5.71 / Y-R59: Command ships never use secret weapons, offensive or defensive
    s = armed("1C111:3 1S112:2 2S134:1 2C555:1 2T554 / 1", ["C-FEE-X", "C-GRP-X", "C-MMP-X"])
    r = refused(s, 0, "W:TB:C111:134>144")
    assert r.clause == "Y-5.71"
    assert r.code == ErrorCode.MALFORMED_ACTION
    assert refused(s, 0, "R:DF:C111").clause in ("Y-5.90", "Y-5.71")


def test_user_needs_one_unit_and_keeps_it():
    # Y-5.72 / Y-5.51: a user in stasis cannot; the unit is not spent
    s = armed("1C111:3 1S112:0 1T121 2S134:1 2C555:1 2T554 / 1", TB_S)
    assert refused(s, 0, "W:TB:S112:134>144").clause == "Y-5.72"
    s = armed("1C111:3 1S112:1 2S134:1 2C555:1 2T554 / 1", TB_S)
    s, _ = act(s, 0, "W:TB:S112:134>144")
    s, _ = act(s, 1, "R:none")
    assert ship(s, "112") == ("S", 1, 1)


def test_trych_needs_one_unit_for_a_weapon():
    # Y-R60 / Y-5.51
    hd = ["C-DEC-T", "C-GRP-T", "C-WHI-X"]
    s = armed("1C111:3 1T121 2C555:1 2T554 / 1", hd)
    assert refused(s, 0, "W:HD:T121:333").clause == "Y-5.72"
    s = armed("1C111:3 1T121:1 2C555:1 2T554 / 1", hd)
    s, _ = act(s, 0, "W:HD:T121:333")
    assert ship(s, "333") == ("T", 1, 1)


def test_cards_go_to_the_discard_pile_and_draw_unchanged():
    # Y-5.73 / Y-R58 / Y-R38: the 3 cards are shown, discarded; the normal draw still comes
    s = armed(
        "1C111:3 1S112:2 2S134:1 2C555:1 2T554 / 1",
        [*TB_S, "C-DEC-T"],
        ["C-AMI-N"],
        pile=["C-BET-A", "C-WHI-N"],
    )
    s, events = act(s, 0, "W:TB:S112:134>144")
    shown = [e for e in events if isinstance(e, CardRevealed)]
    assert [(e.position, e.card) for e in shown] == [(0, "C-FEE-S"), (1, "C-GRP-X"), (2, "C-MMP-S")]
    assert s.cards.discard == tuple(TB_S)
    assert [h.position for h in s.cards.hand(0)] == [3]
    s, _ = act(s, 1, "R:none")
    s, events = act(s, 0, "END")
    dealt = [e for e in events if isinstance(e, CardDealt)]
    assert [(e.seat, e.card) for e in dealt] == [(0, "C-BET-A")]
    assert [h.card for h in s.cards.hand(0)] == ["C-DEC-T", "C-BET-A"]


def test_weapon_is_the_move_and_may_follow_a_shot():
    # Y-5.80 / Y-4.3: one MOVE; a HEP CAT shot may precede the weapon
    s = armed("1C111:3 1S112:2 1T121 2S134:1 2M155 2C555:1 2T554 / 1", TB_S)
    s, _ = act(s, 0, "C111*155")  # the shot at a mine opens no window
    s, _ = act(s, 0, "W:TB:S112:134>144")
    s, _ = act(s, 1, "R:none")
    assert refused(s, 0, "T121-122").clause == "Y-4.3"
    assert refused(s, 0, "W:TB:S112:144>145").clause == "Y-4.3"
    assert ship(s, "144") == ("S", 2, 1)


# -- Y-5.74 / Y-R48: line of sight ------------------------------------------------------------


def test_line_of_sight_clear_at_any_range():
    # Y-5.74 / Y-R48: along a line, any range, nothing between
    s = armed("1C111:3 1S112:2 2S145:1 2C555:1 2T554 / 1", TB_S)
    s, events = act(s, 0, "W:TB:S112:145>144")
    assert played(events)[0].window == ["145"]


@pytest.mark.parametrize("blocker", ["1T123", "2M123", "1G123 1G515", "2S123:1"])
def test_line_of_sight_blocked(blocker):
    # Y-5.74 / Y-R48: ships, mines and gates strictly between block
    s = armed(f"1C111:3 1S112:2 {blocker} 2S134:1 2C555:1 2T554 / 1", TB_S)
    assert refused(s, 0, "W:TB:S112:134>144").clause == "Y-5.74"


def test_line_of_sight_tokens_do_not_block_and_off_line_refused():
    # Y-5.74 / Y-0.3: energy tokens never occupy; a target off every line is out of sight
    s = armed("1C111:3 1S112:2 E123:2 2S134:1 2S135:1 2C555:1 2T554 / 1", TB_S)
    assert refused(s, 0, "W:TB:S112:135>125").clause == "Y-5.74"
    s, _ = act(s, 0, "W:TB:S112:134>144")
    assert s.phase == "respond"


# -- Y-5.81 .. Y-5.87: offensive weapons ------------------------------------------------------

BASE = "1C111:3 1S112:2 1T121 2C555:1 2T554"


def test_tractor_beam_enemy_shift_after_window():
    # Y-5.81 / Y-5.96 (c): against an enemy ship an attack; it shifts one step
    s = armed(f"{BASE} 2S134:1 / 1", TB_S)
    s, _events = act(s, 0, "W:TB:S112:134>144")
    assert s.phase == "respond"
    assert YAVOCH.to_act(s) == {1}
    assert ship(s, "134") == ("S", 2, 1)  # not applied before the answer
    s, _ = act(s, 1, "R:none")
    assert ship(s, "134") is None
    assert ship(s, "144") == ("S", 2, 1)
    assert s.phase == "play"
    assert s.mover == 0
    assert s.turn.moved


def test_tractor_beam_any_ship_any_direction_tokens_picked_up():
    # Y-5.81: own ships (no window) and Command ships too; any of the 12 line directions,
    # whatever the target's movement style; tokens picked up (Y-5.53)
    s = armed(f"{BASE} 1T134 E234:3 / 1", TB_S)
    s, events = act(s, 0, "W:TB:S112:134>234")  # a Trych shifted up the slant column
    assert played(events)[0].window == []
    assert ship(s, "234") == ("T", 1, 1)  # capacity 1: the other 2 tokens are discarded
    assert not s.board.tokens
    s = armed("1C111:3 1S112:2 1T121 2C134:1 2T554 / 1", TB_S)
    s, events = act(s, 0, "W:TB:S112:134>135")
    assert played(events)[0].window == []  # a Command ship never answers
    assert ship(s, "135") == ("C", 2, 1)


@pytest.mark.parametrize(
    ("args", "clause"),
    [
        ("134>133", "Y-R49"),  # a ship there
        ("134>145", "Y-R49"),  # a mine there: no mine effect, the destination is occupied
        ("134>135", "Y-R49"),  # a gate there: no teleport either
        ("134>154", "Y-5.81"),  # not one step
        ("112>113", "Y-5.81"),  # the user itself
    ],
)
def test_tractor_beam_refusals(args, clause):
    # Y-5.81 / Y-R49
    s = armed(f"{BASE} 2S134:1 1T133 2M145 2G135 2G515 / 1", TB_S)
    assert refused(s, 0, f"W:TB:S112:{args}").clause == clause


def test_antimatter_torpedo_destroys_no_capture_gate_unharmed():
    # Y-5.82 / Y-R50: the target is destroyed; a gate under it stays; nothing captured
    at = ["C-AMI-S", "C-PBI-S", "C-MMP-X"]
    s = armed(f"{BASE} 2S134:3 2G134 2G544 / 1", at)
    s, _ = act(s, 0, "W:AT:S112:134")
    s, _ = act(s, 1, "R:none")
    assert ship(s, "134") is None
    assert parse_position("134") in s.board.gates
    assert ship(s, "112") == ("S", 1, 2)


def test_antimatter_torpedo_enemy_only_and_command_ship_ends_game():
    # Y-5.82 / Y-8.1: enemy ships only, Command ship included
    at = ["C-AMI-S", "C-PBI-S", "C-MMP-X"]
    s = armed(f"{BASE} 1T134 / 1", at)
    assert refused(s, 0, "W:AT:S112:134").clause == "Y-5.82"
    s = armed("1C111:3 1S112:2 1T121 2C134:1 2T554 / 1", at)
    s, _events = act(s, 0, "W:AT:S112:134")
    assert s.outcome is not None
    assert s.outcome.winners == (0,)


def test_self_destruct_cannot_answer_a_torpedo_deflector_can():
    # Y-5.82 / Y-5.92 / Y-5.91
    at = ["C-AMI-S", "C-PBI-S", "C-MMP-X"]
    s = armed(f"{BASE} 2S134:1 / 1", at, [*SD_S, *DF_S[:2], "C-PBI-S"], pile=["C-BET-A"])
    s, _ = act(s, 0, "W:AT:S112:134")
    assert refused(s, 1, "R:SD:S134").clause == "Y-5.92"
    s, events = act(s, 1, "R:DF:S134")
    assert ship(s, "134") == ("S", 2, 1)
    assert len(s.cards.discard) == 6  # the torpedo's cards stay discarded (Y-5.91)
    assert [type(e).__name__ for e in events][-1] == "TurnBegan"  # Y-4.4 (b)
    assert s.mover == 1


def test_evolution_self_and_enemy():
    # Y-5.83 / Y-R51: self or any non-Command ship in sight; energy up to the new capacity
    ev = ["C-DEC-S", "C-MET-X", "C-BET-S"]
    s = armed(f"{BASE} 2S134:3 / 1", ev)
    s2, events = act(s, 0, "W:EV:S112:112=N")
    assert played(events)[0].window == []
    assert ship(s2, "112") == ("N", 1, 2)
    s2, events = act(s, 0, "W:EV:S112:134=T")
    assert played(events)[0].window == ["134"]
    s2, _ = act(s2, 1, "R:none")
    assert ship(s2, "134") == ("T", 2, 1)  # a Trych holds 1: 2 units discarded


@pytest.mark.parametrize(
    ("args", "clause"),
    [("122=T", "Y-R51"), ("134=S", "Y-5.83"), ("134=C", "Y-5.83"), ("134=G", "Y-5.83")],
)
def test_evolution_refusals(args, clause):
    # Y-5.83 / Y-R51: Command ships neither targeted nor produced; another of the four types
    ev = ["C-DEC-S", "C-MET-X", "C-BET-S"]
    s = armed("1C111:3 1S112:2 1T121 2C122:1 2S134:3 2T554 / 1", ev)
    assert refused(s, 0, f"W:EV:S112:{args}").clause == clause


def test_cloning_splits_energy_and_moves_like_its_type():
    # Y-5.84 / Y-R52: one unit lost, the rest split, the clone >= 1; a normal unblocked move
    cl = ["C-AMI-S", "C-MET-S", "C-BET-X"]
    s = armed(f"{BASE} E145:2 / 1", cl)
    s1, events = act(s, 0, "W:CL:S112:134=1")
    assert played(events)[0].window == []
    assert ship(s1, "112") == ("S", 1, 0)
    assert ship(s1, "134") == ("S", 1, 1)
    s = armed("1C111:3 1S112:4 1T121 2C555:1 2T554 E145:2 / 1", cl)
    s2, _ = act(s, 0, "W:CL:S112:145=1")  # tokens picked up (Y-5.53)
    assert ship(s2, "112") == ("S", 1, 2)
    assert ship(s2, "145") == ("S", 1, 3)


@pytest.mark.parametrize(
    ("args", "clause"),
    [
        ("134=2", "Y-5.84"),  # e - 1 = 1 unit to split
        ("134=0", "Y-5.84"),
        ("113=1", "Y-R52"),  # not a Squam move
        ("145=1", "Y-R52"),  # blocked by the Trych at 123
        ("123=1", "Y-R52"),  # occupied: no battle
    ],
)
def test_cloning_refusals(args, clause):
    # Y-5.84 / Y-R52
    cl = ["C-AMI-S", "C-MET-S", "C-BET-X"]
    s = armed("1C111:3 1S112:2 1T123 2C555:1 2T554 / 1", cl)
    assert refused(s, 0, f"W:CL:S112:{args}").clause == clause


def test_cloning_needs_two_units_a_trych_never():
    # Y-5.84 / Y-5.72
    pos = "1C111:3 1S112:1 1T121:1 2C555:1 2T554 / 1"
    s = armed(pos, ["C-AMI-S", "C-MET-S", "C-BET-X"])
    assert refused(s, 0, "W:CL:S112:134=1").clause == "Y-5.84"
    s = armed(pos, ["C-AMI-T", "C-MET-T", "C-BET-X"])
    assert refused(s, 0, "W:CL:T121:122=1").clause == "Y-5.84"


def test_remote_energy_absorber_caps_and_discards():
    # Y-5.85: the target loses all; the user gains what fits
    rea = ["C-DEC-S", "C-MET-S", "C-FEE-X"]
    s = armed("1C111:3 1S112:4 1T121 2S134:3 2C555:1 2T554 / 1", rea)
    s, _ = act(s, 0, "W:REA:S112:134")
    s, _ = act(s, 1, "R:none")
    assert ship(s, "112") == ("S", 1, 5)
    assert ship(s, "134") == ("S", 2, 0)
    s = armed("1C111:3 1S112:4 1T121 1T134 2C555:1 2T554 / 1", rea)
    assert refused(s, 0, "W:REA:S112:134").clause == "Y-5.85"


def test_remote_energy_absorber_starves_a_command_ship():
    # Y-5.85 / Y-R53 / Y-8.3: the Command ship at 0 dies at its owner's end of turn
    rea = ["C-DEC-S", "C-MET-S", "C-FEE-X"]
    s = armed("1C111:3 1S112:2 1T121 2C134:3 2T554 / 1", rea)
    s, events = act(s, 0, "W:REA:S112:134")
    assert played(events)[0].window == []
    assert ship(s, "134") == ("C", 2, 0)
    assert ship(s, "112") == ("S", 1, 5)
    assert s.outcome is None
    s, _ = act(s, 0, "END")
    assert s.mover == 1
    assert s.outcome is None
    s, _ = act(s, 1, "T554-553")
    s, _ = act(s, 1, "END")
    assert s.outcome is not None
    assert s.outcome.winners == (0,)
    assert s.outcome.reason == "dead_command_ship"


def test_revenant_device_converts_keeping_energy():
    # Y-5.86 / Y-R54
    rd = ["C-PBI-S", "C-WHI-X", "C-BET-S"]
    s = armed(f"{BASE} 2A134:3 / 1", rd)
    s, events = act(s, 0, "W:RD:S112:134")
    assert played(events)[0].window == ["134"]
    s, _ = act(s, 1, "R:none")
    assert ship(s, "134") == ("A", 1, 3)


@pytest.mark.parametrize(
    ("position", "clause"),
    [
        ("1C111:3 1S112:2 1T121 2S134:1 2G134 2G544 2C555:1 2T554 / 1", "Y-R54"),  # on a gate
        ("1C111:3 1S112:2 1T121 2C134:1 2T554 / 1", "Y-R54"),  # a Command ship
        ("1C111:3 1S112:2 1T121 1A134:1 2C555:1 2T554 / 1", "Y-5.86"),  # own ship
    ],
)
def test_revenant_device_refusals(position, clause):
    # Y-5.86 / Y-R54
    s = armed(position, ["C-PBI-S", "C-WHI-X", "C-BET-S"])
    assert refused(s, 0, "W:RD:S112:134").clause == clause


def test_hyperdrive_anywhere_unoccupied_no_sight_tokens():
    # Y-5.87 / Y-R55 / Y-5.53
    hd = ["C-DEC-S", "C-GRP-S", "C-WHI-S"]
    s = armed(f"{BASE} 2S113:1 E452:4 1G333 1G515 / 1", hd)
    assert refused(s, 0, "W:HD:S112:554").clause == "Y-R55"  # a ship
    assert refused(s, 0, "W:HD:S112:333").clause == "Y-R55"  # own gate: no teleport
    s, events = act(s, 0, "W:HD:S112:452")
    assert played(events)[0].window == []
    assert ship(s, "112") is None
    assert ship(s, "452") == ("S", 1, 5)
    assert not s.board.tokens


# -- Y-5.90 .. Y-5.96: response windows --------------------------------------------------------


def test_battle_window_opens_after_the_roll():
    # Y-5.22 (4) / Y-5.96 (a) / Y-4.6: the roll is public, the outcome waits for the answer
    s = armed(f"{BASE} 2S134:2 / 1", [], ["C-DEC-T"])
    s, events = act(s, 0, "S112x134", rolls=[4])
    assert played(events)[0].action == "S112x134{d=4,W}"
    assert played(events)[0].window == ["134"]
    assert s.phase == "respond"
    assert YAVOCH.to_act(s) == {1}
    assert refused(s, 0, "END").code == ErrorCode.NOT_YOUR_TURN
    assert refused(s, 1, "T554-553").clause == "Y-5.96"
    s, _ = act(s, 1, "R:none")
    assert ship(s, "134") == ("S", 1, 3)
    assert ship(s, "112") is None


def test_deflector_tie_in_battle_ends_turn_no_mine():
    # Y-5.91 / Y-4.4 (b) / Y-5.40 / Y-R56: a tie; no mine; the turn ends; the draw still comes
    s = armed(f"{BASE} 2S134:2 / 1", [], DF_S, pile=["C-BET-A"])
    s, _ = act(s, 0, "S112x134/M", rolls=[9])
    s, events = act(s, 1, "R:DF:S134")
    assert ship(s, "112") == ("S", 1, 2)
    assert ship(s, "134") == ("S", 2, 2)
    assert not s.board.mines
    dealt = [e for e in events if isinstance(e, CardDealt)]
    assert [(e.seat, e.card) for e in dealt] == [(0, "C-BET-A")]
    assert isinstance(events[-1], TurnBegan)
    assert events[-1].seat == 1
    assert len(s.cards.hand(1)) == 0
    assert len(s.cards.discard) == 3


def test_deflector_when_the_attacker_would_lose():
    # Y-5.91: whatever the roll: the attacker survives too, and its turn ends
    s = armed(f"{BASE} 2S134:2 / 1", [], DF_S)
    s, _ = act(s, 0, "S112x134", rolls=[1])
    s, _ = act(s, 1, "R:DF:S134")
    assert ship(s, "112") == ("S", 1, 2)
    assert ship(s, "134") == ("S", 2, 2)
    assert s.mover == 1


def test_self_destruct_after_a_lost_battle_turn_continues():
    # Y-5.92 / Y-R57: both destroyed; the attacker did not lose: its turn goes on
    s = armed(f"{BASE} 2S134:2 / 1", [], SD_S)
    s, _ = act(s, 0, "S112x134", rolls=[5])
    s, _ = act(s, 1, "R:SD:S134")
    assert ship(s, "112") is None
    assert ship(s, "134") is None
    assert s.phase == "play"
    assert s.mover == 0
    assert s.turn.moved
    assert not s.turn.over
    s, _ = act(s, 0, "END")
    assert s.mover == 1


def test_self_destruct_only_after_a_lost_battle():
    # Y-5.92: the defender won (the attack failed): no Self Destruct; not against a shot
    s = armed(f"{BASE} 2S134:2 / 1", [], SD_S)
    s1, _ = act(s, 0, "S112x134", rolls=[1])
    assert refused(s1, 1, "R:SD:S134").clause == "Y-5.92"
    s = armed("1C111:3 1S112:2 1T121 2S133:1 2C555:1 2T554 / 1", [], SD_S)
    s2, _ = act(s, 0, "C111*133")
    assert s2.phase == "respond"
    assert refused(s2, 1, "R:SD:S133").clause == "Y-5.92"


def test_self_destruct_against_a_command_ship_attacker():
    # Y-5.92 / Y-8.1: the attacker's Command ship dies too: its player loses
    s = armed("1C111:3 1T121 2S122:1 2C555:1 2T554 / 1", [], SD_S)
    s, events = act(s, 0, "C111x122")
    assert played(events)[0].window == ["122"]  # an automatic win still opens the window
    s, _ = act(s, 1, "R:SD:S122")
    assert s.outcome is not None
    assert s.outcome.winners == (1,)


def test_hep_cat_deflected_before_the_move():
    # Y-5.65 / Y-5.91 / Y-4.4 (b): the unit stays spent; the turn has no MOVE; the draw comes
    s = armed("1C111:3 1S112:2 1T121 2S133:1 2C555:1 2T554 / 1", [], DF_S, pile=["C-BET-A"])
    s, events = act(s, 0, "C111*133")
    assert played(events)[0].window == ["133"]
    assert ship(s, "111") == ("C", 1, 2)
    s, events = act(s, 1, "R:DF:S133")
    assert ship(s, "133") == ("S", 2, 1)
    assert ship(s, "111") == ("C", 1, 2)
    assert any(isinstance(e, CardDealt) and e.seat == 0 for e in events)
    assert s.mover == 1
    assert s.phase == "play"


def test_trych_blast_window_deflector_saves_one_ship():
    # Y-5.35 / Y-5.91 / Y-5.96 (d): one window, one ship named; the rest of the blast happens;
    # the detonating player's turn goes on
    df_a = ["C-FEE-A", "C-GRP-X", "C-PBI-A"]
    pos = "1C111:3 1T121 1T333 2S332:1 2A334:2 2G322 2G511 2M344 2C555:1 2T554 / 1"
    s = armed(pos, [], df_a)
    s, events = act(s, 0, "T333!")
    assert sorted(played(events)[0].window) == ["332", "334"]
    assert refused(s, 1, "R:DF:S332").clause == "Y-5.70"  # the cards are for an Archid
    s, _ = act(s, 1, "R:DF:A334")
    assert ship(s, "334") == ("A", 2, 2)
    assert ship(s, "332") is None
    assert ship(s, "333") is None
    assert parse_position("322") not in s.board.gates
    assert parse_position("344") not in s.board.mines
    assert s.phase == "play"
    assert s.mover == 0
    assert s.turn.moved
    s, _ = act(s, 0, "END")
    assert s.mover == 1


def test_response_must_be_by_a_window_ship_of_its_type():
    # Y-5.90 / Y-R59
    s = armed(f"{BASE} 2S134:2 2S352:1 / 1", [], DF_S)
    s, _ = act(s, 0, "S112x134", rolls=[4])
    assert refused(s, 1, "R:DF:S352").clause == "Y-5.90"
    assert refused(s, 1, "R:DF:A134").clause == "Y-5.90"


def test_no_window_for_own_actions_or_without_an_able_ship():
    # Y-5.96: own actions never open a window; Command ships and ships at 0 never answer
    s = armed("1C111:3 1S112:2 1S134:2 1T121 1S333:1 1A334:1 2C555:1 2T554 / 1", [], DF_S)
    _, events = act(s, 0, "S112x134", rolls=[5])
    assert played(events)[0].window == []
    s = armed(f"{BASE} 2S134 / 1", [], DF_S)
    _, events = act(s, 0, "S112x134")  # 0 units: an automatic win, no window
    assert played(events)[0].window == []


@pytest.mark.parametrize(
    ("extra", "move"),
    [("2M134", "S112-134"), ("2G134 2G544", "S112-134"), ("2S134:2 2G134 2G544", "S112x134")],
)
def test_no_window_for_mines_and_gates(extra, move):
    # Y-5.96: an enemy mine, an enemy gate, an occupied enemy gate (Y-5.8) open no window
    s = armed(f"{BASE} {extra} / 1", [], DF_S)
    result = decide(s, 0, move)
    assert not hasattr(result, "clause"), result
    assert played(result)[0].window == []


def test_window_only_with_an_answer_when_not_always():
    # Y-5.96 / Y-0.4 defence_window_always=false: a window only for a legal answer
    v = "full+defence_window_always=false"
    pos = f"{BASE} 2S134:2 / 1"
    no_answer = armed(pos, [], ["C-FEE-T", "C-GRP-T", "C-PBI-T"], variant=v)  # for a Trych
    s, events = act(no_answer, 0, "S112x134", rolls=[4])
    assert played(events)[0].window == []
    assert ship(s, "134") == ("S", 1, 3)
    sd_only = armed(pos, [], SD_S, variant=v)  # SD answers only a lost battle
    _, events = act(sd_only, 0, "S112x134", rolls=[1])
    assert played(events)[0].window == []
    _, events = act(sd_only, 0, "S112x134", rolls=[2])
    assert played(events)[0].window == ["134"]
    able = armed(pos, [], DF_S, variant=v)
    s, events = act(able, 0, "S112x134", rolls=[1])
    assert played(events)[0].window == ["134"]
    assert s.phase == "respond"


def test_window_always_opens_whatever_the_hand():
    # Y-5.96 / Y-7.6: with the default, an empty hand still gets a window
    s = armed(f"{BASE} 2S134:2 / 1", [], [])
    s, events = act(s, 0, "S112x134", rolls=[4])
    assert played(events)[0].window == ["134"]
    assert refused(s, 1, "R:DF:S134").clause == "Y-5.70"


# -- Y-5.53: energy tokens ---------------------------------------------------------------------


def test_energy_tokens_picked_up_by_moves_and_discarded_by_gates():
    # Y-5.53 / Y-5.4: min(k, capacity - energy) taken, the rest discarded; Y-5.16 gates
    s = game("1C111:3 1S112:4 1T121 2C555:1 2T554 E134:3 / 1", FULL)
    s1, _ = act(s, 0, "S112-134")
    assert ship(s1, "134") == ("S", 1, 5)
    assert not s1.board.tokens
    s = game("1C111:3 1S112:1 1T121 1G131 1G515 2C555:1 2T554 E132:2 / 1", FULL)
    s2, _ = act(s, 0, "G131-132")
    assert not s2.board.tokens
    s = game("1C111:3 1S112:1 1T121 2C555:1 2T554 E123:2 E134:1 / 1", FULL)
    s3, _ = act(s, 0, "S112-134")  # passing over tokens does nothing
    assert ship(s3, "134") == ("S", 1, 2)
    assert s3.board.tokens == {parse_position("123"): 2}


def test_energy_tokens_taken_at_a_teleport_exit():
    # Y-5.53: "by any means (move, teleport exit, ...)"
    s = game("1C111:3 1S112:1 1T121 1G134 1G424 2C555:1 2T554 E424:2 / 1", FULL)
    s1, _ = act(s, 0, "S112-134>424")
    assert ship(s1, "424") == ("S", 1, 3)
    assert "E" not in format_record(s1).split("/")[0]


def test_response_names_its_cards_and_legal_answers_are_listed():
    # Y-5.90 / Y-5.70: `@p,q,r` names the response's cards; the window's answers are listed
    s = armed(f"{BASE} 2S134:2 / 1", [], ["C-DEC-T", *DF_S])
    s, _ = act(s, 0, "S112x134", rolls=[9])
    answers = [YAVOCH.format_action(s, a) for a in YAVOCH.legal_actions(s, 1)]
    assert answers == ["R:none", "R:DF:S134@1,2,3"]
    assert YAVOCH.legal_actions(s, 0) == []
    assert refused(s, 1, "R:DF:S134@0,1,2").clause == "Y-5.70"
    s, events = act(s, 1, "R:DF:S134@1,2,3")
    assert [e.card for e in events if isinstance(e, CardRevealed)] == DF_S
    assert ship(s, "134") == ("S", 2, 2)


def test_blast_window_lists_only_ships_with_an_answer_when_not_always():
    # Y-5.96 (d) / Y-0.4 defence_window_always=false
    df_a = ["C-FEE-A", "C-GRP-X", "C-PBI-A"]
    pos = "1C111:3 1T121 1T333 2S332:1 2A334:2 2C555:1 2T554 / 1"
    s = armed(pos, [], df_a, variant="full+defence_window_always=false")
    s, events = act(s, 0, "T333!")
    assert played(events)[0].window == ["334"]
    s = armed(pos, [], df_a)
    s, events = act(s, 0, "T333!")
    assert sorted(played(events)[0].window) == ["332", "334"]


def test_window_is_public_in_every_view():
    # Y-7.2: that a response window is open (and for which ships) is public
    s = armed(f"{BASE} 2S134:2 / 1", [], DF_S)
    s, _ = act(s, 0, "S112x134", rolls=[4])
    for seat in (0, 1, None):
        view = YAVOCH.view(s, seat)
        assert view["phase"] == "respond"
        assert view["window"] == {"seat": 1, "action": "S112x134{d=4,W}", "ships": ["134"]}


def test_deflected_tractor_beam_moves_nothing_and_ends_the_turn():
    # Y-5.91 / Y-4.4 (b) / Y-5.73: nothing moved; the weapon's cards stay discarded
    s = armed(f"{BASE} 2S134:1 / 1", TB_S, DF_S, pile=["C-BET-A"])
    s, _ = act(s, 0, "W:TB:S112:134>144")
    s, _ = act(s, 1, "R:DF:S134")
    assert ship(s, "134") == ("S", 2, 1)
    assert ship(s, "144") is None
    assert s.cards.discard == (*TB_S, *DF_S)
    assert s.mover == 1


def test_a_trych_never_clones_even_with_room_for_two_units():
    # Y-R52: "a Trych cannot clone", even when `capacity.trych` lets it carry 2
    pos = "1C111:3 1T121:2 2C555:1 2T554 / 1"
    s = armed(pos, ["C-AMI-T", "C-MET-T", "C-BET-X"], variant="full+capacity.trych=2")
    assert refused(s, 0, "W:CL:T121:122=1").clause == "Y-R52"
    assert not [a for a in YAVOCH.legal_actions(s, 0) if "W:CL" in YAVOCH.format_action(s, a)]
