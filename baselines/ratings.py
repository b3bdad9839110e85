"""Ratings from head-to-head pairings: the Plackett-Luce fit (Bradley-Terry at two seats) on the Elo scale, random
fixed at 1000.  A pairing is a dict with its two bots (``a``, ``b``) and either its fools and draws (``a_fools``,
``b_fools``, ``draws``: two seats) or how many games ``a`` finished at each place (``a_places``, first out first)."""

from __future__ import annotations

import math

ANCHOR = "random"
"""The bot whose rating is fixed at 1000."""


def places(row: dict) -> list[float]:
    """How many of a pairing's games its first bot finished at each place (first out first); at two seats from its
    fools and draws (a draw: half a game at each place)."""
    if "a_places" in row:
        return row["a_places"]
    return [row["b_fools"] + 0.5 * row["draws"], row["a_fools"] + 0.5 * row["draws"]]


def fit(rows: list[dict], anchor: str = ANCHOR) -> dict[str, tuple[float, float]]:
    """Plackett-Luce by Newton's method on the Elo scale: each bot's rating and its standard error.  A game where
    the first bot finished at place k among n, the other bot at every other seat, has the probability that the
    other bot's seats went out first k - 1 times, then the first bot (at two seats this is Bradley-Terry)."""
    import numpy as np

    names = sorted({r["a"] for r in rows} | {r["b"] for r in rows})
    if anchor not in names:
        raise ValueError(f"the ladder needs the anchor {anchor!r} among the bots")
    index = {n: i for i, n in enumerate(names)}
    k = math.log(10) / 400
    theta = np.zeros(len(names))
    free = [i for i, n in enumerate(names) if n != anchor]
    for _ in range(100):
        grad = np.zeros(len(names))
        hess = np.zeros((len(names), len(names)))
        for r in rows:
            i, j = index[r["a"]], index[r["b"]]
            g, w = place_terms(places(r), math.exp(k * (theta[i] - theta[j])))
            g, w = k * g, k * k * w
            grad[i] += g
            grad[j] -= g
            hess[i, i] -= w
            hess[j, j] -= w
            hess[i, j] += w
            hess[j, i] += w
        sub = hess[np.ix_(free, free)] - 1e-9 * np.eye(len(free))  # a tiny prior keeps unbeaten bots finite
        step = np.linalg.solve(sub, grad[free])
        theta[free] -= step
        if np.max(np.abs(step)) < 1e-6:
            break
    cov = np.linalg.inv(-sub)
    errors = np.zeros(len(names))
    errors[free] = np.sqrt(np.maximum(np.diag(cov), 0))
    return {n: (1000 + theta[i], errors[i]) for n, i in index.items()}


def place_terms(counts: list[float], r: float) -> tuple[float, float]:
    """The first derivative of the pairing's log-likelihood in x = ln(gamma_a / gamma_b) (``r`` = e^x) and minus
    its second: at step i (1-based) ``n - i`` of the other bot's seats are still in, and the first bot goes out at
    step k."""
    n = len(counts)
    grad = curv = 0.0
    for k, c in enumerate(counts, 1):
        if not c:
            continue
        for i in range(1, k + 1):
            m = n - i
            grad += c * (m / (r + m) if i == k else -r / (r + m))
            curv += c * r * m / (r + m) ** 2
    return grad, curv


__all__ = ["ANCHOR", "fit", "places"]
