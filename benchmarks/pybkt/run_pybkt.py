"""Fit pyBKT standard BKT on a train CSV, predict a test CSV, print JSON: auc, rmse, fit_seconds.

Runs in the benchmark-only virtualenv of `benchmarks/pybkt/requirements.txt`, never in tutorgraph's:
    python3 -m venv .bench-venv && .bench-venv/bin/pip install -r benchmarks/pybkt/requirements.txt
    .bench-venv/bin/python benchmarks/pybkt/run_pybkt.py --train TRAIN.csv --test TEST.csv
"""

from __future__ import annotations

import argparse
import json
import time
import warnings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", required=True, help="pyBKT-form CSV: user_id,skill_name,correct")
    parser.add_argument("--test", required=True, help="same columns; evaluated one step ahead")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--num-fits", type=int, default=5, help="random restarts (pyBKT default 5)")
    parser.add_argument("--forgets", action="store_true", help="also learn a forgetting rate")
    args = parser.parse_args()

    # pyBKT divides 0 by 0 in its E-step on purpose (then nan_to_num); forked workers inherit this.
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    import pyBKT
    from pyBKT.models import Model

    model = Model(seed=args.seed, num_fits=args.num_fits)
    started = time.perf_counter()
    model.fit(data_path=args.train, forgets=args.forgets)
    fit_seconds = time.perf_counter() - started
    started = time.perf_counter()
    auc, rmse = model.evaluate(data_path=args.test, metric=["auc", "rmse"])
    predict_seconds = time.perf_counter() - started
    result = {
        "auc": float(auc),
        "rmse": float(rmse),
        "fit_seconds": fit_seconds,
        "predict_seconds": predict_seconds,
        "skills": len(model.fit_model),
        "forgets": args.forgets,
        "num_fits": args.num_fits,
        "seed": args.seed,
        "pybkt_version": getattr(pyBKT, "__version__", "1.4.3"),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
