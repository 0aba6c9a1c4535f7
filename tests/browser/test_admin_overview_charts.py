"""The overview's charts as a reviewer sees them: on a laptop and a phone, light and dark,
drawn as SVG with nothing sideways to scroll and nothing axe finds serious."""

import pytest
from playwright.sync_api import expect

from tests.browser.axe import serious_findings
from tests.browser.chat import screenshot
from tests.support.admin_support import PASSWORD


@pytest.fixture(scope="module")
def seeded(live_server) -> None:
    live_server.manage(
        "shell",
        "-c",
        "from tests.support.admin_support import PASSWORD, make_staff, seed_review_data\n"
        "make_staff('chart-ada', superuser=True, password=PASSWORD)\n"
        "seed_review_data('alice', spread=True)\n",
    )


@pytest.mark.parametrize("width", [1366, 375])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_charts_read_at_every_size(browser, live_server, seeded, width, scheme) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    page.goto(live_server.url + "/admin/")
    page.fill("#id_username", "chart-ada")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.goto(live_server.url + "/admin/elicitation/part/overview/")
    by_day = page.locator("#chart-by-day svg")
    expect(by_day).to_be_visible()
    expect(page.locator("#chart-answer-time svg rect.chart-bar")).to_have_count(8)
    assert by_day.locator("rect.chart-bar").count() >= 1
    screenshot(page, f"admin-overview-{width}-{scheme}")
    # Each chart fits its screen (the per-agent timing table below is
    # wider than a 375 px phone: that is the table's, left alone here).
    for chart in page.locator(".overview-chart").all():
        box = chart.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    assert serious_findings(page, f"overview {width} {scheme}") == []
    context.close()
