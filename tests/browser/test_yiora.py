"""Yiora through the web client (issue 13): the round board drawn by boards/yiora.js, played by
clicks. Four people meet in the lobby for a Secondary Basic game (two games on one board), each
moves in his own game, and both games end in checkmate; and a Primary Basic game from a set
position ends with a mating Pawn move that turns at ring Y.

The positions and lines below were checked with the domain code (domain.yiora through the
registry's `create`, `legal_actions` and `decide`) before they were written here.
"""

import re

from playwright.async_api import Browser, Locator, Page, expect

from tests.browser.conftest import challenge, person

SLOW = 20_000  # ms: waits that cross the services, or the lobby's 2 s poll, on a slow machine


async def take_seat(page: Page, challenger: str) -> Locator:
    """Accept the Yiora challenge opened by `challenger` (by name: the store outlives a test);
    the challenge's row in the lobby."""
    await page.reload()
    row = page.get_by_role("row").filter(has_text="yiora").filter(has_text=challenger)
    await row.get_by_role("button", name="Accept").click()
    return row


def moves(page: Page) -> Locator:
    return page.get_by_role("list", name="moves").locator("li")


def cell(page: Page, name: str) -> Locator:
    return page.locator(f'svg.yiora [data-cell="{name}"]')


async def centres(page: Page, *names: str) -> list[tuple[float, float]]:
    """The squares' centres on the screen, measured at one moment (a redraw replaces them)."""
    found = await page.evaluate(
        """(names) => names.map((name) => {
          const el = document.querySelector(`svg.yiora [data-cell="${name}"]`);
          if (!el) return null;
          const box = el.getBoundingClientRect();
          return [box.x + box.width / 2, box.y + box.height / 2];
        })""",
        list(names),
    )
    assert all(found), (names, found)
    return [(x, y) for x, y in found]


