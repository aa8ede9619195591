"""discpower: meta-evaluation of IR metrics and relevance judgements.

Paired randomised Tukey HSD and the other pairwise tests, discriminative power
and ASL curves, system-ranking similarity, split-half consistency (Sakai 2006,
2018, 2021; Carterette 2012; Chen & Sakai 2023).
"""

from ._validate import DiscpowerError
from .result import PairwiseTest
from .tukey import randomised_tukey_hsd

__all__ = ["DiscpowerError", "PairwiseTest", "randomised_tukey_hsd"]
