"""One seed derivation: everything a procedure draws comes from SeedSequence([seed, *key])."""

import numpy as np
import pytest

import discpower
from discpower.stats.rng import child_seeds, seed_value, stream


def test_child_seeds_and_streams_are_the_one_derivation():
    for seed in (0, 7, 2**40 + 3, 2**64 - 1):
        for key in ((), (3,), (5, 1)):
            expected = np.random.SeedSequence([seed, *key]).generate_state(4, dtype=np.uint64)
            assert child_seeds(seed, *key, n=4) == [int(x) for x in expected]
            assert stream(seed, *key).random() == np.random.default_rng(np.random.SeedSequence([seed, *key])).random()
    assert child_seeds(9, n=2) == [int(x) for x in np.random.SeedSequence(9).generate_state(2, dtype=np.uint64)]
    assert child_seeds(1, 2) != child_seeds(1, 3) != child_seeds(2, 2)


def test_seed_values():
    assert seed_value(5) == 5 and type(seed_value(np.uint64(5))) is int
    drawn = seed_value(None)
    assert 0 <= drawn < 2**63
    assert seed_value(np.random.default_rng(1)) == int(np.random.default_rng(1).integers(0, 2**63))
    for bad in (-1, 2**64, 1.0, True, "1"):
        with pytest.raises(discpower.DiscpowerError, match="The 'seed' parameter must be an integer in"):
            seed_value(bad)


def test_a_seed_of_none_is_drawn_once_for_a_whole_comparison():
    import cwla

    qrels, runs = cwla.synthetic.collection(n_topics=10, n_runs=4, seed=2)
    result = discpower.compare_qrels(qrels, qrels, runs, n_trials=100, seed=None)
    assert result.truth_test.seed == result.candidate_test.seed
    assert result.measures["FP"] == result.measures["FN"] == 0
