"""Two people in two browsers meet in the lobby and play through the web client."""

import asyncio
import re
from collections.abc import Awaitable, Callable

from playwright.async_api import Browser, Page, Route, expect

from tests.browser.conftest import challenge, person
from tests.rulesets import register

register()


async def accept(page: Page) -> None:
    await page.get_by_role("button", name="Accept").first.click()
    await page.wait_for_url(re.compile(r"#/games/"))


async def meet(browser: Browser, gateway: str, ruleset: str) -> tuple[Page, Page]:
    """Ann opens a challenge in the lobby, Bob accepts it: both are taken to the game."""
    ann = await person(browser, gateway, "Ann")
    bob = await person(browser, gateway, "Bob")
    await challenge(ann, ruleset)
    await bob.reload()
    await accept(bob)
    await ann.wait_for_url(re.compile(r"#/games/"))  # the lobby takes Ann to her game
    return ann, bob


async def test_two_browsers_play_3d_chess_until_a_resignation(
    browser: Browser, gateway: str
) -> None:
    ann, bob = await meet(browser, gateway, "chess3d")
    assert ann.url.split("#")[1] == bob.url.split("#")[1]
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible()
    # Ann moves a pawn by clicking its cube, then the highlighted destination
    await ann.locator('[data-cell="IE2"]').click()
    await expect(ann.locator('[data-cell="IE4"].target')).to_be_visible()
    await ann.locator('[data-cell="IE4"]').click()
    await expect(bob.get_by_role("list", name="moves")).to_contain_text("IE2-IE4")
    await expect(bob.locator('[data-cell="IE4"]')).to_have_attribute(
        "aria-label", "IE4: White pawn"
    )
    await expect(bob.get_by_text("Your move", exact=True)).to_be_visible()
    # an illegal move typed by Bob: refused with its clause, linked to the rules page
    await bob.get_by_label("action").fill("IIIE7-IIIE3")
    await bob.get_by_role("button", name="Play", exact=True).click()
    alert = bob.get_by_role("alert")
    await expect(alert).to_contain_text("action/illegal")
    link = alert.get_by_role("link")
    assert re.fullmatch(r"/rules/chess3d#C3-\d[\d.]*", await link.get_attribute("href") or "")
    await bob.get_by_role("button", name="resign").click()
    for page in (ann, bob):
        await expect(page.locator('p.result[title="1-0 (resignation)"]')).to_be_visible()


async def test_a_race_with_seeds_and_a_hidden_setup_made_in_the_browsers(
    browser: Browser, gateway: str
) -> None:
    """Each browser makes its client seed and its setup itself (WebCrypto), commits, reveals;
    the page shows the player's own hand only; a reload resumes the same game."""
    ann, bob = await meet(browser, gateway, "race")
    for page, boost in ((ann, "3"), (bob, "1")):
        await page.get_by_label("Boost (RACE-1):").select_option(boost)
        await page.get_by_role("button", name="Commit my setup").click()
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible()
    moves = 0
    while moves < 60:
        ended = False
        for page in (ann, bob):
            if await page.locator("p.result").count():
                ended = True
                break
            if await page.get_by_text("Your move", exact=True).count():
                await page.get_by_label("action").fill("roll")
                await page.get_by_role("button", name="Play", exact=True).click()
                moves += 1
                await expect(page.get_by_text("Your move", exact=True)).to_have_count(0)
        if ended:
            break
        if moves == 4:  # a reload resumes from the log: the same board
            track = await bob.locator("svg.race").inner_html()
            await bob.reload()
            await expect(bob.locator("svg.race")).to_have_count(1)
            assert await bob.locator("svg.race").inner_html() == track
    for page in (ann, bob):
        await expect(page.locator("p.result")).to_have_attribute(
            "title", re.compile(r"^(1-0|0-1) \(finish\)$")
        )
    # once the game has ended every action is public: the move list shows them all
    rolls = ann.get_by_role("list", name="moves").locator("li")
    await expect(rolls).to_have_count(moves)
    assert set(await rolls.all_inner_texts()) == {"roll"}
    # the audit page checks the export in the browser, with the receipts Ann's page kept
    await ann.get_by_role("link", name="Audit").click()
    await expect(ann.get_by_text("The log passes: the export the server gave.")).to_be_visible()
    checks = await ann.get_by_role("table").locator("tr").all_inner_texts()
    assert any("receipts" in row and "✓" in row for row in checks), checks
    assert any("dice" in row and "✓" in row for row in checks), checks
    assert not any("✗" in row for row in checks), checks


async def test_a_step_due_while_an_unanswered_one_waits_is_taken_up(
    browser: Browser, gateway: str
) -> None:
    """Each page's seed reveal is made, but its answer is lost (the connection drops): the step
    waits in the page's outbox, sent again later with the same command id. The events that
    make the setup due (both reveals) come meanwhile, and no later one would wake either page
    (both seats owe their setups), so each takes its setup up once the reveal is answered."""
    ann = await person(browser, gateway, "AnnLost")
    bob = await person(browser, gateway, "BobLost")
    lost: list[Page] = []

    def lose_the_first_reveals_answer(page: Page) -> Callable[[Route], Awaitable[None]]:
        async def lose(route: Route) -> None:
            if "seed-reveal" in (route.request.post_data or "") and page not in lost:
                await route.fetch()  # made, then the answer is lost on the way
                lost.append(page)
                await route.abort("connectionreset")
            else:
                await route.continue_()

        return lose

    for page in (ann, bob):
        await page.route("**/api/games/*/actions", lose_the_first_reveals_answer(page))
    await challenge(ann, "race")
    await bob.reload()
    row = bob.get_by_role("row").filter(has_text="race").filter(has_text="AnnLost")
    await row.get_by_role("button", name="Accept").click()
    for page, boost in ((ann, "3"), (bob, "1")):
        await page.get_by_label("Boost (RACE-1):").select_option(boost)
        await page.get_by_role("button", name="Commit my setup").click()
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible()
    assert len(lost) == 2


