"""Spacewar (Part A) through the web client (issue 14): the 16x12 board drawn by
boards/spacewar.js, played by clicks on the board, its chooser and its action buttons. Two
people meet in the lobby; one game runs a whole turn from the start to the turn limit's draw (a
Mothership's two-step path, END, a launch and the missile's flight, passes), the other starts
from a set position in force combat: a beam hit, a pass, and a Gunboat ramming the last enemy
Mothership, played from the keyboard.

Both lines were checked with the domain code (domain.spacewar's `create`, `legal_actions` and
`decide`) before they were written here.
"""

import re

from playwright.async_api import Browser, Locator, Page, expect

from tests.browser.conftest import SLOW, meet, moves, two_clicks


def cell(page: Page, name: str) -> Locator:
    return page.locator(f'svg.spacewar [data-cell="{name}"]')


def phase(page: Page) -> Locator:
    return page.locator(".sw-status .sw-phase")


async def label(page: Page, name: str, text: str) -> None:
    """The square's aria-label begins with `text` (the fields covering it follow)."""
    await expect(cell(page, name)).to_have_attribute(
        "aria-label", re.compile("^" + re.escape(f"{name}: {text}") + r"($|;)")
    )


async def press(page: Page, action: str) -> None:
    """Press the button of the legal action `action` under the board (END, pass)."""
    await expect(page.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    before = await moves(page).count()
    await page.locator(f'.sw-actions button[data-action="{action}"]').click()
    await expect(moves(page)).to_have_count(before + 1)
    await expect(moves(page).last).to_have_text(action)


# -- A whole turn from the start, to the turn limit's draw --------------------------------------


async def test_a_whole_turn_from_the_start_ends_in_the_turn_limit_draw(
    browser: Browser, gateway: str
) -> None:
    ann, bob = await meet(browser, gateway, "spacewar", ("AnnSw", "BobSw"), options="turn_limit=1")
    # SW-3.1 to SW-3.4: missiles on ranks 1 and 12, ships on 2 and 11, all large
    for page in (ann, bob):
        await expect(page.locator("h1")).to_have_text("spacewar (turn_limit=1)")
        await label(page, "b2", "White Mothership, large side up")
        await label(page, "o11", "Black Mothership, large side up")
        await label(page, "e2", "White Tractor, large side up")
        await label(page, "c11", "Black Immobilizer, large side up")
        await label(page, "a1", "White missile, unfired")
        await label(page, "p12", "Black missile, unfired")
        await label(page, "h8", "empty")
        # SW-5.30: the Tractor on e2 covers e5 (range_tp 3), not e6; fields shaded by owner
        await expect(cell(page, "e5")).to_have_attribute(
            "aria-label", re.compile(r"^e5: empty; in the field of .*White Tractor e2")
        )
        await expect(cell(page, "e5").locator("rect.field.white")).to_have_count(1)
        await expect(cell(page, "e6")).to_have_attribute("aria-label", "e6: empty")
        await expect(cell(page, "c9").locator("rect.field.black")).to_have_count(1)
    # SW-1.1: White's back rank at the bottom for White; Black sees the board turned round
    first = "svg.spacewar [data-cell]"
    await expect(ann.locator(first).first).to_have_attribute("data-cell", "a12")
    await expect(bob.locator(first).first).to_have_attribute("data-cell", "p1")
    # SW-4.1: phase 1, White moves
    await expect(phase(ann)).to_have_text(
        "Turn 1, phase 1 of 8 (movement). White to act; 0 of up to 4 ships moved."
    )
    await expect(bob.locator("svg.spacewar .cell.movable")).to_have_count(0)

    # SW-5.10, SW-R46: the Mothership's 8 squares; c3 by one step or two, so the page asks
    await two_clicks(ann, "spacewar", "b2", "c3", targets=8)
    chooser = ann.get_by_role("group", name="Choose the action")
    await expect(chooser.locator("button[data-action]")).to_have_text(
        [re.compile(r"^Kb2-b3-c3 "), re.compile(r"^Kb2-c3 ")]
    )
    await chooser.locator('button[data-action="Kb2-b3-c3"]').click()
    await expect(moves(ann).last).to_have_text("Kb2-b3-c3")
    await label(bob, "c3", "White Mothership, large side up, moved")
    await expect(phase(ann)).to_contain_text("1 of up to 4 ships moved")
    # SW-5.4: END after a move ends the phase; phase 2 has nobody in range: passed (SW-4.5)
    await press(ann, "END")
    await expect(phase(ann)).to_have_text(
        "Turn 1, phase 3 of 8 (missile, launch step). White to act."
    )

    # SW-5.62: Mothership o2, Gunboat p2, missile o1 to o3, then one forward (missile_step 2)
    await two_clicks(ann, "spacewar", "o1", "o3", targets=2)
    await expect(moves(ann).last).to_have_text("L o2,p2,o1>o3")
    for page in (ann, bob):
        await label(page, "o4", "White missile, fired")
        await label(page, "o1", "empty")
        await label(page, "o2", "White Mothership, small side up")
        await label(page, "p2", "White Gunboat, small side up")
        for square in ("o1", "o3"):  # the last action: the missile's square and first square
            await expect(cell(page, square)).to_have_class(re.compile(r"\blast\b"))
    # SW-4.3: Black passes; White has nothing left but a pass (SW-4.5): the step ends
    await press(bob, "pass")
    await expect(phase(bob)).to_have_text(
        "Turn 1, phase 5 of 8 (movement). Black to act; 0 of up to 4 ships moved."
    )
    await two_clicks(bob, "spacewar", "j11", "k9", targets=4)  # SW-5.13: a knight's leap
    await expect(moves(bob).last).to_have_text("Nj11-k9")
    await label(ann, "k9", "Black Immobilizer, large side up, moved")
    await press(bob, "END")
    await expect(phase(bob)).to_have_text(
        "Turn 1, phase 7 of 8 (missile, launch step). Black to act."
    )
    await press(bob, "pass")
    await press(ann, "pass")
    # SW-5.65: the fired missile flies on 2 squares; SW-8.4: after turn 1 the game is drawn
    for page in (ann, bob):
        await expect(page.locator('p.result[title="1/2-1/2 (turn limit)"]')).to_be_visible()
        await label(page, "o6", "White missile, fired")
        await label(page, "o4", "empty")
        await expect(moves(page)).to_have_text(
            ["Kb2-b3-c3", "END", "L o2,p2,o1>o3", "pass", "Nj11-k9", "END", "pass", "pass"]
        )
        await expect(phase(page)).to_contain_text("Game over: 1/2-1/2 (turn limit)")
        await expect(page.locator(".sw-actions button")).to_have_count(0)
        await expect(page.get_by_text("Your move", exact=True)).to_have_count(0)


# -- From force combat to the last Mothership rammed -------------------------------------------

# Phase 8, Black to act: Black's Tractor e7 reaches White's Gunboat h5 (distance 3). Black
# beams it; White could counter from e2 but passes, and Black's only action left is a pass:
# the phase ends (SW-4.3, SW-4.5), the hits go (SW-5.43). Turn 2, phase 1: the Gunboat rams the
# last Black Mothership on k8 (i6 and j7 lie outside the Tractor's field).
COMBAT = (
    "t=1 p=8 s=combat a=b passes=0 moved=- hit=1 W=Kb2,De2,Rh5 B=De7,Kk8 hits=- window=- "
    "pending=0,0"
)


async def test_a_beam_hit_then_the_last_mothership_rammed_from_the_keyboard(
    browser: Browser, gateway: str
) -> None:
    ann, bob = await meet(browser, gateway, "spacewar", ("AnnSwR", "BobSwR"), position=COMBAT)
    for page in (ann, bob):
        # SW-5.30: h5 lies in both Tractors' fields (range 3 from e2 and from e7)
        await expect(cell(page, "h5")).to_have_attribute(
            "aria-label",
            "h5: White Gunboat, large side up; in the field of White Tractor e2, Black Tractor e7",
        )
        await expect(cell(page, "h5").locator("rect.field")).to_have_count(2)
        await label(page, "k8", "Black Mothership, large side up")
    await expect(phase(bob)).to_have_text("Turn 1, phase 8 of 8 (force combat). Black to act.")

    # SW-5.40, SW-5.41, SW-5.44: from e7 at h5 a beam or a pull to one of three closer squares
    await two_clicks(bob, "spacewar", "e7", "h5", targets=1)
    chooser = bob.get_by_role("group", name="Choose the action")
    await expect(chooser.locator("button[data-action]")).to_have_count(4)
    await expect(bob.locator('.sw-actions button[data-action="F e7>h5>g6"]')).to_be_visible()
    await chooser.locator('button[data-action="B e7>h5"]').click()
    await expect(moves(bob).last).to_have_text("B e7>h5")
    # SW-5.41, SW-7.1: the standing hit shows on both boards; SW-4.2: the firer turned small
    for page in (ann, bob):
        await expect(cell(page, "h5")).to_have_attribute(
            "aria-label",
            re.compile(r"^h5: White Gunboat, large side up, hit h1 \(tractor from e7\);"),
        )
        await expect(cell(page, "h5")).to_have_class(re.compile(r"\bhit\b"))
        await expect(cell(page, "h5").locator(".hit-ring")).to_have_count(1)
        await label(page, "e7", "Black Tractor, small side up")
    # SW-5.42: White may counter from e2, or pass; it passes
    await expect(ann.locator('.sw-actions button[data-action="C e2:h1"]')).to_be_visible()
    await press(ann, "pass")
    # SW-4.3, SW-4.5: Black can only pass, so the phase ends; SW-5.43: the hit is cleared;
    # SW-4.2: every ship large again at phase 1
    for page in (ann, bob):
        await expect(phase(page)).to_have_text(
            "Turn 2, phase 1 of 8 (movement). White to act; 0 of up to 4 ships moved."
        )
        await label(page, "h5", "White Gunboat, large side up")
        await label(page, "e7", "Black Tractor, large side up")

    # SW-5.14, SW-5.20: by the keyboard, the Gunboat h5 rams the Mothership k8 three squares
    # up and right; SW-8.1: Black has no Mothership left and loses
    await cell(ann, "h5").focus()
    await ann.keyboard.press("Enter")
    await expect(cell(ann, "k8")).to_have_class(re.compile(r"\btarget\b"))
    for key in ("ArrowRight", "ArrowRight", "ArrowRight", "ArrowUp", "ArrowUp", "ArrowUp"):
        await ann.keyboard.press(key)
    await expect(cell(ann, "k8")).to_be_focused()
    await ann.keyboard.press("Enter")
    for page in (ann, bob):
        await expect(page.locator('p.result[title="1-0 (motherships)"]')).to_be_visible()
        await expect(moves(page)).to_have_text(["B e7>h5", "pass", "Rh5xk8"])
        await label(page, "k8", "White Gunboat, large side up, moved")
        await expect(cell(page, "k8")).to_have_class(re.compile(r"\blast\b"))
        await expect(page.get_by_text("Your move", exact=True)).to_have_count(0)

    # The replay: one event back (the ram before the game's end was recorded) the board is
    # drawn again from the past view, with nothing to click and no action buttons
    await ann.get_by_role("button", name="Back one event").click()
    await expect(ann.locator(".replay-where")).to_contain_text("Replaying")
    await label(ann, "k8", "White Gunboat, large side up, moved")
    await expect(ann.locator("svg.spacewar .cell.movable")).to_have_count(0)
    await expect(ann.locator(".sw-actions button")).to_have_count(0)
