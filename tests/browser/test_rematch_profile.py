"""A rematch and a player's profile through the web client (issue 23), over a gateway with the
read model (tests/gateway/test_players.py's `site`: the projector's passes run on demand, the
ratings pass's settle window set to none); and a first visit with no console error."""

import re
import uuid

from playwright.async_api import Browser, ConsoleMessage, Error, Locator, Page, expect

from tests.browser.conftest import SLOW, account, rated_game
from tests.gateway.test_players import Site, site  # noqa: F401  # the gateway with a read model


def status(page: Page, words: str) -> Locator:
    return page.get_by_role("status").filter(has_text=re.compile(rf"^\s*{re.escape(words)}\s*$"))


async def resign(page: Page, words: str) -> None:
    """`page`'s player resigns; the page then says `words` (the game has ended)."""
    await page.get_by_role("button", name="resign").click()
    await expect(page.locator("p.result")).to_have_text(words, timeout=SLOW)


async def test_a_rematch_offered_and_accepted_then_both_games_on_the_profile_with_a_rating(
    browser: Browser,
    site: Site,  # noqa: F811
) -> None:
    """Issue 23: a rated 1+1 game between two accounts, ended by White's resignation; White
    offers a rematch on the game page, Black accepts it there: both pages go to the new game,
    colours swapped (the former Black now "You play White"); its White resigns in turn. The
    former White's name on the game page links to `#/players/<id>`; there his profile lists
    both games, rated, with their results in words ("Won by resignation", "Lost by
    resignation") and replay and audit links; once the ratings pass has rated them (as its
    10 s round would, 30 s after), the reloaded profile shows a provisional ("?") bullet
    rating row of 2 games and a rating history of two points."""
    tag = uuid.uuid4().hex[:6]
    ann_name, bob_name = f"AnnRm-{tag}", f"BobRm-{tag}"
    ann = await account(browser, site.base, ann_name)
    bob = await account(browser, site.base, bob_name)
    first = await rated_game(ann, bob, bob_name, "1+1 bullet")
    await expect(ann.locator(".you-play")).to_have_text("You play White")
    await resign(ann, "You lost by resignation")
    await expect(bob.locator("p.result")).to_have_text("You won by resignation")

    # The rematch: offered by Ann, answered on Bob's page (its poll brings the offer)
    await ann.get_by_role("button", name="Offer a rematch").click()
    await expect(status(ann, f"Rematch offered: waiting for {bob_name}.")).to_be_visible()
    await expect(status(bob, f"{ann_name} offers a rematch (you would play White).")).to_be_visible(
        timeout=SLOW
    )
    await expect(bob.get_by_role("button", name="Decline")).to_be_visible()
    await bob.get_by_role("button", name="Accept").click()
    for page in (ann, bob):  # Ann's page follows its own offer to the game
        await page.wait_for_url(re.compile(r"#/games/(?!" + first + r")"), timeout=SLOW)
    second = bob.url.split("#/games/")[1]
    assert ann.url.split("#/games/")[1] == second != first
    await expect(bob.locator(".you-play")).to_have_text("You play White")
    await expect(ann.locator(".you-play")).to_have_text("You play Black")
    await expect(status(bob, "Your move")).to_be_visible()
    await expect(ann.get_by_role("list", name="clocks").locator("li.clock-seat")).to_have_count(2)
    await resign(bob, "You lost by resignation")
    await expect(ann.locator("p.result")).to_have_text("You won by resignation")

    # Ann's name on the game page: a link to her profile, by player id (which the profile
    # resolves through the read model: the projector has projected the games first, as its feed
    # would within moments)
    await site.project(first, second)
    link = ann.locator("ul.players").get_by_role("link", name=ann_name)
    ann_id = await ann.evaluate("async () => (await (await fetch('/api/me')).json()).player.id")
    await expect(link).to_have_attribute("href", f"#/players/{ann_id}")
    await link.click()
    await expect(ann.get_by_role("heading", name=ann_name, exact=True)).to_be_visible()
    games = ann.get_by_role("table", name="Games").locator("tbody tr")

    async def listed() -> None:
        await expect(games).to_have_count(2, timeout=SLOW)
        newest, older = games.nth(0), games.nth(1)  # newest first
        await expect(newest.locator("td").nth(2)).to_have_text("Won by resignation")
        await expect(older.locator("td").nth(2)).to_have_text("Lost by resignation")
        for row, game in ((newest, second), (older, first)):
            await expect(row.locator("td").first).to_have_text("chess3d · rated")
            await expect(row.get_by_role("link", name=bob_name)).to_be_visible()
            await expect(row.get_by_role("link", name="replay")).to_have_attribute(
                "href", f"#/games/{game}"
            )
            await expect(row.get_by_role("link", name="audit")).to_have_attribute(
                "href", f"#/audit/{game}"
            )

    await listed()
    await expect(ann.get_by_text("No rated games yet.")).to_be_visible()  # not settled yet

    await site.ratings.run()  # the ratings pass's round
    await ann.reload()
    await listed()
    row = ann.get_by_role("table", name="Ratings").locator("tbody tr")
    await expect(row).to_have_count(1)
    cells = row.locator("td")
    await expect(cells).to_have_text(
        ["chess3d", "standard", "bullet", re.compile(r"^\d+\?$"), re.compile(r"^\d+$"), "2"]
    )
    rating = int((await cells.nth(3).inner_text()).rstrip("?"))
    assert rating != 1500  # it changed: a loss, then a win against a new player
    plot = ann.locator("svg.history")
    await expect(plot).to_have_count(1)
    await expect(plot).to_have_attribute(
        "aria-label", re.compile(rf"^chess3d standard bullet: from \d+ to {rating} over 2 rated")
    )
    await expect(plot.locator("circle.dot")).to_have_count(2)  # the history's two points
    titles = await plot.locator("circle.dot title").all_text_contents()
    assert [t.split(" after ")[1].split(",")[0] for t in titles] == [first, second], titles


async def test_a_first_visit_signed_out_logs_no_console_error(
    browser: Browser,
    site: Site,  # noqa: F811
) -> None:
    """Issue 23: "no console error on a first visit": a browser with no cookie opens the site
    (signed out: the sign-in page, after the page's `/api/me` question), then signs in as a
    guest and reaches the lobby; neither the console (type "error") nor an uncaught page error
    says anything went wrong."""
    context = await browser.new_context(viewport={"width": 1100, "height": 800})
    page = await context.new_page()
    errors: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(f"console: {message.text} ({message.location})")

    def uncaught(error: Error) -> None:
        errors.append(f"pageerror: {error}")

    page.on("console", console)
    page.on("pageerror", uncaught)
    await page.goto(site.base + "/")
    await expect(page.get_by_role("heading", name="Play at Tabula")).to_be_visible()
    await page.wait_for_load_state("networkidle")
    assert errors == []
    await page.get_by_label("Your name").fill(f"Visitor-{uuid.uuid4().hex[:6]}")
    await page.get_by_role("button", name="Sign in as a guest").click()
    await expect(page.get_by_role("heading", name="Lobby")).to_be_visible()
    await expect(page.get_by_role("heading", name="Games in play")).to_be_visible()
    await page.wait_for_load_state("networkidle")
    assert errors == []
    await context.close()
