"""The Ray tests' cluster: a fresh local instance on loopback for one test module.

``address="local"`` starts a new instance, never one a stale ``/tmp/ray`` file points at; two CPUs
as on the CI machine. A module takes it as its ``cluster`` fixture::

    cluster = pytest.fixture(scope="module", name="cluster")(local_cluster)
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


def local_cluster() -> Iterator[str]:
    """Start the instance, yield its GCS address, shut it down (skipped without ray)."""
    ray = pytest.importorskip("ray")
    ctx = ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        logging_level=logging.WARNING,
        _node_ip_address="127.0.0.1",  # loopback only
    )
    try:
        yield str(ctx.address_info["gcs_address"])
    finally:
        ray.shutdown()
