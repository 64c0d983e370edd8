"""A real Chromium (Debian's `chromium`, through Playwright's `executable_path`: nothing is
downloaded at run time) driving the web client the gateway serves over the real services."""

import re
import shutil
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, Page, async_playwright, expect

from tests.gateway.conftest import gateway  # noqa: F401  # the gateway the browsers open

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        chromium = await p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                           args=["--no-sandbox"])  # fmt: skip
        yield chromium
        await chromium.close()


async def person(browser: Browser, base: str, name: str) -> Page:
    """A signed-in guest in a browser context of its own (its own cookies)."""
    context = await browser.new_context(viewport={"width": 1100, "height": 800})
    page = await context.new_page()
    page.set_default_timeout(20_000)
    await page.goto(base + "/")
    await page.get_by_label("Your name").fill(name)
    await page.get_by_role("button", name="Sign in as a guest").click()
    await page.get_by_role("heading", name="Lobby").wait_for()
    return page


async def challenge(page: Page, ruleset: str, *, variant: str = "", position: str = "") -> None:
    """Open a challenge from the lobby's form, at seat 0, from `position` if given."""
    await page.get_by_label("Game").select_option(ruleset)
    if variant:  # a named variant, from the ruleset's own list
        await page.get_by_label("Variant").select_option(variant)
    if position:
        await page.get_by_text("Start from a position").click()
        await page.get_by_label(re.compile(r"^Position to start from")).fill(position)
    await page.get_by_role("button", name="Open").click()
    await expect(page.get_by_role("button", name="Withdraw")).to_be_visible()
