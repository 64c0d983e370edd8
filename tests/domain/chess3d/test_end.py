"""End of game (section 7), its precedence (C3-4.4), draw offers, resignation, demand-mate."""

from contracts.chess3d import DrawAccepted, DrawDeclined, DrawOffered, MateDemanded, MovePlayed
from contracts.errors import ErrorCode
from contracts.events import GameEnded, Resigned
from domain.chess3d import CHESS3D
from domain.chess3d.geometry import SQUARES
from domain.chess3d.rules import material_draw
from domain.core.outcome import draw, win
from tests.domain.chess3d.helpers import act, fen_of, new, play, refuse

MATE = {"IA1": "k", "IIIA1": "K", "IIH1": "Q"}  # IIH1-IIA1 mates (C3-R25's example)
STALEMATE = {"IA1": "k", "IIIA1": "K", "IC2": "Q"}  # IC2-IB3 stalemates
PERPETUAL = {"IA1": "K", "IE5": "Q", "IIIH8": "k"}
PERPETUAL_CYCLE = ("IE5-IF6", "IIIH8-IIIG7", "IF6-IE5", "IIIG7-IIIH8")
KNIGHTS = ("IG1-IF3", "IIIG8-IIIF6", "IF3-IG1", "IIIF6-IIIG8")


def _ended(events: tuple[object, ...]) -> GameEnded:
    last = events[-1]
    assert isinstance(last, GameEnded)
    return last


def test_checkmate_ends_the_game_and_the_mover_wins() -> None:
    """C3-7.1 / C3-6.5: in check with no legal move loses; K+Q v K can mate (C3-R25)."""
    # C3-7.1, C3-6.5, C3-R25
    state, events = act(new(fen_of(MATE)), "IIH1-IIA1")
    move = events[0]
    assert isinstance(move, MovePlayed)
    assert move.check
    assert _ended(events) == GameEnded(result="1-0", reason="checkmate", winners=[0])
    assert CHESS3D.outcome(state) == win(0, "checkmate")
    assert CHESS3D.to_act(state) == frozenset()
    assert CHESS3D.legal_actions(state, 1) == []


def test_stalemate_is_a_draw() -> None:
    """C3-7.2 / C3-R20: not in check and no legal move is a draw."""
    # C3-7.2, C3-6.6, C3-R20
    _, events = act(new(fen_of(STALEMATE)), "IC2-IB3")
    assert _ended(events) == GameEnded(result="1/2-1/2", reason="stalemate", winners=[])


def test_insufficient_material_list() -> None:
    """C3-7.3 / C3-R25: K v K, K+N v K, K+B v K, K+R v K without pawns are dead; K+Q v K not."""
    # C3-7.3, C3-R25
    for men, expected in (
        ({}, "insufficient_material"),
        ({"IC3": "N"}, "insufficient_material"),
        ({"IC3": "b"}, "insufficient_material"),
        ({"IC3": "R"}, "insufficient_material"),
        ({"IC3": "Q"}, None),
        ({"IC3": "P"}, None),
        ({"IC3": "N", "IC4": "N"}, None),
        ({"IC3": "B", "IC4": "n"}, None),
    ):
        state = new(fen_of({"IA1": "K", "IIIH8": "k", **men}))
        assert material_draw(state.pos.board, True) == expected, men


def test_capture_to_insufficient_material_draws() -> None:
    """C3-7.3: capturing the last other man, leaving K+R v K, draws at once."""
    # C3-7.3
    _, events = act(new(fen_of({"IA1": "K", "IH1": "R", "IIIH8": "k", "IH5": "n"})), "IH1xIH5")
    assert _ended(events).reason == "insufficient_material"


