"""Red-team cases for a suite of one's own: attacks built from its tools and cases.

```python
from agentgauge import load_suite
from agentgauge.redteam import RedteamConfig, generate_redteam, write_redteam

result = generate_redteam(load_suite("examples/quickstart"), RedteamConfig(seed=7))
for choice in result.choices:
    print(choice.line())            # send_email: privileged (name has 'send': sends data out; ...)
write_redteam(result, "redteam/quickstart.yaml")
```

Same suite and seed, same file, byte for byte; nothing leaves the machine unless
``RedteamConfig.generator`` names a model to paraphrase the attacks (its replies are cached).
``agentgauge redteam SUITE -o OUT`` does the same from the command line (docs/redteam.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ._config import RedteamConfig
from ._generate import FamilyCount, RedteamSuite, generate_cases
from ._payloads import ATTACKER_DOMAIN, FAMILIES
from ._privilege import PrivilegeChoice, choose_privileged
from ._write import render_redteam, write_redteam

if TYPE_CHECKING:
    from ..providers import Provider
    from ..schema import Suite

__all__ = [
    "ATTACKER_DOMAIN",
    "FAMILIES",
    "FamilyCount",
    "PrivilegeChoice",
    "RedteamConfig",
    "RedteamSuite",
    "choose_privileged",
    "generate_redteam",
    "render_redteam",
    "write_redteam",
]


def generate_redteam(
    suite: Suite,
    config: RedteamConfig | None = None,
    *,
    source: str = "",
    provider: Provider | None = None,
    cache_dir: Path | None = None,
) -> RedteamSuite:
    """Generate the red-team suite of ``suite``. With ``config.generator`` (or ``provider``, any
    object with ``async generate(request)``), each attack text is paraphrased by that model."""
    config = config or RedteamConfig()
    if config.generator is None and provider is None:
        return generate_cases(suite, config, source=source)
    from ._paraphrase import Paraphraser

    paraphraser = Paraphraser.for_generator(
        config.generator, provider, cache=config.cache, cache_dir=cache_dir, seed=config.seed
    )
    try:
        return generate_cases(suite, config, source=source, rewrite=paraphraser)
    finally:
        paraphraser.close()
