"""The page asks before an action that would lose the game at once (issue 23): the page sends
every action `careful`; the rules service refuses one that would end the game against its own
seat (`action/loses-the-game`), changing nothing, and the page asks its player with `confirm()`;
confirmed, it sends the action again without `careful` and it is played."""

import asyncio
import re

from playwright.async_api import Browser, Dialog, Locator, Page, expect

from tests.browser.conftest import SLOW, challenge, person

# Captain Decker's Yavoch from a hand-set position (docs/rules/yavoch.md, "Hand-set positions"):
# player one (seat 0, to move) has a Command ship with no energy at 111 and a Trych at 121;
# player two a Command ship with 3 at 511 and a Trych. After T121-131 player one may only END
# (or resign, or offer a draw), and END ends the game against him: a Command ship with no
# energy at the end of its owner's turn loses (Y-8.3, "dead_command_ship"). Checked with the
# domain code (domain.yavoch through the registry's create, legal_actions and decide).
POSITION = "1C111 1T121 2C511:3 2T521 / 1"
LOSS = "your Command ship ran out of energy"


def status(page: Page, words: str) -> Locator:
    return page.get_by_role("status").filter(has_text=re.compile(rf"^\s*{re.escape(words)}\s*$"))


def moves(page: Page) -> Locator:
    return page.get_by_role("list", name="moves").locator("li")


async def typed(page: Page, action: str) -> None:
    """Type `action` in the page's action box and press Play."""
    await page.get_by_label("action").fill(action)
    await page.get_by_role("button", name="Play", exact=True).click()


async def version(page: Page, game: str) -> int:
    """The game's version (its log's length), as GET /api/games/<id> tells this page."""
    at: int = await page.evaluate(
        "async (id) => (await (await fetch(`/api/games/${id}`)).json()).view.version", game
    )
    return at


async def test_an_action_that_loses_at_once_is_confirmed_first_dismissed_then_played(
    browser: Browser, gateway: str
) -> None:
    """Issue 23 ("actions that lose on the spot are marked before they are made"): in Yavoch,
    Ann's END that would lose her the game at once (her Command ship has no energy) brings up
    the page's confirm dialog, in words ("'END' would lose you the game at once: your Command
    ship ran out of energy. Play it anyway?"). Dismissed, it changes nothing: no event appended
    (the game's version and move list as before), still her move, no error shown, Bob's page
    unchanged. Asked again and accepted, END is played: both pages show the loss in words
    ("You lost: your Command ship ran out of energy", and Bob's win)."""
    ann, bob = await person(browser, gateway, "AnnCf"), await person(browser, gateway, "BobCf")
    await challenge(ann, "yavoch", position=POSITION)
    await bob.reload()
    row = bob.get_by_role("row").filter(has_text="yavoch").filter(has_text="AnnCf")
    await row.get_by_role("button", name="Accept").click()
    await bob.wait_for_url(re.compile(r"#/games/"))
    await ann.wait_for_url(re.compile(r"#/games/"), timeout=SLOW)
    game = ann.url.split("#/games/")[1]
    # the seeds, made by both pages by themselves; then Ann, player one, is to move
    await expect(status(ann, "Your move")).to_be_visible(timeout=SLOW)
    await typed(ann, "T121-131")
    await expect(moves(ann).last).to_have_text("T121-131")
    await expect(moves(bob).last).to_have_text("T121-131")
    await expect(status(ann, "Your move")).to_be_visible()
    before = await version(ann, game)
    played = await moves(ann).all_inner_texts()

    dialogs: list[Dialog] = []
    shown = [asyncio.Event(), asyncio.Event()]  # the first dialog, the second

    async def answer(dialog: Dialog) -> None:
        dialogs.append(dialog)
        if len(dialogs) == 1:
            await dialog.dismiss()
        else:
            await dialog.accept()
        shown[min(len(dialogs), 2) - 1].set()  # answered

    ann.on("dialog", answer)
    await typed(ann, "END")
    await asyncio.wait_for(shown[0].wait(), SLOW / 1000)
    asked = dialogs[0]
    assert asked.type == "confirm"
    assert asked.message == (
        f"'END' would lose you the game at once: {LOSS}.\n\nPlay it anyway?"
    ), asked.message
    # dismissed: the action is dropped from the page's outbox, nothing was appended (had it
    # been sent anyway, the game would be over and the second END below asked nothing)
    await expect(ann.locator("p.outbox")).to_have_count(0)
    assert await version(ann, game) == before
    await expect(moves(ann)).to_have_text(played)
    await expect(status(ann, "Your move")).to_be_visible()
    await expect(ann.get_by_role("alert")).to_be_hidden()
    await expect(ann.locator("p.result")).to_have_count(0)
    await expect(moves(bob)).to_have_text(played)
    await expect(status(bob, "AnnCf to move")).to_be_visible()

    # asked again, accepted: played without `careful`, and lost by it
    await typed(ann, "END")
    await asyncio.wait_for(shown[1].wait(), SLOW / 1000)
    assert dialogs[1].message == asked.message
    await expect(ann.locator("p.result")).to_have_text(f"You lost: {LOSS}", timeout=SLOW)
    await expect(bob.locator("p.result")).to_have_text(
        "You won because the opponent's Command ship ran out of energy", timeout=SLOW
    )
    assert await version(ann, game) > before
    await expect(moves(ann)).to_contain_text(["END"])
    assert len(dialogs) == 2