def test_promotion_to_rook_leaving_k_r_v_k_draws() -> None:
    """C3-7.3: promoting the last pawn to a Rook leaves K+R v K, a dead position."""
    # C3-7.3, C3-6.1
    _, events = act(new(fen_of({"IA1": "K", "IIB7": "P", "IIIH1": "k"})), "IIB7-IIB8=R")
    assert _ended(events).reason == "insufficient_material"
    _, events = act(new(fen_of({"IA1": "K", "IIB7": "P", "IIIH1": "k"})), "IIB7-IIB8=Q")
    assert not any(isinstance(e, GameEnded) for e in events)


DEPLETED = {"IA1": "K", "IB1": "Q", "IIIH8": "k", "IIIA7": "q", "IB5": "n"}


def test_depleted_equal_forces_draw_when_enabled() -> None:
    """C3-7.4 / C3-R24: K+Q v K+Q (same type, one piece each) draws; off with the flag."""
    # C3-7.4, C3-R24
    _, events = act(new(fen_of(DEPLETED)), "IB1xIB5")
    assert _ended(events).reason == "depleted_equal"
    _, events = act(new(fen_of(DEPLETED), "depleted_equal_draw=false"), "IB1xIB5")
    assert not any(isinstance(e, GameEnded) for e in events)
    for men, expected in (
        ({"IC3": "R", "IC4": "r"}, "depleted_equal"),
        ({"IC3": "B", "IC4": "b"}, "depleted_equal"),
        ({"IC3": "N", "IC4": "n"}, "depleted_equal"),
        ({"IC3": "B", "IC4": "n"}, None),
        ({"IC3": "R", "ID3": "N", "IC4": "r", "ID4": "n"}, None),
    ):
        state = new(fen_of({"IA1": "K", "IIIH8": "k", **men}))
        assert material_draw(state.pos.board, True) == expected, men


def test_checkmate_takes_precedence_over_depleted_equal() -> None:
    """C3-4.4 / C3-R32: a mating capture that leaves K+Q v K+Q is a checkmate."""
    # C3-4.4, C3-R32
    men = {"IA1": "k", "IIIA1": "K", "IIH1": "Q", "IIA1": "r", "IIIH7": "q"}
    _, events = act(new(fen_of(men)), "IIH1xIIA1")
    assert _ended(events).reason == "checkmate"


def test_stalemate_takes_precedence_over_material() -> None:
    """C3-4.4: a capture leaving K+Q v K that also stalemates is a stalemate."""
    # C3-4.4
    _, events = act(new(fen_of({**STALEMATE, "IB3": "n"})), "IC2xIB3")
    assert _ended(events).reason == "stalemate"


def test_threefold_repetition_draws() -> None:
    """C3-7.5.2 / C3-R22: the third occurrence of a position draws automatically."""
    # C3-7.5.2, C3-R22
    state = play(new(), *KNIGHTS)
    state, events = act(state, KNIGHTS[0])
    for text in KNIGHTS[1:3]:
        state, events = act(state, text)
    assert not any(isinstance(e, GameEnded) for e in events)
    state, events = act(state, KNIGHTS[3])
    assert _ended(events) == GameEnded(result="1/2-1/2", reason="repetition", winners=[])


def test_repetition_need_not_be_consecutive() -> None:
    """C3-7.5.2: occurrences separated by other moves still count."""
    # C3-7.5.2
    other = ("IB1-IC3", "IIIB8-IIIC6", "IC3-IB1", "IIIC6-IIIB8")
    state = play(new(), *KNIGHTS, "IA1-IIA1", "IIIA8-IIIA8".replace("IIIA8-IIIA8", "IIIH8-IIH8"))
    state = play(state, "IIA1-IA1", "IIH8-IIIH8")  # castling rights are lost: history restarts
    state = play(state, *KNIGHTS)
    state = play(state, *other[:3])
    state, events = act(state, other[3])
    assert _ended(events).reason == "repetition"


def test_repetition_count_parameter() -> None:
    """C3-0.2 repetition_count: with 2 the second occurrence draws."""
    # C3-0.2, C3-7.5.2
    state = play(new(variant="repetition_count=2"), *KNIGHTS[:3])
    _, events = act(state, KNIGHTS[3])
    assert _ended(events).reason == "repetition"


