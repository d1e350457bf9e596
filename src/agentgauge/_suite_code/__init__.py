"""The one policy for everything a suite or a run directory can name: code, endpoints that would
receive the user's credentials, and paths that would be written.

A suite is data, and so is a run directory (a CI artifact, a colleague's folder). Both may be
hostile. What they name is checked here, before anything is imported, connected to or written:

**Code.** A suite names Python code in a tool's ``function:`` fake (``tools[].simulation``,
``cases[].tool_results``, a case's inline ``tools``), an agent (``defaults.agent``,
``matrix.agents``) or judge (``defaults.judge``, ``scorers[].judge``) whose prefix imports a file
or module (``python:``, ``openai-agents:``, ``langgraph:``, ``pydantic-ai:``), and a scorer of one's
own (``scorers[].scorer: python:checks.py:fn``). Such code runs only when both hold:

1. the user opted in: ``--allow-suite-code``, ``AGENTGAUGE_ALLOW_SUITE_CODE=1``, or
   ``allow_suite_code`` in the user's own config file — never a setting of the suite;
2. it is a Python file inside the suite's own folder: ``fakes.py:fn``, or the shorthand
   ``fakes:fn`` / ``pkg.fakes:fn`` for ``fakes.py`` / ``pkg/fakes.py`` there. No module is ever
   imported by name (``subprocess:getoutput`` looks for ``subprocess.py`` in the suite's folder,
   never the standard library), and a path that leaves the folder (``..``, an absolute path, a
   symlink pointing out) is refused whatever the opt-in says. A framework agent named as a
   judge is refused outright (it cannot judge). A code agent read back from a run.json or a
   matrix.json runs only when the user names it again on the command line.

**Endpoints.** The user's credentials (``OPENAI_API_KEY`` ...) go only to endpoints the user named
(command line, environment, user config) or the vendor's own; one a suite or run directory names
needs ``--allow-suite-endpoints`` (:mod:`._endpoints`).

**Paths.** A path read from a run directory that is later written must stay inside it
(:mod:`._paths`).

An agent or judge named on the user's own command line (``--agent python:...``) is the user's
word and is not checked here.
"""

from __future__ import annotations

from ..errors import EndpointRefused, SuiteCodeRefused
from ._code import (
    CODE_PREFIXES,
    NAMED_BY_SUITE,
    CodeKind,
    CodeTarget,
    SuiteCodePolicy,
    code_prefix,
    defined_names,
    import_suite_file,
    resolve_attr,
)
from ._copy import copy_suite_code, suite_code_files
from ._endpoints import EndpointUse, Verdict, connector_use, shown_url
from ._optin import (
    CONFIG_KEY,
    ENDPOINTS_CONFIG_KEY,
    ENDPOINTS_ENV_VAR,
    ENDPOINTS_FLAG,
    ENV_VAR,
    FLAG,
    allowed,
    endpoints_allowed,
    user_config_file,
)
from ._paths import PathRefused, confined_child, field_where, open_regular, writable_file
from ._refs import (
    CodeRef,
    RefKind,
    SpecRef,
    case_code_refs,
    code_refs,
    header_code_refs,
    locate_ref,
    mcp_code_ref,
    spec_refs,
    with_checked_judges,
)

__all__ = [
    "CODE_PREFIXES",
    "CONFIG_KEY",
    "ENDPOINTS_CONFIG_KEY",
    "ENDPOINTS_ENV_VAR",
    "ENDPOINTS_FLAG",
    "ENV_VAR",
    "FLAG",
    "NAMED_BY_SUITE",
    "CodeKind",
    "CodeRef",
    "CodeTarget",
    "EndpointRefused",
    "EndpointUse",
    "PathRefused",
    "RefKind",
    "SpecRef",
    "SuiteCodePolicy",
    "SuiteCodeRefused",
    "Verdict",
    "allowed",
    "case_code_refs",
    "code_prefix",
    "code_refs",
    "confined_child",
    "connector_use",
    "copy_suite_code",
    "defined_names",
    "endpoints_allowed",
    "field_where",
    "header_code_refs",
    "import_suite_file",
    "locate_ref",
    "mcp_code_ref",
    "open_regular",
    "resolve_attr",
    "shown_url",
    "spec_refs",
    "suite_code_files",
    "user_config_file",
    "with_checked_judges",
    "writable_file",
]
