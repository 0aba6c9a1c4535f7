"""The golden contract files in the repository, and the real payloads among them.

The reference payloads (from public agents and the MCP specs) live in the golden request files
with the `source` they came from, so every test reads them from inside the checkout.
"""

import json
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "elicitation" / "golden"


def golden_files(folder: str) -> list[Path]:
    return sorted((GOLDEN / folder).glob("*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def reference_examples() -> dict[str, dict]:
    """Return the real payloads by name: {"name", "source", "message", "requestedSchema"}."""
    examples = {}
    for path in golden_files("requests"):
        fixture = load(path)
        if "source" in fixture:
            examples[path.stem] = {
                "name": path.stem,
                "source": fixture["source"],
                **fixture["payload"],
            }
    return examples