def test_repetition_identity_includes_double_step_rights() -> None:
    """C3-7.5.1 / C3-R12: a pawn back on its start cube without its right is a new position."""
    # C3-7.5.1, C3-R12
    state = play(new(), "IE2-IIE2", "IIIE7-IIE7", "IIE2-IE2", "IIE7-IIIE7")
    assert state.pos.board == new().pos.board
    assert state.pos.key != new().pos.key


def test_repetition_identity_uses_legal_en_passant_captures() -> None:
    """C3-7.5.1: an en-passant cube nobody can use does not make a different position."""
    # C3-7.5.1
    fen = fen_of({"IA1": "K", "IIIH8": "k", "IIIE7": "p"}, side="b", rest="- - e 0 1 -")
    with_ep = play(new(fen), "IIIE7-IIIE5")
    assert with_ep.pos.ep
    same = new(fen_of({"IA1": "K", "IIIH8": "k", "IIIE5": "p"}, rest="- - - 1 2 -"))
    assert with_ep.pos.key == same.pos.key
    men = {"IA1": "K", "IIIH8": "k", "IIID5": "P"}
    with_capture = play(new(fen_of({**men, "IIIE7": "p"}, "b", "- - e 0 1 -")), "IIIE7-IIIE5")
    same = new(fen_of({**men, "IIIE5": "p"}, rest="- - - 1 2 -"))
    assert with_capture.pos.key != same.pos.key


def test_perpetual_check_is_tagged() -> None:
    """C3-7.5.3 / C3-R21: a repetition where one side checked on every move is perpetual_check."""
    # C3-7.5.3, C3-R21
    state = play(new(fen_of(PERPETUAL)), *PERPETUAL_CYCLE, *PERPETUAL_CYCLE[:3])
    _, events = act(state, PERPETUAL_CYCLE[3])
    assert _ended(events) == GameEnded(result="1/2-1/2", reason="perpetual_check", winners=[])


def test_perpetual_check_needs_every_move_of_the_cycle_to_check() -> None:
    """C3-7.5.3: one quiet move in the cycle makes it a plain repetition."""
    # C3-7.5.3
    state = play(new(fen_of(PERPETUAL)), *PERPETUAL_CYCLE)
    state = play(state, "IA1-IA2", "IIIH8-IIIG8", "IA2-IA1")
    _, events = act(state, "IIIG8-IIIH8")  # third occurrence of the start
    assert _ended(events).reason == "repetition"


def _quiet(halfmove: int, demand: str, variant: str = "") -> tuple[object, ...]:
    fen = fen_of({"IA1": "K", "IH1": "R", "IIIH8": "k", "IIIA8": "r", "IIIB8": "n"},
                 rest=f"- - - {halfmove} 40 {demand}")  # fmt: skip
    _, events = act(new(fen, variant), "IA1-IA2")
    return events


def test_fifty_moves_on_demand_with_reset() -> None:
    """C3-7.6.2: default mode draws when min(D, H) reaches 100 after a demand."""
    # C3-7.6.2
    assert _ended(_quiet(99, "99")).reason == "fifty_moves"
    assert not isinstance(_quiet(10, "99")[-1], GameEnded)  # progress since the demand
    assert not isinstance(_quiet(150, "-")[-1], GameEnded)  # no demand made
    assert not isinstance(_quiet(99, "98")[-1], GameEnded)


def test_fifty_moves_on_demand_without_reset() -> None:
    """C3-7.6.2 / C3-0.2: with fifty_move_reset=false only the demand clock counts."""
    # C3-7.6.2
    assert _ended(_quiet(10, "99", "fifty_move_reset=false")).reason == "fifty_moves"


