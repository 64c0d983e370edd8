"""Spacewar Health/Ammo (Part B) through the web client (issue 14): the 8x8 board drawn by
boards/spacewar-ha.js, played by clicks on the board, its chooser, its action buttons and the
keyboard. Two people meet in the lobby; one game starts near its end (each side has one Base
left, Black's Tractor holds White's): a fire whose amount is chosen, a release and a repair
whose amount is chosen, and a Tractor move onto Black's last Base that wins (HA-8.1). The other
starts with no pieces on the board and ends in the double pass's draw (HA-8.2, HA-8.5).

Both lines were checked with the domain code (domain.spacewar_ha.rules' `create`,
`legal_actions` and `decide`) before they were written here.
"""

import re

from playwright.async_api import Browser, Locator, Page, expect

from tests.browser.conftest import SLOW, meet, moves, two_clicks


def cell(page: Page, name: str) -> Locator:
    return page.locator(f'svg.spacewar-ha [data-cell="{name}"]')


def status(page: Page) -> Locator:
    return page.locator(".ha-status .ha-turn")


async def label(page: Page, name: str, text: str) -> None:
    await expect(cell(page, name)).to_have_attribute("aria-label", f"{name}: {text}")


async def choose(page: Page, options: list[str], action: str) -> None:
    """The chooser lists exactly `options` (as sent); `action` is picked and played."""
    chooser = page.get_by_role("group", name="Choose the action")
    await expect(chooser.locator("button[data-action]")).to_have_count(len(options))
    for i, text in enumerate(options):
        await expect(chooser.locator("button[data-action]").nth(i)).to_have_attribute(
            "data-action", text
        )
    await chooser.locator(f'button[data-action="{action}"]').click()
    await expect(moves(page).last).to_have_text(action)


# -- From one Base each to the capture of Black's last ------------------------------------------

# White to act in its turn 12 of 30: the Shooter c4 sees Black's Defender f7 along the diagonal;
# Black's Tractor d6 holds White's Tractor e5 (HA-5.21); e2 and d7 are captured already, so each
# side keeps one Base (d2, e7).
NEAR_END = (
    "w 12 0 Ke1:9/18/6,Bc4:6/9,Qe5:3/9,qd6:3/9,rf7:9/6,ke8:9/18/6 "
    "Wd2:36/72,We2:x,Bd7:x,Be7:36/72 d6#e5"
)


