"""Draw the figures of README.md and docs/discpower.md (TREC DL 2019 from ../shared/data).

    python docs/make_figures.py
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import cwla
import discpower

HERE = Path(__file__).resolve().parent
DL19 = HERE.parents[1] / "shared" / "data" / "trec-dl-2019-passage"


def main():
    runs = sorted((DL19 / "runs").glob("*.gz"))
    metrics = cwla.chen_sakai_paper_grid(gmax=3)
    report = discpower.meta_evaluate(DL19 / "qrels" / "qrels.dl19-passage.txt", runs, metrics,
                                     n_trials=2000, n_splits=1000, seed=2023)
    chosen = ["RBP_ERG", "RBP_max", "INST_ERG", "INST_PE", "AP_ERG", "ERR_ERG", "ERR_ERR", "Precision_max"]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    discpower.plot_asl_curves({k: report.tests[k] for k in chosen}, ax)  # the title names the test, B and alpha
    ax.set_title("TREC DL 2019, cutoff 10. " + ax.get_title(), fontsize=9)
    fig.savefig(HERE / "figures" / "asl_dl19.png", dpi=130, bbox_inches="tight")
    ax = report.plot_similarity()
    ax.figure.set_size_inches(12, 10)
    ax.figure.savefig(HERE / "figures" / "similarity_dl19.png", dpi=60, bbox_inches="tight")
    print(report.to_frame().sort_values("dp", ascending=False).head(10).to_string(index=False))


if __name__ == "__main__":
    main()