def test_fifty_moves_automatic_and_off() -> None:
    """C3-7.6.3 / C3-7.6.4: automatic mode needs no demand; off never draws."""
    # C3-7.6.3, C3-7.6.4
    assert _ended(_quiet(99, "-", "fifty_move_mode=automatic")).reason == "fifty_moves"
    assert not isinstance(_quiet(98, "-", "fifty_move_mode=automatic")[-1], GameEnded)
    assert not isinstance(_quiet(500, "-", "fifty_move_mode=off")[-1], GameEnded)
    assert not isinstance(_quiet(500, "600", "fifty_move_mode=off")[-1], GameEnded)


def test_progress_moves_restart_the_halfmove_clock() -> None:
    """C3-7.6.1: captures and rank-changing pawn moves restart H; level steps do not."""
    # C3-7.6.1
    state = play(new(), "IE2-IIE2")
    assert CHESS3D.position(state).split()[5] == "1"
    state = play(state, "IIIE7-IIIE5")
    assert CHESS3D.position(state).split()[5] == "0"
    state = play(state, "IG1-IF3", "IIIA7-IIA7", "IIE2-IIIE2")
    assert CHESS3D.position(state).split()[5] == "3"
    state = play(state, "IIA7-IIIA7", "IF3-IIIE5".replace("IF3-IIIE5", "IB1-IC3"))
    assert CHESS3D.position(state).split()[5] == "5"


def test_mate_on_the_hundredth_ply_stands() -> None:
    """C3-7.6.5 / C3-4.4: if the 100th ply mates, the checkmate stands."""
    # C3-7.6.5, C3-4.4
    fen = fen_of(MATE, rest="- - - 99 70 99")
    for variant in ("", "fifty_move_mode=automatic"):
        _, events = act(new(fen, variant), "IIH1-IIA1")
        assert _ended(events).reason == "checkmate"


def test_repetition_takes_precedence_over_fifty_moves() -> None:
    """C3-4.4: a third occurrence on the 100th ply is reported as repetition."""
    # C3-4.4
    men = {"IA1": "K", "IG1": "N", "IA4": "P", "IIIH8": "k", "IIIG8": "n", "IIIH5": "p"}
    fen = fen_of(men, rest="- - - 92 50 -")
    state = play(new(fen, "fifty_move_mode=automatic"), *KNIGHTS, *KNIGHTS[:3])
    _, events = act(state, KNIGHTS[3])
    assert state.pos.halfmove == 99
    assert _ended(events).reason == "repetition"


def test_demand_mate_starts_the_clock() -> None:
    """C3-7.6.2 / C3-1.8 field 8: MateDemanded sets the clock to 0, each ply adds one."""
    # C3-7.6.2, C3-1.8
    state, events = act(new(), "demand-mate")
    assert events == (MateDemanded(seat=0),)
    assert CHESS3D.position(state).split()[7] == "0"
    state = play(state, "IE2-IE4", "IIIE7-IIIE5")
    assert CHESS3D.position(state).split()[7] == "2"
    assert CHESS3D.view(state, None)["demand_clock"] == 2


def test_demand_mate_refusals() -> None:
    """C3-7.6.2-4: a second demand, a demand off turn or in another mode is refused."""
    # C3-7.6.2, C3-7.6.3, C3-7.6.4
    state, _ = act(new(), "demand-mate")
    assert refuse(state, "demand-mate").clause == "C3-7.6.2"
    assert refuse(state, "demand-mate").code == ErrorCode.ILLEGAL_ACTION
    assert refuse(new(), "demand-mate", seat=1).code == ErrorCode.NOT_YOUR_TURN
    automatic = refuse(new(variant="fifty_move_mode=automatic"), "demand-mate")
    assert (automatic.code, automatic.clause) == (ErrorCode.ILLEGAL_ACTION, "C3-7.6.3")
    assert refuse(new(variant="fifty_move_mode=off"), "demand-mate").clause == "C3-7.6.4"


def test_resignation_at_any_time_by_either_side() -> None:
    """C3-7.8 / C3-R28: either player may resign at any time; the opponent wins."""
    # C3-7.8, C3-R28
    state, events = act(new(), "resign", seat=1)
    assert events == (Resigned(seat=1), GameEnded(result="1-0", reason="resignation",
                                                  winners=[0]))  # fmt: skip
    assert CHESS3D.outcome(state) == win(0, "resignation")
    _, events = act(new(), "resign", seat=0)
    assert _ended(events).result == "0-1"


