"""The lobby in the browser: accounts made and used from the sign-in page, a guest who keeps
its games by making one, and two people paired by the matchmaking queue."""

import re
from collections.abc import Callable

from playwright.async_api import Browser, Page, expect

from services.runtime.config import Settings
from tests.browser.conftest import person
from tests.gateway.conftest import a_gateway

PASSWORD = "a long enough password"


async def blank(browser: Browser, gateway: str) -> Page:
    context = await browser.new_context(viewport={"width": 1100, "height": 800})
    page = await context.new_page()
    page.set_default_timeout(20_000)
    await page.goto(gateway + "/")
    return page


async def test_an_account_made_in_one_browser_signs_in_in_another(
    browser: Browser, gateway: str
) -> None:
    home = await blank(browser, gateway)
    await home.get_by_label("Your name").fill("Midna")
    await home.get_by_label("Password").fill(PASSWORD)
    await home.get_by_role("button", name="Create an account").click()
    await expect(home.get_by_role("heading", name="Lobby")).to_be_visible()
    await expect(home.locator("#me")).to_contain_text("Midna")
    await expect(home.locator("#me")).not_to_contain_text("guest")
    # elsewhere: a wrong password is refused on the page, the right one signs in
    away = await blank(browser, gateway)
    await away.get_by_label("Your name").fill("midna")
    await away.get_by_label("Password").fill("not the password")
    await away.get_by_role("button", name="Sign in", exact=True).click()
    await expect(away.get_by_role("alert")).to_contain_text("wrong name or password")
    await away.get_by_label("Password").fill(PASSWORD)
    await away.get_by_role("button", name="Sign in", exact=True).click()
    await expect(away.get_by_role("heading", name="Lobby")).to_be_visible()
    await expect(away.locator("#me")).to_contain_text("Midna")
    # a guest may not take an account's name
    guest = await blank(browser, gateway)
    await guest.get_by_label("Your name").fill("MIDNA")
    await guest.get_by_role("button", name="Sign in as a guest").click()
    await expect(guest.get_by_role("alert")).to_contain_text("is an account's name")


async def test_a_guest_makes_an_account_and_keeps_its_game(browser: Browser, gateway: str) -> None:
    # (the store outlives each test: an account's name is taken for the rest of the session)
    ann = await person(browser, gateway, "Saria")
    await ann.get_by_label("Game").select_option("chess3d")
    await ann.get_by_role("button", name="Play a house bot").click()
    await ann.wait_for_url(re.compile(r"#/games/"))
    game = ann.url.split("#")[1]
    await ann.get_by_role("link", name="make an account").click()
    await expect(ann.get_by_label("Your name")).to_have_value("Saria")
    await ann.get_by_label("Password").fill(PASSWORD)
    await ann.get_by_role("button", name="Create an account").click()
    await expect(ann.get_by_role("heading", name="Lobby")).to_be_visible()
    await expect(ann.locator("#me")).not_to_contain_text("guest")
    await expect(ann.get_by_role("link", name=game.removeprefix("/games/")).first).to_be_visible()


async def test_two_people_find_each_other_through_the_queue(browser: Browser, gateway: str) -> None:
    ann = await person(browser, gateway, "Ann")
    bob = await person(browser, gateway, "Bob")
    await ann.get_by_label("Game").select_option("chess3d")
    await ann.get_by_role("button", name="Find an opponent").click()
    await expect(ann.get_by_role("status")).to_contain_text("Looking for an opponent: chess3d")
    await bob.get_by_label("Game").select_option("chess3d")
    await bob.get_by_role("button", name="Find an opponent").click()
    for page in (ann, bob):
        await page.wait_for_url(re.compile(r"#/games/"))
    assert ann.url.split("#")[1] == bob.url.split("#")[1]
    await expect(ann.get_by_text("(you)")).to_have_count(1)
    await expect(bob.get_by_text("(you)")).to_have_count(1)


async def test_a_person_alone_in_the_queue_is_told_then_plays_a_bot_of_the_level_chosen(
    browser: Browser, stack: Settings, role_settings: Callable[[str], Settings]
) -> None:
    """On a gateway whose queue gives bots after 2 s: the lobby says which bot comes and
    when, then opens the game, a level-1 bot at the other seat."""
    async with a_gateway(role_settings, queue_bot_after_s=2) as base:
        ann = await person(browser, base, "Ann")
        await ann.get_by_label("Game").select_option("chess3d")
        await ann.get_by_label("Bot level").select_option("1")
        await ann.get_by_role("button", name="Find an opponent").click()
        await expect(ann.get_by_role("status")).to_contain_text("a level 1 bot takes the seat")
        await ann.wait_for_url(re.compile(r"#/games/"))
        await expect(ann.get_by_text("Bot, level 1 (random)")).to_be_visible()
        await ann.context.close()
