"""Draw docs/figures/qrels_figure1_dl19.png (README.md, docs/qrels.md): McKechnie et al.'s Figure 1 for
NIST against the zero-shot LLM qrels on TREC DL 2019 (37 official runs, nDCG@10, randomised Tukey HSD with
B = 10,000), from ../shared/data.

    python docs/make_qrels_figure.py
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import discpower

HERE = Path(__file__).resolve().parent
DL19 = HERE.parents[1] / "shared" / "data" / "trec-dl-2019-passage"
CANDIDATE = "dl2019_test_baseline_relavance_qrel_prompt_order_3210.txt"


def main():
    result = discpower.compare_qrels(DL19 / "qrels" / "qrels.dl19-passage.txt",
                                     DL19 / "candidate-qrels" / "llm" / CANDIDATE,
                                     sorted((DL19 / "runs").glob("*.gz")), "nDCG@10", n_trials=10_000, seed=1)
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.4))
    names = dict(truth_name="NIST qrels", candidate_name="LLM qrels (Llama-3-8B, direct 0-3 grading)")
    result.plot(ax=axes[0], **names)   # the axes name the metric and topics, the title the test, B and alpha
    axes[0].set_title("DL19, NIST vs zero-shot LLM qrels: " + axes[0].get_title(), fontsize=9)
    x, y = result.truth_means, result.candidate_means   # zoom past the outlying run (UNH_exDL_bm25)
    result.plot(ax=axes[1], xlim=(x.quantile(0.05) - 0.05, x.max() + 0.02),
                ylim=(y.quantile(0.05) - 0.05, y.max() + 0.02), **names)
    axes[1].set_title("the same, zoomed on the bulk of the runs", fontsize=9)
    axes[1].set_ylabel("")
    fig.suptitle("Runs scored under both qrels; system pairs significant under NIST only (Type II errors) dashed "
                 "blue, under the LLM qrels only (Type I errors) solid vermillion", fontsize=9)
    fig.tight_layout()
    fig.savefig(HERE / "figures" / "qrels_figure1_dl19.png", dpi=110, bbox_inches="tight")
    m = result.measures
    print(" ".join(f"{k}={m[k]}" for k in ("TP", "TN", "FP", "FN")),
          " ".join(f"{k}={m[k]:.3f}" for k in ("BAC", "MCC", "delta_sensitivity", "tau")))


if __name__ == "__main__":
    main()