def test_draw_offer_accepted_ends_the_game() -> None:
    """C3-7.7 / C3-R26: an offer on one's turn, accepted by the opponent, draws."""
    # C3-7.7, C3-R26
    state, events = act(new(), "offer-draw")
    assert events == (DrawOffered(seat=0),)
    assert CHESS3D.view(state, 1)["draw_offer"] == 0
    state, events = act(state, "accept-draw", seat=1)  # while it is still White's turn
    assert events == (DrawAccepted(seat=1), GameEnded(result="1/2-1/2", reason="agreement"))
    assert CHESS3D.outcome(state) == draw("agreement")


def test_draw_offer_declined_explicitly_or_by_moving() -> None:
    """C3-7.7 / C3-4.3: the offer stands through the offerer's move; a reply move declines."""
    # C3-7.7, C3-4.3
    state, _ = act(new(), "offer-draw")
    _, events = act(state, "decline-draw", seat=1)
    assert events == (DrawDeclined(seat=1),)
    state = play(state, "IE2-IE4")  # the offer still stands
    assert state.agreement.offer == 0
    later, _ = act(state, "accept-draw", seat=1)
    assert CHESS3D.outcome(later) == draw("agreement")
    state, events = act(state, "IIIE7-IIIE5")
    assert events[0] == DrawDeclined(seat=1)
    assert isinstance(events[1], MovePlayed)
    assert state.agreement.offer == -1


def test_draw_offer_rules() -> None:
    """C3-7.7: offer only on one's turn, not again before moving; answer only an opponent's."""
    # C3-7.7
    assert refuse(new(), "offer-draw", seat=1).code == ErrorCode.NOT_YOUR_TURN
    assert refuse(new(), "accept-draw", seat=1).code == ErrorCode.ILLEGAL_ACTION
    state, _ = act(new(), "offer-draw")
    again = refuse(state, "offer-draw")
    assert (again.code, again.clause) == (ErrorCode.ILLEGAL_ACTION, "C3-7.7")
    assert refuse(state, "accept-draw", seat=0).code == ErrorCode.ILLEGAL_ACTION
    state, _ = act(state, "decline-draw", seat=1)
    assert refuse(state, "offer-draw").code == ErrorCode.ILLEGAL_ACTION  # not moved since
    state = play(state, "IE2-IE4", "IIIE7-IIIE5")
    state, _ = act(state, "offer-draw")
    state = play(state, "IG1-IF3")
    assert refuse(state, "offer-draw").code == ErrorCode.ILLEGAL_ACTION  # opponent's pending
    assert refuse(state, "offer-draw").reason.startswith("your opponent's draw offer")


def test_legal_actions_lists_commands() -> None:
    """C3-1.7 / C3-4.3: legal_actions includes the currently allowed non-move actions."""
    # C3-1.7, C3-4.3
    state = new()
    white = {CHESS3D.format_action(state, a) for a in CHESS3D.legal_actions(state, 0)}
    assert {"resign", "offer-draw", "demand-mate"} <= white
    black = {CHESS3D.format_action(state, a) for a in CHESS3D.legal_actions(state, 1)}
    assert black == {"resign"}
    state, _ = act(state, "offer-draw")
    black = {CHESS3D.format_action(state, a) for a in CHESS3D.legal_actions(state, 1)}
    assert black == {"resign", "accept-draw", "decline-draw"}


def test_game_ended_refuses_everything() -> None:
    """Platform: after the end every action is refused with GAME_ENDED."""
    # C3-7.1
    state, _ = act(new(), "resign")
    for text in ("IE2-IE4", "resign", "offer-draw"):
        assert refuse(state, text).code == ErrorCode.GAME_ENDED
    assert len(SQUARES) == 192
