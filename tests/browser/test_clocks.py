"""Chess clocks on the game page (issue 23): a clock chosen in the lobby's challenge form, shown
for every seat (`ul.clocks`, one `li.clock-seat` each, its time a `role=timer`), the running
ones counting down; a seat that does not move loses on time with nobody claiming (the rules
service's own timer flags it), said in plain words on both pages."""

import re
import uuid

from playwright.async_api import Browser, Locator, Page, expect

from tests.browser.conftest import SLOW, account, challenge, person, rated_game

# The 1+1 flag: White's 60 s, then the grace of min(quota, 2 s) (quota 3 x min(1 s, (60 + 40)
# x 4 ms + 150 ms) = 1.65 s), and the rules service's timer round: ~62 s after the game began.
FLAG_WAIT = 90_000  # ms


def clock(page: Page, seat: int) -> Locator:
    return page.get_by_role("list", name="clocks").locator(f'li.clock-seat[data-seat="{seat}"]')


def status(page: Page, words: str) -> Locator:
    """The game's status line (role=status), reading exactly `words`."""
    return page.get_by_role("status").filter(has_text=re.compile(rf"^\s*{re.escape(words)}\s*$"))


async def test_a_rated_bullet_game_is_lost_on_time_with_nobody_claiming(
    browser: Browser, gateway: str
) -> None:
    """Issue 23: a rated 3-D Chess game between two accounts with a 1+1 clock, chosen in the
    lobby's form ("Clock": "1+1 bullet", "Rated" ticked, "Opponent (name)"), taken from the
    other's "Challenges to you" list. Both pages show two clocks, White's running (and the tab
    title and status say it is White's move); Black's page reloaded before the flag still
    shows them, White's running and below 1:00. White never moves and nobody claims: both
    pages end showing the loss on time in words ("You lost on time" / "You won on time"),
    White's clock at 0:00.0 and no longer running. (~65 s: the clock's own minute.)"""
    tag = uuid.uuid4().hex[:6]  # the store outlives a test: an account's name is taken
    white_name, black_name = f"Wh-{tag}", f"Bl-{tag}"
    white = await account(browser, gateway, white_name)
    black = await account(browser, gateway, black_name)
    await rated_game(white, black, black_name, "1+1 bullet")

    await expect(white.locator(".you-play")).to_have_text("You play White")
    await expect(black.locator(".you-play")).to_have_text("You play Black")
    await expect(status(white, "Your move")).to_be_visible()
    await expect(status(black, f"{white_name} to move")).to_be_visible()
    await expect(white).to_have_title(re.compile(r"^\(Your move\) chess3d"))
    await expect(black).to_have_title(re.compile(r"^chess3d"))
    for page in (white, black):
        clocks = page.get_by_role("list", name="clocks").locator("li.clock-seat")
        await expect(clocks).to_have_count(2)
        await expect(clocks.get_by_role("timer")).to_have_count(2)
        await expect(clock(page, 0)).to_have_class(re.compile(r"\brunning\b"))
        await expect(clock(page, 1)).not_to_have_class(re.compile(r"\brunning\b"))
        await expect(clock(page, 1).get_by_role("timer")).to_have_text("1:00")  # Black's, whole
    await expect(clock(white, 0)).to_contain_text(f"{white_name} (you)")

    # Before the flag, Black's page reloaded: the clocks come back from the game's view, White's
    # still running (counting down from what the service says is left, below the minute).
    await black.reload()
    await expect(clock(black, 0)).to_have_class(re.compile(r"\brunning\b"))
    await expect(clock(black, 0).get_by_role("timer")).to_have_text(re.compile(r"^0:[0-5]\d$"))
    await expect(clock(black, 1)).not_to_have_class(re.compile(r"\brunning\b"))
    assert await status(black, "You won on time").count() == 0  # not flagged yet

    # Under 10 s White's clock is marked low, then the service flags it by itself.
    await expect(clock(white, 0)).to_have_class(re.compile(r"\blow\b"), timeout=FLAG_WAIT)
    await expect(status(white, "You lost on time")).to_be_visible(timeout=FLAG_WAIT)
    await expect(status(black, "You won on time")).to_be_visible(timeout=SLOW)
    for page in (white, black):
        await expect(clock(page, 0).get_by_role("timer")).to_have_text("0:00.0")
        await expect(page.locator("li.clock-seat.running")).to_have_count(0)
        await expect(page).not_to_have_title(re.compile(r"^\(Your move\)"))
    # Black never moved: his clock was never charged
    await expect(clock(black, 1).get_by_role("timer")).to_have_text("1:00")


