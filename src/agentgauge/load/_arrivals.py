"""Poisson arrivals for an open-loop load: the times sessions arrive at, seeded.

Inside each segment the rate moves linearly; arrivals are a non-homogeneous Poisson process,
drawn by thinning (candidates at the segment's highest rate, each kept with probability
rate(t) / highest), so the count over a segment has mean equal to the integral of its rate and
the gaps are exponential where the rate is held. The same seed gives the same arrivals.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from ._plan import Segment

__all__ = ["poisson_arrivals"]


def poisson_arrivals(segments: Sequence[Segment], seed: int) -> Iterator[float]:
    """Arrival times (seconds from the start of the load phase), increasing, lazily."""
    rng = random.Random(f"agentgauge-load/{seed}")
    for seg in segments:
        top = max(seg.begin, seg.end)
        if top <= 0:
            continue
        t = seg.start_s
        while True:
            t += rng.expovariate(top)
            if t >= seg.end_s:
                break
            if seg.begin == seg.end or rng.random() * top < seg.at(t):
                yield t
