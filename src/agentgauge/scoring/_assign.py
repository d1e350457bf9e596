"""Optimal matching of expected calls (or items) to actual ones.

- :func:`assign`: maximum-weight assignment of rows to columns (Hungarian algorithm, O(n³)),
  where ``None`` marks a pair that may not be matched;
- :func:`align`: maximum-weight order-preserving alignment (a weighted longest common
  subsequence), where other columns may sit between the matched ones;
- :func:`align_groups`: the same when rows and columns come in groups without an order inside
  (the parallel calls of one assistant message, the calls of one expected step).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["align", "align_groups", "assign"]

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


#: above this many rows + columns in one pair of groups, :func:`align_groups` keeps listed order
MAX_GROUP_CALLS = 12


def _groups(keys: Sequence[int]) -> list[list[int]]:
    by_key: dict[int, list[int]] = {}
    for idx, k in enumerate(keys):
        by_key.setdefault(k, []).append(idx)
    return [by_key[k] for k in sorted(by_key)]


_State = tuple[int, int]  # (bitmask of used rows of the row group, of used cols of the col group)
_Back = tuple[tuple[int, int], _State, tuple[int, int] | None] | None
_Cell = dict[_State, tuple[float, _Back]]


def _offer(cell: _Cell, state: _State, value: float, back: _Back) -> None:
    old = cell.get(state)
    if old is None or value > old[0]:
        cell[state] = (value, back)


def align_groups(
    weights: Weights, row_keys: Sequence[int], col_keys: Sequence[int]
) -> list[tuple[int, int]]:
    """Pairs ``(row, col)`` of maximum weight with no inversion between groups.

    ``row_keys[i]`` / ``col_keys[j]`` give each row's / column's group; groups are ordered by key
    and have no order inside. Two pairs ``(i, j)`` and ``(k, l)`` may not cross: when
    ``row_keys[i] < row_keys[k]`` then ``col_keys[j] <= col_keys[l]``, and the other way round.
    Pairs inside one group pair may come in any order. A dynamic programme over the grid of
    groups, tracking which members of the current row and column group are used; when a group
    pair holds more than :data:`MAX_GROUP_CALLS` members, the listed order is used instead
    (:func:`align`).
    """
    n_cols = len(col_keys)
    if not weights or n_cols == 0:
        return []
    rgs, cgs = _groups(row_keys), _groups(col_keys)
    singletons = len(rgs) == len(weights) and len(cgs) == n_cols  # sequential calls: plain LCS
    if singletons or max(len(g) for g in rgs) + max(len(g) for g in cgs) > MAX_GROUP_CALLS:
        order_r = [i for g in rgs for i in g]
        order_c = [j for g in cgs for j in g]
        sub = [[weights[i][j] for j in order_c] for i in order_r]
        return sorted((order_r[a], order_c[b]) for a, b in align(sub, n_cols))
    n_r, n_c = len(rgs), len(cgs)
    # cells[p][q]: state -> (value, back); back = (previous cell, previous state, edge added)
    cells: list[list[_Cell]] = [[{} for _ in range(n_c)] for _ in range(n_r)]
    best_val, best_at = 0.0, None
    for p in range(n_r):
        rg = rgs[p]
        for q in range(n_c):
            cg = cgs[q]
            cell = _carried(cells, p, q)
            edges = [
                (a, b, w)
                for a, i in enumerate(rg)
                for b, j in enumerate(cg)
                if (w := weights[i][j]) is not None
            ]
            if edges:
                _add_edges(cell, edges, (p, q), rg, cg)
            cells[p][q] = cell
            for st, (v, _) in cell.items():
                if v > best_val:
                    best_val, best_at = v, ((p, q), st)
    return _traced_back(cells, best_at)


def _carried(cells: list[list[_Cell]], p: int, q: int) -> _Cell:
    """Cell ``(p, q)`` before its own edges: the best of the cells it can follow."""
    cell: _Cell = {(0, 0): (0.0, None)}
    if p > 0 and q > 0:
        prev = cells[p - 1][q - 1]
        top = max(prev.items(), key=lambda kv: kv[1][0])
        _offer(cell, (0, 0), top[1][0], ((p - 1, q - 1), top[0], None))
    if q > 0:  # same row group, next column group: keep the used rows
        for st, (v, _) in cells[p][q - 1].items():
            _offer(cell, (st[0], 0), v, ((p, q - 1), st, None))
    if p > 0:  # next row group, same column group: keep the used columns
        for st, (v, _) in cells[p - 1][q].items():
            _offer(cell, (0, st[1]), v, ((p - 1, q), st, None))
    return cell


def _add_edges(
    cell: _Cell,
    edges: list[tuple[int, int, float]],
    at: tuple[int, int],
    rg: list[int],
    cg: list[int],
) -> None:
    """Extend ``cell``'s states by the group pair's ``edges`` (member a of the row group to
    member b of the column group, weight w)."""
    # an edge adds one row and one column: visit the states by members used, so a state is
    # final before it is extended
    levels: dict[int, list[_State]] = {}
    for st in cell:
        levels.setdefault(st[0].bit_count() + st[1].bit_count(), []).append(st)
    level = 0
    top_level = max(levels)
    while level <= top_level:
        for st in levels.get(level, ()):
            v = cell[st][0]
            for a, b, w in edges:
                if st[0] >> a & 1 or st[1] >> b & 1:
                    continue
                nxt = (st[0] | 1 << a, st[1] | 1 << b)
                if nxt not in cell:
                    levels.setdefault(level + 2, []).append(nxt)
                    top_level = max(top_level, level + 2)
                _offer(cell, nxt, v + w, (at, st, (rg[a], cg[b])))
        level += 1


def _traced_back(
    cells: list[list[_Cell]], best_at: tuple[tuple[int, int], _State] | None
) -> list[tuple[int, int]]:
    """The pairs on the path to the best state, sorted."""
    pairs: list[tuple[int, int]] = []
    at = best_at
    while at is not None:
        (p, q), st = at
        back = cells[p][q][st][1]
        if back is None:
            break
        prev_cell, prev_state, edge = back
        if edge is not None:
            pairs.append(edge)
        at = (prev_cell, prev_state)
    pairs.sort()
    return pairs
