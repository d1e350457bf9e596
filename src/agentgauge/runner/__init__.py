"""The runner: drives an agent through every case of a suite and records what happened.

``run_suite_file(path, RunConfig(...), run_dir)`` runs a suite file (what ``agentgauge run`` and
the pytest plugin call); ``run_suite(suite, RunConfig(...), run_dir)`` runs each case (× trials)
of a suite in memory with bounded concurrency, simulated tools and injected faults, retries, a
per-case timeout, a response cache and a crash-safe results journal; ``arun_suite`` is the same
as a coroutine. Both score with the suite's ``scorers:`` section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .._suite_code import SuiteCodePolicy, SuiteCodeRefused
    from ..providers import (
        CacheStats,
        PruneReport,
        ResponseCache,
        cache_file,
        cache_stats,
        default_cache_dir,
        prune_cache,
    )
    from ..rundir import RUN_FILE, MergeReport, Shard, merge_runs, read_record
    from ._code_check import CodeUse, SpecUse, refuse_located, suite_code_uses, suite_spec_uses
    from ._config import DEFAULT_AGENT, ExtraScorer, RunConfig, RunOutcome, public_spec
    from ._file import default_run_dir, run_suite_file, with_suite_scorers
    from ._matrix import (
        MATRIX_FILE,
        MatrixManifest,
        MatrixMember,
        MatrixOutcome,
        MemberOutcome,
        MemberRecord,
        is_matrix_dir,
        parse_agents,
        read_manifest,
        resume_matrix,
        run_matrix,
        suite_members,
    )
    from ._merge_check import suite_case_ids
    from ._path_check import PathUse, suite_path_uses
    from ._plan import config_hash, select_cases
    from ._prices import PRICES, cost_usd, price_for
    from ._progress import ProgressReporter
    from ._rate import parse_rate
    from ._recorded import ScoreOutcome, score_responses
    from ._sessions import Schedule, SessionResult, Sessions
    from ._suite import SuiteSurvey, arun_suite, run_suite
    from ._tools import ToolState
    from ._validate import SuiteValidation, ValidateConfig, validate_suite

#: public name -> the module that defines it (imported on first use)
_EXPORTS: dict[str, str] = {
    "SuiteCodePolicy": ".._suite_code",
    "SuiteCodeRefused": ".._suite_code",
    "CacheStats": "..providers",
    "PruneReport": "..providers",
    "ResponseCache": "..providers",
    "cache_file": "..providers",
    "cache_stats": "..providers",
    "default_cache_dir": "..providers",
    "prune_cache": "..providers",
    "RUN_FILE": "..rundir",
    "MergeReport": "..rundir",
    "Shard": "..rundir",
    "merge_runs": "..rundir",
    "read_record": "..rundir",
    "CodeUse": "._code_check",
    "SpecUse": "._code_check",
    "refuse_located": "._code_check",
    "suite_code_uses": "._code_check",
    "suite_spec_uses": "._code_check",
    "DEFAULT_AGENT": "._config",
    "ExtraScorer": "._config",
    "RunConfig": "._config",
    "RunOutcome": "._config",
    "public_spec": "._config",
    "default_run_dir": "._file",
    "run_suite_file": "._file",
    "with_suite_scorers": "._file",
    "MATRIX_FILE": "._matrix",
    "MatrixManifest": "._matrix",
    "MatrixMember": "._matrix",
    "MatrixOutcome": "._matrix",
    "MemberOutcome": "._matrix",
    "MemberRecord": "._matrix",
    "is_matrix_dir": "._matrix",
    "parse_agents": "._matrix",
    "read_manifest": "._matrix",
    "resume_matrix": "._matrix",
    "run_matrix": "._matrix",
    "suite_members": "._matrix",
    "suite_case_ids": "._merge_check",
    "PathUse": "._path_check",
    "suite_path_uses": "._path_check",
    "config_hash": "._plan",
    "select_cases": "._plan",
    "PRICES": "._prices",
    "cost_usd": "._prices",
    "price_for": "._prices",
    "Schedule": "._sessions",
    "SessionResult": "._sessions",
    "Sessions": "._sessions",
    "ProgressReporter": "._progress",
    "parse_rate": "._rate",
    "ScoreOutcome": "._recorded",
    "score_responses": "._recorded",
    "SuiteSurvey": "._suite",
    "arun_suite": "._suite",
    "run_suite": "._suite",
    "ToolState": "._tools",
    "SuiteValidation": "._validate",
    "ValidateConfig": "._validate",
    "validate_suite": "._validate",
}

__all__ = [
    "DEFAULT_AGENT",
    "MATRIX_FILE",
    "PRICES",
    "RUN_FILE",
    "CacheStats",
    "CodeUse",
    "ExtraScorer",
    "MatrixManifest",
    "MatrixMember",
    "MatrixOutcome",
    "MemberOutcome",
    "MemberRecord",
    "MergeReport",
    "PathUse",
    "ProgressReporter",
    "PruneReport",
    "ResponseCache",
    "RunConfig",
    "RunOutcome",
    "Schedule",
    "ScoreOutcome",
    "SessionResult",
    "Sessions",
    "Shard",
    "SpecUse",
    "SuiteCodePolicy",
    "SuiteCodeRefused",
    "SuiteSurvey",
    "SuiteValidation",
    "ToolState",
    "ValidateConfig",
    "arun_suite",
    "cache_file",
    "cache_stats",
    "config_hash",
    "cost_usd",
    "default_cache_dir",
    "default_run_dir",
    "is_matrix_dir",
    "merge_runs",
    "parse_agents",
    "parse_rate",
    "price_for",
    "prune_cache",
    "public_spec",
    "read_manifest",
    "read_record",
    "refuse_located",
    "resume_matrix",
    "run_matrix",
    "run_suite",
    "run_suite_file",
    "score_responses",
    "select_cases",
    "suite_case_ids",
    "suite_code_uses",
    "suite_members",
    "suite_path_uses",
    "suite_spec_uses",
    "validate_suite",
    "with_suite_scorers",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
