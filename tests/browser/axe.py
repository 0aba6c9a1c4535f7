"""axe-core in the page (shipped by axe-playwright-python, nothing downloaded at test time)."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Locator, Page

from tests.browser.chat import screenshot

AXE = Axe()
BLOCKING = ("serious", "critical")
LOOKS = [(width, scheme) for width in (375, 1366) for scheme in ("light", "dark")]


def serious_findings(page: Page, where: str) -> list[str]:
    """Return axe's serious and critical findings on the page, one readable line each."""
    violations = AXE.run(page).response["violations"]
    return [
        f"{where}: {violation['id']} ({violation['impact']}) {violation['help']}: "
        + ", ".join(str(node["target"]) for node in violation["nodes"][:5])
        for violation in violations
        if violation["impact"] in BLOCKING
    ]


def look_at(page: Page, name: str) -> None:
    """Screenshot the page in every look; fail on anything axe finds serious, or a sideways
    scroll on a phone."""
    findings = []
    for width, scheme in LOOKS:
        page.set_viewport_size({"width": width, "height": 900})
        page.emulate_media(color_scheme=scheme)
        screenshot(page, f"{name}-{width}-{scheme}")
        findings += serious_findings(page, f"{name} {width} {scheme}")
        fits = page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        assert fits, f"{name} scrolls sideways at {width} px"
    page.set_viewport_size({"width": 1366, "height": 900})
    page.emulate_media(color_scheme="light")
    assert not findings, findings


def look_wide_light_and_narrow_dark(target: Page | Locator, name: str, what: str) -> None:
    """Screenshot `target` at 1366 px light and 375 px dark (`name`, `name`-dark-375), with no
    serious axe finding and nothing wider than the narrow screen."""
    page = target if isinstance(target, Page) else target.page
    page.set_viewport_size({"width": 1366, "height": 1000})
    screenshot(target, name)
    assert serious_findings(page, what) == []
    page.set_viewport_size({"width": 375, "height": 900})
    page.emulate_media(color_scheme="dark")
    screenshot(target, f"{name}-dark-375")
    assert serious_findings(page, f"{what}, dark, 375 px") == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
