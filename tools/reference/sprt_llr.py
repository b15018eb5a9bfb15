"""Reference values of the generalised SPRT's log-likelihood ratio, found
a different way than src/referee/stats.rs finds them: by maximising the
multinomial log-likelihood under the constraint "expected score = s" with
a general constrained optimiser (scipy's SLSQP), instead of solving the
one-dimensional secular equation. Empty cells get the weight 1e-3 as in
fishtest. Prints `counts elo0 elo1 llr` lines that tests/suite/sprt.rs checks.

    pip install scipy && python3 tools/reference/sprt_llr.py
"""
import math

import numpy as np
from scipy.optimize import minimize


def score_of_elo(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def constrained_max_loglik(weights, values, s):
    n = len(weights)
    start = np.full(n, 1.0 / n)
    cons = [
        {"type": "eq", "fun": lambda q: np.sum(q) - 1},
        {"type": "eq", "fun": lambda q: np.dot(q, values) - s},
    ]
    res = minimize(
        lambda q: -np.dot(weights, np.log(np.maximum(q, 1e-300))),
        start,
        method="SLSQP",
        bounds=[(1e-15, 1)] * n,
        constraints=cons,
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    assert res.success, res.message
    return -res.fun


def llr(counts, elo0, elo1):
    weights = np.array([c if c > 0 else 1e-3 for c in counts], dtype=float)
    values = np.linspace(0, 1, len(counts))
    l0 = constrained_max_loglik(weights, values, score_of_elo(elo0))
    l1 = constrained_max_loglik(weights, values, score_of_elo(elo1))
    return l1 - l0


CASES = [
    ([1, 1, 1], 0, 50),
    ([20, 40, 60], 0, 10),
    ([3, 10, 40, 12, 5], 0, 10),
    ([0, 0, 0, 0, 3], 0, 10),
    ([3, 0, 0, 0, 0], 0, 10),
    ([5, 30, 80, 40, 10], -5, 5),
    ([0, 1, 2, 1, 2], 0, 5),
]

for counts, elo0, elo1 in CASES:
    print(" ".join(map(str, counts)), elo0, elo1, f"{llr(counts, elo0, elo1):.9f}")
