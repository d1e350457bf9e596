"""Generated suites: user goals and conversations written from a suite's tools (and world).

```python
from agentgauge.generate import GenerateConfig, generate_suite, write_generated

result = generate_suite("examples/quickstart", GenerateConfig(seed=7))
print(len(result.suite.cases), [d.line() for d in result.dropped])
write_generated(result, "generated/quickstart.yaml")
```

Offline it is a seeded template generator: the same source and seed give the same file, byte
for byte. ``GenerateConfig.generator`` names a model that rewrites the texts and proposes more
goals (its replies cached). Every case is validated, mutation-audited and played by an oracle
agent and two wrong ones before it is written; a case that fails a check is dropped with the
reason (docs/generate.md). ``agentgauge generate SUITE_OR_TOOLS -o OUT`` does the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .._suite_code import copy_suite_code
from ._agents import GuessingAgent, IgnoringAgent, OracleAgent
from ._check import Dropped
from ._config import FAMILIES, FAMILY_CATEGORY, MULTI_TURN, GenerateConfig
from ._generate import generate_cases
from ._result import FamilyCount, GeneratedSuite
from ._source import read_source
from ._write import suite_path

if TYPE_CHECKING:
    from ..providers import Provider

__all__ = [
    "FAMILIES",
    "FAMILY_CATEGORY",
    "MULTI_TURN",
    "Dropped",
    "FamilyCount",
    "GenerateConfig",
    "GeneratedSuite",
    "GuessingAgent",
    "IgnoringAgent",
    "OracleAgent",
    "generate_suite",
    "read_source",
    "write_generated",
]


def generate_suite(
    source: str | Path,
    config: GenerateConfig | None = None,
    *,
    provider: Provider | None = None,
    cache_dir: Path | None = None,
) -> GeneratedSuite:
    """Generate cases from the suite or tools file at ``source``. With ``config.generator``
    (or ``provider``, any object with ``async generate(request)``) a model paraphrases the texts
    and proposes goals."""
    config = config or GenerateConfig()
    path = Path(source)
    suite, folder = read_source(path)
    if config.generator is None and provider is None:
        return generate_cases(suite, config, source=str(source), source_dir=folder)
    from ._paraphrase import ModelWriter

    writer = ModelWriter.for_generator(
        config.generator, provider, cache=config.cache, cache_dir=cache_dir, seed=config.seed
    )
    try:
        return generate_cases(
            suite,
            config,
            source=str(source),
            source_dir=folder,
            rewrite=writer,
            propose=writer.propose if config.proposals else None,
        )
    finally:
        writer.close()


def write_generated(
    result: GeneratedSuite, out: str | Path, *, source_dir: Path | None = None
) -> list[Path]:
    """Write the suite to ``out`` (a ``.yaml`` file, or a folder: ``OUT/suite.yaml``) and copy
    the code files its tools and world name from ``source_dir``. Returns the files written."""
    path = suite_path(Path(out))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(result.text, encoding="utf-8")
    return [path, *copy_suite_code(result.code, source_dir, path.parent)]
