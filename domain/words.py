"""Each ruleset's plain words (issue 23), by ruleset name, beside the registry.

The mapping lives here rather than in domain/core/words.py: every ruleset package imports
domain.core (its words module imports domain.core.words), so domain.core importing them back
would be a cycle.
"""

from typing import Final

from domain.chess3d.words import WORDS as CHESS3D
from domain.core.words import PLATFORM_REASONS, RulesetWords, Words
from domain.cyvasse.words import WORDS as CYVASSE
from domain.spacewar.words import WORDS as SPACEWAR
from domain.spacewar_ha.words import WORDS as SPACEWAR_HA
from domain.yavoch.words import WORDS as YAVOCH
from domain.yiora.words import WORDS as YIORA

# By `Ruleset.name` (domain/registry.py); tests/domain/test_words.py holds it to the registry.
WORDS: Final[dict[str, Words]] = {
    "chess3d": CHESS3D,
    "cyvasse": CYVASSE,
    "yavoch": YAVOCH,
    "yiora": YIORA,
    "spacewar": SPACEWAR,
    "spacewar-ha": SPACEWAR_HA,
}

# A ruleset this version does not know (an old log's): its seats by number, the platform's
# reasons, any other code in its own words.
FALLBACK: Final = RulesetWords(())


def words_for(ruleset: str) -> Words:
    """The words of the ruleset named `ruleset` (`GameCreated.ruleset`)."""
    return WORDS.get(ruleset, FALLBACK)


__all__ = ["PLATFORM_REASONS", "WORDS", "words_for"]
