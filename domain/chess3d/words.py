"""3-D Chess in plain words (issue 23): its sides and the reasons its games end (C3-7)."""

from typing import Final

from domain.core.words import Phrase, RulesetWords, by, drawn

REASONS: Final[dict[str, Phrase]] = {
    "checkmate": by("checkmate"),  # C3-7.1: the checkmated side loses
    "stalemate": by("stalemate"),  # C3-7.2: a draw, regardless of material
    # C3-7.3: K v K, K+N v K, K+B v K, K+R v K with no pawns: no mate is possible.
    "insufficient_material": drawn("neither side has the men left to checkmate"),
    # C3-7.4 (depleted_equal_draw): each side a King and one other piece of the same type.
    "depleted_equal": drawn("the forces are depleted and equal"),
    "repetition": by("repetition"),  # C3-7.5.2
    "perpetual_check": by("perpetual check"),  # C3-7.5.3
    "fifty_moves": by("the fifty-move rule"),  # C3-7.6
    "agreement": by("agreement"),  # C3-7.7
    "resignation": by("resignation"),  # C3-7.8
}

# C3-3.1 (White's men on level I, Black's on level III), C3-R27: seat 0 is White, moving first.
WORDS: Final = RulesetWords(("White", "Black"), REASONS)
