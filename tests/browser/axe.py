"""axe-core in the page (shipped by axe-playwright-python, nothing downloaded at test time)."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

AXE = Axe()
BLOCKING = ("serious", "critical")


def serious_findings(page: Page, where: str) -> list[str]:
    """Return axe's serious and critical findings on the page, one readable line each."""
    violations = AXE.run(page).response["violations"]
    return [
        f"{where}: {violation['id']} ({violation['impact']}) {violation['help']}: "
        + ", ".join(str(node["target"]) for node in violation["nodes"][:5])
        for violation in violations
        if violation["impact"] in BLOCKING
    ]