async def to_act(page: Page, game: str) -> list[int]:
    """The seats to act, as the game's view (GET /api/games/<id>) says to this page."""
    seats: list[int] = await page.evaluate(
        "async (id) => (await (await fetch(`/api/games/${id}`)).json()).view.to_act", game
    )
    return sorted(seats)


async def running(page: Page) -> list[int]:
    seats = await page.locator("li.clock-seat.running").evaluate_all(
        "(rows) => rows.map((row) => Number(row.dataset.seat))"
    )
    return sorted(seats)


async def test_four_clocks_in_yiora_secondary_only_the_seats_to_act_running(
    browser: Browser, gateway: str
) -> None:
    """Issue 23: a Yiora Secondary Basic game (four seats, two games on one board) with a custom
    clock (2 minutes + 1 s, the form's "custom" Minutes and Increment): each of the four pages
    shows four clocks, running for exactly the seats the game's view lists to act (one in each
    game, so two, not all four); after one of them moves, his clock stops and the next seat of
    his game's starts, the other game's still running."""
    names = [f"{n}-{uuid.uuid4().hex[:4]}" for n in ("AnnYc", "BobYc", "CatYc", "DanYc")]
    pages = [await person(browser, gateway, name) for name in names]
    first = pages[0]
    await first.get_by_label("Clock").select_option(label="custom")
    await first.get_by_label("Minutes").fill("2")
    await first.get_by_label("Increment (s)").fill("1")
    await challenge(first, "yiora", variant="secondary_basic")
    for page in pages[1:]:  # the first free seat each time; the fourth starts the game
        await page.reload()
        row = page.get_by_role("row").filter(has_text="yiora").filter(has_text=names[0])
        await row.get_by_role("button", name="Accept").click()
    for page in pages:
        await page.wait_for_url(re.compile(r"#/games/"), timeout=SLOW)
    game = first.url.split("#/games/")[1]
    assert all(page.url.split("#/games/")[1] == game for page in pages)

    acting = await to_act(first, game)
    assert len(acting) == 2, acting  # one seat in each of the two games
    for page in pages:
        clocks = page.get_by_role("list", name="clocks").locator("li.clock-seat")
        await expect(clocks).to_have_count(4)
        await expect(page.locator("li.clock-seat.running")).to_have_count(2)
        assert await running(page) == acting
        for seat in set(range(4)) - set(acting):
            await expect(clock(page, seat).get_by_role("timer")).to_have_text("2:00")

    # One of the seats to act moves (the first legal action its page offers, typed): his clock
    # stops, his opponent's in the same game starts; the other game's goes on running.
    mover = acting[0]
    page = pages[mover]
    offered = await page.locator("#legal-actions option").evaluate_all(
        "(options) => options.map((option) => option.value)"
    )
    action = next(a for a in offered if a not in ("resign", "offer-draw"))
    await page.get_by_label("action").fill(action)
    await page.get_by_role("button", name="Play", exact=True).click()
    await expect(page.get_by_role("list", name="moves").locator("li")).to_have_count(1)
    after = await to_act(first, game)
    assert mover not in after, after
    assert acting[1] in after, after
    for page in pages:
        await expect(clock(page, mover)).not_to_have_class(re.compile(r"\brunning\b"))
        await expect(page.locator("li.clock-seat.running")).to_have_count(len(after))
        assert await running(page) == after
