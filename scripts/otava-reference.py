"""Writes apps/api/src/domain/fixtures/otava-change-points.json: series and the change
points Apache Otava finds in them, for the TypeScript port's test to compare with.

Usage: python3 scripts/otava-reference.py <path holding the otava package>
(e.g. a checkout of github.com/apache/otava at 1ceb153; needs numpy and scipy), then
`npx biome format --write` the JSON.
"""
import json
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
from otava.analysis import compute_change_points, split  # noqa: E402


def case(name, series, window_len, max_pvalue, min_magnitude=0.0):
    cps, weak = compute_change_points(
        list(series), window_len=window_len, max_pvalue=max_pvalue, min_magnitude=min_magnitude
    )
    # compute_change_points' second value is the list merge() emptied in place: the weak
    # points are taken from the split step itself, at the first-pass p-value it uses.
    first_pass = max_pvalue * 10 if max_pvalue < 0.05 else (max_pvalue * 2 if max_pvalue < 0.5 else max_pvalue)
    weak = split(list(series), window_len, first_pass)

    def point(c):
        return {
            "index": int(c.index),
            "pValue": float(c.stats.pvalue),
            "meanBefore": float(c.stats.mean_1),
            "meanAfter": float(c.stats.mean_2),
            "magnitude": float(c.stats.change_magnitude()),
            "stdBefore": float(c.stats.std_1),
            "stdAfter": float(c.stats.std_2),
            "forwardChange": float(c.stats.forward_rel_change()),
            "qhat": float(c.qhat),
        }
    return {
        "name": name,
        "options": {"windowLen": window_len, "maxPValue": max_pvalue, "minMagnitude": min_magnitude},
        "series": [float(x) for x in series],
        "points": [point(c) for c in cps],
        "weak": [int(c.index) for c in weak],
    }


rng = np.random.default_rng(20261125)
cases = [
    case("otava analysis_test single step", [
        1.02, 0.95, 0.99, 1.00, 1.12, 1.00, 1.01, 0.98, 1.01, 0.96,
        0.50, 0.51, 0.48, 0.48, 0.55, 0.50, 0.49, 0.51, 0.50, 0.49], 10, 0.0001),
    case("otava divisive test sequence", [
        0.3, 2.4, 1.5, -0.9, -0.5, 99.7, 98.3, 99.1,
        149.0, 149.7, 149.5, 149.1, 148.8, 150.0], 50, 0.01),
]
# P99 propagation latency (ms) over 200 runs: two regressions, one improvement, noise.
levels = np.concatenate([np.full(60, 800.0), np.full(50, 880.0), np.full(50, 860.0), np.full(40, 700.0)])
cases.append(case("four levels with noise", np.round(levels + rng.normal(0, 12, levels.size), 3), 30, 0.001))
# One spike among steady runs: it must not be a change point at a tight p-value.
spike = np.round(500 + rng.normal(0, 5, 120), 3)
spike[70] = 900.0
cases.append(case("one spike", spike, 50, 0.001))
# A noisy series without change.
cases.append(case("no change", np.round(100 + rng.normal(0, 3, 150), 3), 50, 0.001))
# A small shift that the minimum magnitude filters out.
small = np.concatenate([np.full(80, 100.0), np.full(80, 101.5)])
cases.append(case("small shift, min magnitude 5 %", np.round(small + rng.normal(0, 0.3, small.size), 3), 50, 0.001, 0.05))
cases.append(case("small shift, no minimum", np.round(small + rng.normal(0, 0.3, small.size), 3), 50, 0.001))
# 1,000 runs with drift and steps: the history the bench reads.
long = np.concatenate([np.full(250, 50.0), np.full(300, 55.0), np.full(200, 53.0), np.full(250, 60.0)])
cases.append(case("1,000 runs", np.round(long + rng.normal(0, 1.5, long.size), 3), 50, 0.001))
# Appended after the cases above so their random draws stay the same.
# The split step's p-value is twice max_pvalue in [0.05, 0.5) and max_pvalue itself from 0.5.
loose = np.concatenate([np.full(30, 10.0), np.full(30, 10.6)])
loose = np.round(loose + rng.normal(0, 1.0, loose.size), 3)
cases.append(case("loose p-value 0.1", loose, 20, 0.1))
cases.append(case("loose p-value 0.6", loose, 20, 0.6))
# A short window: many windows, points found near their edges and merged.
short = np.concatenate([np.full(12, 5.0), np.full(12, 9.0), np.full(12, 4.0)])
cases.append(case("window of 4", np.round(short + rng.normal(0, 0.4, short.size), 3), 4, 0.01))
# A level falling to zero and back: relative changes from a zero mean count as 0.
zero = np.concatenate([np.full(20, 3.0), np.zeros(20), np.full(20, 3.0)])
cases.append(case("down to zero and back", zero, 50, 0.001))
# Magnitudes above and below the minimum: the merge step drops the smaller step only.
mixed = np.concatenate([np.full(40, 100.0), np.full(40, 104.0), np.full(40, 140.0)])
cases.append(case("min magnitude keeps the large step", np.round(mixed + rng.normal(0, 0.5, mixed.size), 3), 50, 0.001, 0.1))
# Two runs: one value each side, no t-test possible (p = 1), so no change point.
cases.append(case("two runs", [1.0, 5.0], 50, 0.001))

out = "apps/api/src/domain/fixtures/otava-change-points.json"
with open(out, "w") as f:
    json.dump({"source": "apache/otava 1ceb153 otava.analysis.compute_change_points", "cases": cases}, f, indent=1)
print(out, len(cases), "cases:", [ (c["name"], [p["index"] for p in c["points"]]) for c in cases])