async def click_move(page: Page, start: str, end: str, text: str, targets: int) -> None:
    """The player clicks his man on `start` (its `targets` legal destinations light up), then
    the highlighted `end`: the move `text` is made."""
    await expect(page.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    await cell(page, start).click()
    await expect(page.locator("svg.yiora .cell.target")).to_have_count(targets)
    await expect(cell(page, end)).to_have_class(re.compile(r"\btarget\b"))
    await cell(page, end).click()
    await expect(moves(page).last).to_have_text(text)


# -- Secondary Basic: four seats, two games ----------------------------------------------------

# bsq: Black to move; after R22-R20 the White Mage's A7-A9 threatens A19 along ring A (A11 to
# A17 empty, A19 the fifth square), R18 is the Pawn's (O15, R16, A17, turn, R18), R20 holds a
# Black Mage and nothing blocks or captures: checkmate (YI-10.5 b). wsq: the same pattern turned
# half round, with Silver mating Gold after Gold's R5-R3 (A26-A28 reaches A2 as the fifth square).
NEAR_END = "bsq:b W:OA1,MA7,PO15 B:OA19,MR22 0 1 | wsq:g G:OA2,MR5 S:OA20,MA26,PO34 0 1"
FOUR = ("AnnYi", "BobYi", "CatYi", "DanYi")  # seats 0 White, 1 Black, 2 Gold, 3 Silver
PLAYED = ["bsq:R22-R20", "wsq:R5-R3", "bsq:A7-A9", "wsq:A26-A28"]


def game_status(page: Page, game: str) -> Locator:
    return page.locator(f'.yiora-game[data-game="{game}"]')


async def test_four_players_play_both_games_of_secondary_basic_to_checkmate(
    browser: Browser, gateway: str
) -> None:
    ann, bob, cat, dan = pages = [await person(browser, gateway, name) for name in FOUR]
    await challenge(ann, "yiora", variant="secondary_basic", position=NEAR_END)
    for page in (bob, cat):  # the first free seat each time, in this order
        row = await take_seat(page, FOUR[0])
        await expect(row.get_by_text("waiting…")).to_be_visible()
    await take_seat(dan, FOUR[0])  # the fourth seat starts the game
    for page in pages:  # the lobby's poll takes the waiting three to it
        await page.wait_for_url(re.compile(r"#/games/"), timeout=SLOW)
    assert len({page.url.split("#")[1] for page in pages}) == 1

    # YI-8.3: four seats, White, Black, Gold and Silver; the board shows both games' men
    # (YI-8.1: wsq on the white squares, one column on)
    sides = ("White", "Black", "Gold", "Silver")  # each seat by its side's name (issue 23)
    for you, page in enumerate(pages):
        await expect(page.locator(".players li")).to_have_text(
            [f"{sides[s]}: {name}{' (you)' if s == you else ''}" for s, name in enumerate(FOUR)]
        )
        for square, man in (("A19", "Black overlord"), ("A20", "Silver overlord"),
                            ("A2", "Gold overlord"), ("O34", "Silver pawn"),
                            ("A7", "White mage"), ("A1", "White overlord")):  # fmt: skip
            await expect(cell(page, square)).to_have_attribute("aria-label", f"{square}: {man}")
    await expect(ann.locator(".yiora-you")).to_have_text("You play White (black squares).")
    await expect(dan.locator(".yiora-you")).to_have_text("You play Silver (white squares).")
    # the centre: each side's men no longer on the board, of its nine (YI-2.1, YI-1.5)
    await expect(cat.locator("svg.yiora .graveyard")).to_have_attribute(
        "aria-label", re.compile(r"Gold: mage, mage, mage, pawn, pawn, pawn, pawn;")
    )

    # YI-8.3: the games run independently: Black and Gold are to move at once, White and
    # Silver wait, and nobody is offered a man of the other game
    await expect(ann.get_by_text("BobYi and CatYi to move", exact=True)).to_be_visible()
    for page in (ann, dan):
        await expect(page.locator("svg.yiora .cell.movable")).to_have_count(0)
    await expect(cat.locator("svg.yiora .cell.movable")).to_have_count(1)  # R5: Gold's Mage
    await click_move(bob, "R22", "R20", PLAYED[0], targets=15)  # YI-5.2.1 to YI-5.2.3
    await click_move(cat, "R5", "R3", PLAYED[1], targets=15)
    await click_move(ann, "A7", "A9", PLAYED[2], targets=11)
    # YI-6.3.1, YI-8.2: game bsq ends in checkmate, its Overlord flagged (YI-6.1); game wsq
    # goes on, so the match has no result yet
    for page in pages:
        await expect(game_status(page, "bsq")).to_contain_text("White v Black: 1-0 (checkmate)")
        await expect(cell(page, "A19")).to_have_attribute(
            "aria-label", "A19: Black overlord, threatened"
        )
    await expect(dan.get_by_text("Your move", exact=True)).to_be_visible()
    await expect(bob.locator("p.result")).to_have_count(0)
    await click_move(dan, "A26", "A28", PLAYED[3], targets=11)

    # YI-8.3, YI-8.4.3: each player has his own game's result: White and Silver won
    for page in pages:
        await expect(moves(page)).to_have_text(PLAYED)
        await expect(page.locator('p.result[title="1-0-0-1 (checkmate)"]')).to_be_visible()
        await expect(game_status(page, "wsq")).to_contain_text("Gold v Silver: 0-1 (checkmate)")
        await expect(cell(page, "A2")).to_have_attribute(
            "aria-label", "A2: Gold overlord, threatened"
        )
        await expect(cell(page, "A28")).to_have_class(re.compile(r"\blast\b"))
        await expect(page.get_by_text("Your move", exact=True)).to_have_count(0)
        await expect(page.get_by_role("button", name="resign")).to_have_count(0)


# -- Primary Basic: a mating Pawn move ---------------------------------------------------------

# White to move. The White Pawn on A11 shields the Black Overlord from the White Mage on A9;
# A11-I16 (R12, O13, I14, Y15, turn, I16: five steps, YI-5.3.2) opens ring A: A19 is threatened
# (A11 to A17 empty). The only block, R18-A17, would open the Pawn's path I16-O17-R18-A19
# (YI-6.1), nothing captures the Mage, and R18 and R20 hold Black's own Mages: checkmate.
MATE_IN_ONE = "w W:OA1,MA9,PA11 B:OA19,MR18,MR20 0 1"
PAWN_TARGETS = ["Y7", "Y15", "I6", "I8", "I14", "I16", "O9", "O13", "R10", "R12"]  # YI-5.3


async def test_primary_from_a_set_position_to_checkmate_by_a_pawn_that_turns(
    browser: Browser, gateway: str
) -> None:
    ann = await person(browser, gateway, "AnnYp")
    bob = await person(browser, gateway, "BobYp")
    await challenge(ann, "yiora", position=MATE_IN_ONE)
    await take_seat(bob, "AnnYp")
    for page in (ann, bob):
        await page.wait_for_url(re.compile(r"#/games/"), timeout=SLOW)
        await expect(cell(page, "A11")).to_have_attribute("aria-label", "A11: White pawn")
        await expect(cell(page, "R18")).to_have_attribute("aria-label", "R18: Black mage")
    # YI-1.2: column 1 at the bottom on White's side, the numbers rising counter-clockwise
    # (10 on the right, 19 at the top); Black sees the board turned half round
    for page, (bottom, right, top, left) in ((ann, ("A1", "A10", "A19", "A28")),
                                             (bob, ("A19", "A28", "A1", "A10"))):  # fmt: skip
        (bx, by), (rx, ry), (tx, ty), (lx, ly) = await centres(page, bottom, right, top, left)
        assert by > ry > ty, (by, ry, ty)
        assert by > ly > ty, (by, ly, ty)
        assert rx > bx > lx, (rx, bx, lx)
        assert rx > tx > lx, (rx, tx, lx)
    # YI-0.1: only the black squares are played: a white square is no button
    await expect(cell(ann, "A10")).to_have_attribute("aria-hidden", "true")
    await expect(cell(ann, "A10").and_(ann.get_by_role("button"))).to_have_count(0)
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible()

    # by keyboard: the arrows go round the ring to the next black square; Enter picks the Pawn
    # and lights its destinations, Enter again drops it
    await cell(ann, "A9").focus()
    await ann.keyboard.press("ArrowRight")
    await expect(cell(ann, "A11")).to_be_focused()
    await ann.keyboard.press("Enter")
    targets = ann.locator("svg.yiora .cell.target")
    await expect(targets).to_have_count(len(PAWN_TARGETS))
    assert sorted(await targets.evaluate_all("els => els.map(e => e.dataset.cell)")) == sorted(
        PAWN_TARGETS
    )
    await ann.keyboard.press("Enter")
    await expect(targets).to_have_count(0)
    # Black, not to move, is offered nothing
    await expect(bob.locator("svg.yiora .cell.movable")).to_have_count(0)

    await click_move(ann, "A11", "I16", "A11-I16", targets=len(PAWN_TARGETS))
    # YI-6.3.1, YI-7.1: the checkmated side loses; its Overlord is flagged (YI-6.1)
    for page in (ann, bob):
        await expect(page.locator('p.result[title="1-0 (checkmate)"]')).to_be_visible()
        await expect(moves(page)).to_have_text(["A11-I16"])
        await expect(cell(page, "A19")).to_have_attribute(
            "aria-label", "A19: Black overlord, threatened"
        )
        for square in ("A11", "I16"):
            await expect(cell(page, square)).to_have_class(re.compile(r"\blast\b"))
        await expect(page.locator("svg.yiora .cell.movable")).to_have_count(0)