async def first_move(page: Page) -> str:
    """Click the first movable man, then its first highlighted destination; the move made."""
    before = await page.get_by_role("list", name="moves").locator("li").count()
    await page.locator(".cell.movable").first.click()
    await page.locator(".cell.target").first.click()
    moves = page.get_by_role("list", name="moves").locator("li")
    await expect(moves).to_have_count(before + 1)
    return await moves.last.inner_text()


async def test_cyvasse_hidden_setups_placed_in_the_browsers_then_play(
    browser: Browser, gateway: str
) -> None:
    """Each player sets up behind the screen in the browser (a random legal setup, checked in
    the page, committed, revealed); then White moves on the board and Black resigns."""
    ann, bob = await meet(browser, gateway, "cyvasse")
    for page in (ann, bob):
        await page.get_by_role("button", name="Random setup").click()
        await page.get_by_role("button", name="Commit my setup").click()
    # Random setups may leave a King mated at once (CY-4.4: the last reveal ends the game) or
    # capturable by White's first move: then the game ends there, with its result shown.
    status = ann.get_by_text("Your move", exact=True).or_(ann.locator("p.result"))
    await expect(status).to_be_visible()
    if await ann.get_by_text("Your move", exact=True).count():
        played = await first_move(ann)
        await expect(bob.get_by_role("list", name="moves")).to_contain_text(played)
        resign = bob.get_by_role("button", name="resign").or_(bob.locator("p.result"))
        await expect(resign).to_be_visible()
        if not await bob.locator("p.result").count():
            await resign.click()
            await expect(bob.locator('p.result[title="1-0 (resignation)"]')).to_be_visible()
    for page in (ann, bob):
        await expect(page.locator("p.result")).to_be_visible()


async def test_yavoch_levels_fleets_and_a_move_through_the_browsers(
    browser: Browser, gateway: str
) -> None:
    """Captain Decker's Yavoch: seeds made in the browsers, home levels chosen, each fleet
    placed in the page's editor, a first ship move by clicks; then a resignation."""
    ann, bob = await meet(browser, gateway, "yavoch")
    await expect(ann.get_by_text("Choose your home levels")).to_be_visible()
    await ann.get_by_role("button", name=re.compile(r"^Levels 1 and 2")).click()
    for page in (ann, bob):
        await page.get_by_role("button", name="Random placement").click()
        await page.get_by_role("button", name="Place my fleet").click()
    # whoever moves first: the page that offers a ship to move
    waits = {
        asyncio.create_task(p.locator(".cell.movable").first.wait_for()): p for p in (ann, bob)
    }
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    mover = waits[done.pop()]
    await expect(mover.get_by_text("Your move", exact=True)).to_be_visible()
    await first_move(mover)
    await mover.get_by_role("button", name="resign").click()
    for page in (ann, bob):
        await expect(page.locator("p.result")).to_have_attribute(
            "title", re.compile(r"^(1-0|0-1) \(resignation\)$")
        )


async def test_a_person_plays_the_house_bot_in_the_browser(browser: Browser, gateway: str) -> None:
    """From the lobby, a game against the house bot at the level picked (issue 24: each level
    listed with its name): it answers each move on the page."""
    ann = await person(browser, gateway, "Ann")
    await ann.get_by_label("Game").select_option("chess3d")
    await ann.get_by_label("Bot level").select_option("2 novice")
    await ann.get_by_role("button", name="Play a house bot").click()
    await ann.wait_for_url(re.compile(r"#/games/"))
    await expect(ann.get_by_text("Black: Bot, level 2 (novice)")).to_be_visible()
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible()
    await ann.locator('[data-cell="IE2"]').click()
    await ann.locator('[data-cell="IE4"]').click()
    moves = ann.get_by_role("list", name="moves").locator("li")
    await expect(moves.first).to_have_text("IE2-IE4")
    await expect(moves.nth(1)).to_be_visible()  # the bot's answer (a move, or demand-mate first)
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible()


async def test_a_draw_offer_is_a_sentence_with_its_answers(browser: Browser, gateway: str) -> None:
    """Issue 23: "a draw offer ... is a sentence with buttons". Ann offers a draw on her turn
    (C3-7.7); Bob's page says she does, with Accept and Decline; he accepts, and both pages say
    the game is drawn by agreement, in words."""
    # C3-7.7
    ann, bob = await meet(browser, gateway, "chess3d")
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible()
    await ann.get_by_role("button", name="offer draw").click()
    offer = bob.locator("p.offer")
    await expect(offer).to_have_text(re.compile(r"^Ann offers a draw\. Accept\s+Decline$"))
    await offer.get_by_role("button", name="Accept").click()
    for page in (ann, bob):
        await expect(page.get_by_text("Drawn by agreement", exact=True)).to_be_visible()
        await expect(page.locator("p.offer")).to_have_count(0)
