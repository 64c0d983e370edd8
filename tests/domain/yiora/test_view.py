"""What the board shows: the JSON view and the text rendering."""

import json

from domain.yiora import YIORA
from tests.domain.yiora.helpers import START, WSQ_START, act, new


def test_view_of_a_primary_game() -> None:
    """Both sides' men, the side to move, the threatened Overlord (YI-6.1), the last move."""
    # YI-6.1, YI-1.3
    state, _ = act(new("w W:OA1,MA7 B:OA19,MR18,MR20,PO25 0 1"), "A7-A9")
    view = YIORA.view(state, None)
    json.dumps(view)  # JSON-ready
    (game,) = view["games"]
    assert (game["game"], game["colour"], game["sides"]) == ("bsq", "black", ["White", "Black"])
    assert (game["to_move"], game["threatened"], game["last_move"]) == ("Black", "A-19", "A7-A9")
    assert {m["square"] for m in game["men"]} == {"A-1", "A-9", "A-19", "R-18", "R-20", "O-25"}
    assert (view["to_move"], view["to_act"], view["seats"], view["result"]) == (1, [1], 2, None)
    assert view["position"] == YIORA.position(state)


def test_view_of_a_secondary_game() -> None:
    """Both games' men and sides to move; who is due in lockstep; seats per side; teams."""
    # YI-8.1, YI-8.4, YI-8.4.1
    state, _ = act(new(variant="secondary_complex+teams"), "bsq:O3-O7", seat=0)
    view = YIORA.view(state, 2)
    assert view["variation"] == "secondary_complex"
    assert (view["teams"], view["turn_mode"], view["to_act"]) == ([[0, 2], [1, 3]], "lockstep",
                                                                  [0, 2])  # fmt: skip
    bsq, wsq = view["games"]
    assert (bsq["to_move"], bsq["due"], wsq["to_move"], wsq["due"]) == ("Black", False, "Gold",
                                                                         True)  # fmt: skip
    assert wsq["seats"] == [[0, 2], [1, 3]]
    assert len(bsq["men"]) == len(wsq["men"]) == 18
    assert {m["side"] for m in wsq["men"]} == {"Gold", "Silver"}


def test_view_of_offers_and_results() -> None:
    # YI-7.6, YI-8.4.3
    state, _ = act(new(variant="secondary_basic"), "resign", seat=0)
    view = YIORA.view(state, None)
    assert view["games"][0]["result"] == "0-1"
    assert view["games"][0]["reason"] == "resignation"
    state, _ = act(new(variant="secondary_basic"), "wsq:offer-draw", seat=2)
    assert YIORA.view(state, None)["games"][1]["draw_offer"] == "Gold"


def test_render_unrolls_the_rings() -> None:
    """A labelled 5 × 36 grid, ring A on top, column 1 on the left; `·` for unused squares."""
    # YI-1.1, YI-1.2, YI-1.4
    lines = YIORA.render(new()).splitlines()
    assert lines[0].startswith("ring |  1  2  3")
    assert lines[0].rstrip().endswith("36")
    assert [line[:6] for line in lines[1:6]] == ["  A  |", "  R  |", "  O  |", "  I  |", "  Y  |"]
    a_ring = lines[1][6:]
    cells = [a_ring[i : i + 3].strip() for i in range(0, 108, 3)]
    assert (cells[0], cells[1], cells[2], cells[18], cells[34]) == ("WO", "·", "WM", "BO", "WM")
    assert lines[6] == "White to move"
    assert lines[-1] == START


def test_render_of_both_games() -> None:
    """Both colours in use: Gold and Silver on the white squares."""
    # YI-8.1
    text = YIORA.render(new(variant="secondary_basic"))
    cells = [text.splitlines()[1][6:][i : i + 3].strip() for i in range(0, 108, 3)]
    assert cells[:4] == ["WO", "GO", "WM", "GM"]
    assert "·" not in "".join(text.splitlines()[1:6])  # every square is in play
    assert text.splitlines()[-1] == f"bsq:{START} | wsq:{WSQ_START}"
    assert "bsq: White to move" in text
    assert "wsq: Gold to move" in text
