"""A custom import-linter contract: a package's private modules are private to that package.

``agentgauge.P._m`` (and anything below it, and every module below ``agentgauge.P.sub._m``) may
be imported directly only by modules inside ``agentgauge.P``; every other package imports the
names ``agentgauge.P`` exports in its ``__init__``. The base layer (``agentgauge._messages``,
``agentgauge.errors`` ...: private modules of the root package) is shared by every package and
is not checked. Exceptions are listed in the contract's ``ignore_imports``, each with a reason.

``FacadeContract``: a compatibility facade (``agentgauge.io``, kept for users' imports) is imported
by no module of the package outside it; the code imports the packages the facade re-exports.

Used by ``lint-imports`` (configured in pyproject.toml, run by scripts/test.sh); the current
directory is on ``sys.path`` there, so this file is found as ``scripts.import_contracts``.
"""

from __future__ import annotations

from importlinter import Contract, ContractCheck, fields, output
from importlinter.application import contract_utils


def _owner(module: str, root: str) -> str | None:
    """The top-level package of ``root`` that owns ``module`` (``None``: a root module)."""
    parts = module.split(".")
    if len(parts) < 3 or parts[0] != root:
        return None
    return parts[1]


def is_private_to_another(importer: str, imported: str, root: str = "agentgauge") -> bool:
    """Whether ``importer`` reaches a private module of a package it is not part of."""
    owner = _owner(imported, root)
    if owner is None or owner.startswith("_"):
        return False
    if importer == f"{root}.{owner}" or importer.startswith(f"{root}.{owner}."):
        return False
    return any(part.startswith("_") for part in imported.split(".")[2:])


class PrivateModulesContract(Contract):
    """Modules below ``root_package``'s packages whose name starts with ``_`` are imported only
    from inside their own package."""

    type_name = "private_modules"

    ignore_imports = fields.SetField(subfield=fields.ImportExpressionField(), required=False)
    unmatched_ignore_imports_alerting = fields.EnumField(
        contract_utils.AlertLevel, default=contract_utils.AlertLevel.ERROR
    )

    def check(self, graph, verbose):  # type: ignore[no-untyped-def]
        removal = contract_utils.remove_ignored_imports_and_report(
            graph=graph,
            ignore_imports=self.ignore_imports,  # type: ignore[arg-type]
            unmatched_alerting=self.unmatched_ignore_imports_alerting,  # type: ignore[arg-type]
        )
        root = self.session_options["root_packages"][0]
        illegal = []
        for imported in sorted(graph.modules):
            for importer in sorted(graph.find_modules_that_directly_import(imported)):
                if is_private_to_another(importer, imported, root):
                    lines = tuple(
                        d["line_number"]
                        for d in graph.get_import_details(importer=importer, imported=imported)
                    )
                    illegal.append((importer, imported, lines))
        return ContractCheck(
            kept=not illegal,
            warnings=list(removal.warnings),
            ignored_import_count=removal.ignored_import_count,
            metadata={"illegal": illegal},
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported, lines in check.metadata["illegal"]:
            output.print_error(
                f"- {importer} -> {imported} (l.{', '.join(map(str, lines))})", bold=False
            )
            output.new_line()
        output.print_error(
            "Import the name from the package's __init__ (export it there), move the helper to "
            "the layer that owns it, or list the import in ignore_imports with a reason.",
            bold=False,
        )
        output.new_line()


def imports_facade(importer: str, imported: str, facade: str) -> bool:
    """Whether ``importer`` (outside ``facade``) imports ``facade`` or a module below it."""
    inside = importer == facade or importer.startswith(facade + ".")
    return not inside and (imported == facade or imported.startswith(facade + "."))


class FacadeContract(Contract):
    """No module outside the ``facades`` imports them: they exist for users' old imports."""

    type_name = "facade"

    facades = fields.ListField(subfield=fields.StringField())

    def check(self, graph, verbose):  # type: ignore[no-untyped-def]
        illegal = []
        for facade in self.facades:  # type: ignore[attr-defined]
            below = {m for m in graph.modules if m == facade or m.startswith(facade + ".")}
            for imported in sorted(below):
                for importer in sorted(graph.find_modules_that_directly_import(imported)):
                    if imports_facade(importer, imported, facade):
                        lines = tuple(
                            d["line_number"]
                            for d in graph.get_import_details(importer=importer, imported=imported)
                        )
                        illegal.append((importer, imported, lines))
        return ContractCheck(kept=not illegal, warnings=[], metadata={"illegal": illegal})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported, lines in check.metadata["illegal"]:
            output.print_error(
                f"- {importer} -> {imported} (l.{', '.join(map(str, lines))})", bold=False
            )
            output.new_line()
        output.print_error(
            "agentgauge.io is a facade for users' imports: import the name from the package that "
            "owns it (files, formats, suites, rundir, importers, exchange; see "
            "docs/architecture.md).",
            bold=False,
        )
        output.new_line()