async def test_a_fire_a_release_and_a_repair_then_black_s_last_base_captured(
    browser: Browser, gateway: str
) -> None:
    ann, bob = await meet(
        browser,
        gateway,
        "spacewar-ha",
        ("AnnHa", "BobHa"),
        options="turn_limit=30",
        position=NEAR_END,
    )
    for page in (ann, bob):
        await expect(page.locator("h1")).to_have_text("spacewar-ha (turn_limit=30)")
        # HA-7.1, HA-R21: every value shown to both players, the Medic's pools too
        await label(page, "c4", "White Shooter, Health 6, Ammo 9")
        await label(page, "e1", "White Medic, Health 9, Repair 18, Supply 6")
        await label(page, "f7", "Black Defender, Health 9, Ammo 6")
        # HA-5.21: the hold, on both pieces
        await label(page, "e5", "White Tractor, Health 3, Ammo 9, immobilised by d6")
        await label(page, "d6", "Black Tractor, Health 3, Ammo 9, holding e5")
        await expect(cell(page, "e5").locator(".held-ring")).to_have_count(1)
        await expect(page.locator("svg.spacewar-ha .hold-line")).to_have_count(1)
        # HA-3.2, HA-5.50: the Bases, their owners and pools, captured ones crossed out
        await label(page, "d2", "White Base, Repair 36, Supply 72")
        await label(page, "e2", "White Base, captured")
        await label(page, "d7", "Black Base, captured")
        await label(page, "e7", "Black Base, Repair 36, Supply 72")
        await expect(cell(page, "e7").locator(".base-frame.black")).to_have_count(1)
        await expect(cell(page, "d7").locator(".base-cross")).to_have_count(1)
        await label(page, "h4", "empty")
        await expect(status(page)).to_have_text("White to act, turn 12 of 30.")
    # HA-1.1: White's rank 1 at the bottom for White; Black sees the board turned round
    first = "svg.spacewar-ha [data-cell]"
    await expect(ann.locator(first).first).to_have_attribute("data-cell", "a8")
    await expect(bob.locator(first).first).to_have_attribute("data-cell", "h1")
    await expect(bob.locator("svg.spacewar-ha .cell.movable")).to_have_count(0)
    # HA-5.21: the held Tractor cannot move, so it starts only its force and immobilisation
    await cell(ann, "e5").click()
    await expect(ann.locator("svg.spacewar-ha .cell.target")).to_have_count(3)  # d6, e1, e8
    await cell(ann, "e5").click()  # dropped again
    await expect(ann.locator("svg.spacewar-ha .cell.selected")).to_have_count(0)

    # HA-5.5, HA-5.10, HA-5.11, HA-R25: the Shooter's 8 squares and the Defender at f7; each
    # amount from 1 to 9 is an action of its own, so the page asks; 3 Ammo spent
    await two_clicks(ann, "spacewar-ha", "c4", "f7", targets=9)
    await choose(ann, [f"Bc4*f7({k})" for k in range(1, 10)], "Bc4*f7(3)")
    for page in (ann, bob):
        await label(page, "f7", "Black Defender, Health 6, Ammo 6")
        await label(page, "c4", "White Shooter, Health 6, Ammo 6")
        for square in ("c4", "f7"):  # the last action's squares
            await expect(cell(page, square)).to_have_class(re.compile(r"\blast\b"))
        await expect(status(page)).to_have_text("Black to act, turn 12 of 30.")

    # HA-4.1, HA-5.22, HA-R24: Black releases the hold, a free declaration: still Black to act
    await expect(bob.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    await bob.locator('.ha-release button[data-action="Qd6~"]').click()
    await expect(moves(bob).last).to_have_text("Qd6~")
    for page in (ann, bob):
        await label(page, "e5", "White Tractor, Health 3, Ammo 9")
        await expect(page.locator("svg.spacewar-ha .hold-line")).to_have_count(0)
        await expect(status(page)).to_have_text("Black to act, turn 12 of 30.")
    # HA-5.40, HA-5.42: the Medic repairs the Defender by 1 to 3 (what it misses); 2 chosen
    await two_clicks(bob, "spacewar-ha", "e8", "f7", targets=9)
    await choose(bob, ["Ke8+f7(h1)", "Ke8+f7(h2)", "Ke8+f7(h3)"], "Ke8+f7(h2)")
    for page in (ann, bob):
        await label(page, "f7", "Black Defender, Health 8, Ammo 6")
        await label(page, "e8", "Black Medic, Health 9, Repair 16, Supply 6")
        await expect(status(page)).to_have_text("White to act, turn 13 of 30.")

    # HA-5.2, HA-5.50, HA-8.1: by the keyboard, the freed Tractor e5 goes two squares up onto
    # e7, Black's last Base: White wins
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    await cell(ann, "e5").focus()
    await ann.keyboard.press("Enter")
    await expect(cell(ann, "e7")).to_have_class(re.compile(r"\btarget\b"))
    for key in ("ArrowUp", "ArrowUp"):
        await ann.keyboard.press(key)
    await expect(cell(ann, "e7")).to_be_focused()
    await ann.keyboard.press("Enter")
    for page in (ann, bob):
        await expect(page.locator('p.result[title="1-0 (bases)"]')).to_be_visible()
        await expect(status(page)).to_have_text("Game over: 1-0 (bases).")
        await expect(moves(page)).to_have_text(["Bc4*f7(3)", "Qd6~", "Ke8+f7(h2)", "Qe5-e7"])
        await label(page, "e7", "White Tractor, Health 3, Ammo 9; Black Base, captured")
        await label(page, "e5", "empty")
        await expect(cell(page, "e7")).to_have_class(re.compile(r"\blast\b"))
        await expect(page.locator(".ha-actions button")).to_have_count(0)
        await expect(page.locator("svg.spacewar-ha .cell.movable")).to_have_count(0)
        await expect(page.get_by_text("Your move", exact=True)).to_have_count(0)

    # The replay: two events back (behind GameSealed and GameEnded: the move) the board is
    # drawn again from the past view, with nothing to click and no action buttons
    back = ann.get_by_role("button", name="Back one event")
    await back.click()
    await expect(ann.locator(".replay-where")).to_contain_text("after event 6 of 7")
    await back.click()
    await expect(ann.locator(".replay-where")).to_contain_text("after event 5 of 7")
    await expect(status(ann)).to_have_text("Black to act, turn 13 of 30.")
    await label(ann, "e7", "White Tractor, Health 3, Ammo 9; Black Base, captured")
    await expect(ann.locator("svg.spacewar-ha .cell.movable")).to_have_count(0)
    await expect(ann.locator(".ha-actions button")).to_have_count(0)


# -- No pieces left: two passes draw ----------------------------------------------------------

EMPTY = "w 5 0 - Wd2:36/72,Bd7:36/72 -"


async def test_two_passes_without_pieces_draw(browser: Browser, gateway: str) -> None:
    ann, bob = await meet(browser, gateway, "spacewar-ha", ("AnnHaP", "BobHaP"), position=EMPTY)
    # HA-4.2, HA-5.70, HA-8.5: no piece, no action: pass is White's one action, a button
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    await expect(ann.locator(".ha-actions button[data-action]")).to_have_count(1)
    await expect(ann.locator("svg.spacewar-ha .cell.movable")).to_have_count(0)
    await expect(status(ann)).to_have_text("White to act, turn 5.")
    await ann.locator('.ha-pass button[data-action="pass"]').click()
    for page in (ann, bob):
        await expect(status(page)).to_have_text(
            "Black to act, turn 5; the last turn was a pass (a second pass draws)."
        )
    # HA-8.2: Black passes too: drawn
    await expect(bob.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    await bob.locator('.ha-pass button[data-action="pass"]').click()
    for page in (ann, bob):
        await expect(page.locator('p.result[title="1/2-1/2 (double pass)"]')).to_be_visible()
        await expect(status(page)).to_have_text("Game over: 1/2-1/2 (double pass).")
        await expect(moves(page)).to_have_text(["pass", "pass"])
        await label(page, "d7", "Black Base, Repair 36, Supply 72")
