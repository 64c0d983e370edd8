"""A real Chromium (Debian's `chromium`, through Playwright's `executable_path`: nothing is
downloaded at run time) driving the web client the gateway serves over the real services."""

import re
import shutil
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, Locator, Page, async_playwright, expect

from tests.gateway.conftest import gateway  # noqa: F401  # the gateway the browsers open

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as p:
        chromium = await p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                           args=["--no-sandbox"])  # fmt: skip
        yield chromium
        await chromium.close()


async def person(browser: Browser, base: str, name: str, init_script: str = "") -> Page:
    """A signed-in guest in a browser context of its own (its own cookies); `init_script` runs
    in each of its pages before the page's own."""
    context = await browser.new_context(viewport={"width": 1100, "height": 800})
    if init_script:
        await context.add_init_script(init_script)
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


SLOW = 20_000  # ms: waits that cross the services (or the lobby's 2 s poll) on a slow machine


async def meet(
    browser: Browser,
    base: str,
    ruleset: str,
    names: tuple[str, str],
    *,
    options: str = "",
    position: str = "",
) -> tuple[Page, Page]:
    """At the gateway `base`, the first person opens a `ruleset` challenge (its options typed
    into the form's Options field: they join the variant with "+"), the second accepts that one,
    by its challenger's name; both reach the game."""
    first, second = names
    ann = await person(browser, base, first)
    bob = await person(browser, base, second)
    if options:
        await ann.get_by_label("Options").fill(options)
    await challenge(ann, ruleset, position=position)
    await bob.reload()
    row = bob.get_by_role("row").filter(has_text=ruleset).filter(has_text=first)
    await row.get_by_role("button", name="Accept").click()
    await bob.wait_for_url(re.compile(r"#/games/"))
    await ann.wait_for_url(re.compile(r"#/games/"), timeout=SLOW)
    return ann, bob


def moves(page: Page) -> Locator:
    """The game's move list, an item a move."""
    return page.get_by_role("list", name="moves").locator("li")


async def two_clicks(page: Page, board: str, start: str, end: str, targets: int) -> None:
    """On the board `svg.{board}`, click `start` (its `targets` second squares light up), then
    the highlighted `end`."""

    def cell(name: str) -> Locator:
        return page.locator(f'svg.{board} [data-cell="{name}"]')

    await expect(page.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    await cell(start).click()
    await expect(page.locator(f"svg.{board} .cell.target")).to_have_count(targets)
    await expect(cell(end)).to_have_class(re.compile(r"\btarget\b"))
    await cell(end).click()


PASSWORD = "a long enough password"


async def account(browser: Browser, base: str, name: str) -> Page:
    """Someone who makes an account (`name`, a password) on the sign-in page, in a browser
    context of its own; signed in, at the lobby. Rated games need two of them."""
    context = await browser.new_context(viewport={"width": 1100, "height": 800})
    page = await context.new_page()
    page.set_default_timeout(20_000)
    await page.goto(base + "/")
    await page.get_by_label("Your name").fill(name)
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Create an account").click()
    await page.get_by_role("heading", name="Lobby").wait_for()
    return page


async def rated_game(first: Page, second: Page, opponent: str, clock: str = "1+1 bullet") -> str:
    """`first` opens a rated 3-D Chess challenge (White, seat 0) for the account `opponent`
    with the lobby form's `clock` preset; `second` (that account) accepts it from its
    "Challenges to you" list; both pages reach the game, whose id this returns."""
    await first.get_by_label("Game").select_option("chess3d")
    await first.get_by_label("Clock").select_option(label=clock)
    await first.get_by_label("Rated").check()
    await first.get_by_label("Opponent (name)").fill(opponent)
    await first.get_by_role("button", name="Open").click()
    await expect(first.get_by_role("button", name="Withdraw")).to_be_visible()
    mine = second.get_by_role("table", name="Challenges to you")  # the lobby's 2 s poll
    await mine.get_by_role("button", name="Accept").click(timeout=SLOW)
    await second.wait_for_url(re.compile(r"#/games/"))
    await first.wait_for_url(re.compile(r"#/games/"), timeout=SLOW)
    game = second.url.split("#/games/")[1]
    assert first.url.split("#/games/")[1] == game
    return game
