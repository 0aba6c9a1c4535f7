"""The golden contract files in the repository, and the real payloads among them.

The reference payloads (from public agents and the MCP specs) live in the golden request files
with the `source` they came from; `elicitation.references` reads them for the tests and the app.
"""

import json
from pathlib import Path

from elicitation.references import GOLDEN, golden_files, reference_examples

__all__ = ["GOLDEN", "golden_files", "load", "reference_examples"]


def load(path: Path) -> dict:
    return json.loads(path.read_text())
