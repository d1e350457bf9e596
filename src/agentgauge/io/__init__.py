"""Reading and writing files: suites, results, importers, exporters and tool converters."""

from ._results import RESULTS_FILE, ResultsWriter, iter_results

__all__ = ["RESULTS_FILE", "ResultsWriter", "iter_results"]
