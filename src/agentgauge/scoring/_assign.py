"""Optimal matching of expected calls (or items) to actual ones.

- :func:`assign`: maximum-weight assignment of rows to columns (Hungarian algorithm, O(n³)),
  where ``None`` marks a pair that may not be matched;
- :func:`align`: maximum-weight order-preserving alignment (a weighted longest common
  subsequence), where other columns may sit between the matched ones.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["align", "assign"]

Weights = Sequence[Sequence[float | None]]
_INF = float("inf")


def assign(weights: Weights, n_cols: int) -> list[tuple[int, int]]:
    """Pairs ``(row, col)`` maximising the total weight; forbidden (``None``) pairs never appear.

    Rows or columns may stay unmatched. Every allowed weight should be positive so that matching
    a pair is always better than leaving both sides unmatched.
    """
    n_rows = len(weights)
    if n_rows == 0 or n_cols == 0:
        return []
    if n_rows == 1 and n_cols == 1:
        return [] if weights[0][0] is None else [(0, 0)]
    if n_rows == 1:
        row = weights[0]
        best, best_j = -_INF, -1
        for j in range(n_cols):
            w = row[j]
            if w is not None and w > best:
                best, best_j = w, j
        return [] if best_j < 0 else [(0, best_j)]
    # minimisation over n rows and m = n_cols + n_rows columns: the extra columns are "unmatched"
    # (cost 0), so a row is never forced onto a forbidden or poor pair
    n, m = n_rows, n_cols + n_rows
    big = 1.0
    for row_w in weights:
        for w in row_w:
            if w is not None:
                big += abs(w)
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n):
        ci = cost[i + 1]
        row_w = weights[i]
        for j in range(n_cols):
            w = row_w[j]
            ci[j + 1] = big if w is None else -w
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [_INF] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta = _INF
            j1 = 0
            ci = cost[i0]
            ui0 = u[i0]
            for j in range(1, m + 1):
                if not used[j]:
                    cur = ci[j] - ui0 - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    pairs: list[tuple[int, int]] = []
    for j in range(1, n_cols + 1):
        i = p[j]
        if i and weights[i - 1][j - 1] is not None:
            pairs.append((i - 1, j - 1))
    pairs.sort()
    return pairs


def align(weights: Weights, n_cols: int) -> list[tuple[int, int]]:
    """Order-preserving pairs ``(row, col)`` (rows and columns increasing) of maximum weight."""
    n = len(weights)
    if n == 0 or n_cols == 0:
        return []
    m = n_cols
    dp = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        row_w = weights[i - 1]
        prev, cur = dp[i - 1], dp[i]
        for j in range(1, m + 1):
            best = prev[j] if prev[j] >= cur[j - 1] else cur[j - 1]
            w = row_w[j - 1]
            if w is not None and prev[j - 1] + w > best:
                best = prev[j - 1] + w
            cur[j] = best
    pairs: list[tuple[int, int]] = []
    i, j = n, m
    while i > 0 and j > 0:
        w = weights[i - 1][j - 1]
        if (
            w is not None
            and dp[i][j] == dp[i - 1][j - 1] + w
            and dp[i][j] > dp[i - 1][j]
            and dp[i][j] > dp[i][j - 1]
        ):
            pairs.append((i - 1, j - 1))
            i -= 1
            j -= 1
        elif dp[i][j] == dp[i - 1][j]:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return pairs
