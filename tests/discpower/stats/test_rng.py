"""One seed derivation: everything a procedure draws comes from SeedSequence([seed, *key])."""

import hypothesis
import hypothesis.strategies as st
import numpy as np
import pytest

import discpower
from discpower.stats.rng import (TRIALS_PER_TASK, child_seeds, n_tasks, seed_value, stream, task_span, trial_state,
                                 trial_stream)


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


@hypothesis.given(n_trials=st.integers(0, 2000), per_task=st.integers(1, 300))
@hypothesis.settings(max_examples=60, deadline=None)
def test_the_tasks_of_a_resampling_cover_its_trials_once_in_order(n_trials, per_task):
    spans = [task_span(c, n_trials, per_task) for c in range(n_tasks(n_trials, per_task))]
    covered = [b for first, end in spans for b in range(first, end)]
    assert covered == list(range(n_trials))
    assert all(0 < end - first <= per_task for first, end in spans)
    assert n_tasks(n_trials) == -(-n_trials // TRIALS_PER_TASK)


def test_a_trials_stream_starts_with_an_empty_buffer():
    state, bits, have = trial_stream(np.uint64(7), 3)
    assert (state, int(bits), have) == (trial_state(np.uint64(7), 3), 0, 0)
    assert trial_state(np.uint64(7), 3) != trial_state(np.uint64(7), 4)
