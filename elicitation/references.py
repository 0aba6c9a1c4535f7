"""The reference payloads: the golden request files that say where they came from.

Real payloads from public agents and the MCP specs live in `elicitation/golden/requests/` with
their `source`; the tests and the workbench's examples menu both read them from here.
"""

import json
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden"


def golden_files(folder: str) -> list[Path]:
    """Return the golden files of one folder (`requests`, `degraded`, `answers`), by name."""
    return sorted((GOLDEN / folder).glob("*.json"))


def reference_examples() -> dict[str, dict]:
    """Return the real payloads by name: {"name", "source", "message", "requestedSchema"}."""
    examples = {}
    for path in golden_files("requests"):
        fixture = json.loads(path.read_text())
        if "source" in fixture:
            examples[path.stem] = {
                "name": path.stem,
                "source": fixture["source"],
                **fixture["payload"],
            }
    return examples
