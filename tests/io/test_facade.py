"""``agentgauge.io`` is a compatibility facade since the io/ split (issue 23): it still exports
every name it exported before, each the very object of the package that now owns it, and
``agentgauge.io.importers`` still works."""

from __future__ import annotations

import importlib

import agentgauge.io

#: what ``agentgauge.io`` exported before the split; a name dropped from the facade fails here
BEFORE_THE_SPLIT = [
    "CapturedCase",
    "CategoryCount",
    "CategoryMix",
    "Document",
    "EXPORT_FORMATS",
    "ExportFormat",
    "Finished",
    "IMPORTERS",
    "ImportOptions",
    "LOCK_FILE",
    "LintFinding",
    "LoadedSuite",
    "McpCallResult",
    "McpConnection",
    "McpLoad",
    "MergeReport",
    "Origin",
    "OtelExport",
    "OtlpTarget",
    "RESPONSES_FILE",
    "RESULTS_FILE",
    "RUN_FILE",
    "RecordedResponse",
    "ResultsWriter",
    "STRATA_TARGETS",
    "Severity",
    "Shard",
    "StreamedSuite",
    "SuiteCheck",
    "TOOL_FORMATS",
    "TRANSCRIPT_FORMATS",
    "ToolFormat",
    "TranscriptError",
    "TranscriptFormat",
    "bfcl_schema_to_json_schema",
    "bfcl_type",
    "capture_cases",
    "category_mix",
    "check_suite",
    "detect_format",
    "encode_result",
    "export_run_otlp",
    "export_suite",
    "find_suite_file",
    "header_hash",
    "import_suite",
    "iter_light_results",
    "iter_results",
    "journal_has_results",
    "json_text_calls",
    "lint_suite",
    "list_mcp_tools",
    "load_cases",
    "load_record",
    "load_suite",
    "load_suite_any",
    "looks_like_bfcl",
    "mcp_source_from_cli",
    "merge_runs",
    "merge_tools",
    "messages_from_data",
    "messages_to_format",
    "open_mcp",
    "open_suite",
    "otlp_target",
    "pair_bucket",
    "read_document",
    "read_record",
    "read_responses",
    "read_suite",
    "read_tools_file",
    "read_yaml_text",
    "responses_from_metadata",
    "results_to_otlp",
    "run_dir_lock",
    "scan_finished",
    "suite_hash",
    "tools_from_data",
    "tools_to_format",
    "validation_problems",
    "write_json_atomic",
    "write_record",
    "write_responses",
    "write_suite",
]

OWNERS = ["files", "formats", "suites", "rundir", "importers", "exchange"]


def test_the_facade_exports_the_names_it_had() -> None:
    assert sorted(agentgauge.io.__all__) == BEFORE_THE_SPLIT


def test_each_name_is_the_owning_packages_object() -> None:
    owners = [importlib.import_module(f"agentgauge.{p}") for p in OWNERS]
    for name in agentgauge.io.__all__:
        homes = [m for m in owners if name in m.__all__]
        assert len(homes) == 1, (name, [m.__name__ for m in homes])
        assert getattr(agentgauge.io, name) is getattr(homes[0], name)


def test_io_importers_still_works() -> None:
    import agentgauge.importers
    import agentgauge.io.importers

    assert agentgauge.io.importers.__all__ == agentgauge.importers.__all__
    for name in agentgauge.importers.__all__:
        assert getattr(agentgauge.io.importers, name) is getattr(agentgauge.importers, name)
    assert agentgauge.io.importers.import_suite is agentgauge.io.import_suite
