"""The game page's replay scrubber (the board after any event, from the authority, taking no
clicks) and its list of dice and cards, each with its nonce and a proof link to the audit
page's check of that one draw."""

import re

import httpx
import msgspec
from playwright.async_api import Browser, Locator, Page, expect

from domain import fairplay
from services.runtime.codec import Exported
from tests.browser.test_play import meet
from tests.rulesets import register

register()


async def type_move(page: Page, move: str) -> None:
    await page.get_by_label("action").fill(move)
    await page.get_by_role("button", name="Play", exact=True).click()


def cell(page: Page, name: str) -> Locator:
    return page.locator(f'[data-cell="{name}"]')


async def test_scrubbing_back_shows_the_earlier_board_which_takes_no_clicks(
    browser: Browser, gateway: str
) -> None:
    ann, bob = await meet(browser, gateway, "chess3d")
    moves = ["IE2-IE4", "IIIE7-IIIE5", "IG1-IF3", "IIIB8-IIIC6"]
    for i, move in enumerate(moves):
        await type_move((ann, bob)[i % 2], move)
        await expect(ann.get_by_role("list", name="moves").locator("li")).to_have_count(i + 1)
    board = ann.locator(".board-area")
    await expect(board).to_have_attribute("data-version", "5")  # GameCreated and four moves
    await expect(ann.locator(".cell.movable").first).to_be_visible()  # White to move, live
    # Back two events by keyboard: the board after Black's first move, from the service
    slider = ann.get_by_role("slider", name="Replay", exact=True)
    await slider.focus()
    await slider.press("ArrowLeft")
    await slider.press("ArrowLeft")
    await expect(board).to_have_attribute("data-version", "3")
    await expect(slider).to_be_focused()
    await expect(cell(ann, "IG1")).to_have_attribute("aria-label", "IG1: White Knight")
    await expect(cell(ann, "IIIE5")).to_have_attribute("aria-label", "IIIE5: Black pawn")
    await expect(cell(ann, "IIIC6")).to_have_attribute("aria-label", "IIIC6: empty")
    listed = ann.get_by_role("list", name="moves")
    await expect(listed.locator('[aria-current="step"]')).to_have_text("IIIE7-IIIE5")
    await expect(listed.locator(".ahead")).to_have_count(2)
    # White was to move then, yet the past board offers nothing and takes no click
    await expect(board).to_have_attribute("inert", "")
    await expect(ann.locator(".cell.movable")).to_have_count(0)
    await cell(ann, "IG1").click(force=True)
    await expect(ann.locator(".cell.selected, .cell.target")).to_have_count(0)
    await expect(ann.get_by_label("action")).to_have_count(0)
    # the ◀ button: one more event back, before Black's pawn moved
    await ann.get_by_role("button", name="Back one event").click()
    await expect(board).to_have_attribute("data-version", "2")
    await expect(cell(ann, "IIIE7")).to_have_attribute("aria-label", "IIIE7: Black pawn")
    await expect(cell(ann, "IE4")).to_have_attribute("aria-label", "IE4: White pawn")
    # Live: the game as it is, White's move to make by clicks again
    await ann.get_by_role("button", name="Live").click()
    await expect(board).to_have_attribute("data-version", "5")
    await expect(board).not_to_have_attribute("inert", "")
    await expect(cell(ann, "IIIC6")).to_have_attribute("aria-label", "IIIC6: Black Knight")
    await cell(ann, "IF3").click()
    await expect(ann.locator(".cell.target").first).to_be_visible()
    await ann.locator(".cell.target").first.click()
    await expect(bob.get_by_role("list", name="moves").locator("li")).to_have_count(5)
    await expect(board).to_have_attribute("data-version", "6")


async def roll_until_the_end(ann: Page, bob: Page) -> None:
    for _ in range(60):
        for page in (ann, bob):
            if await page.locator("p.result").count():
                return
            if await page.get_by_text("Your move", exact=True).count():
                await type_move(page, "roll")
                await expect(page.get_by_text("Your move", exact=True)).to_have_count(0)
    raise AssertionError("the race did not end")


async def test_each_roll_is_listed_with_its_nonce_and_its_proof_checks_it_at_the_end(
    browser: Browser, gateway: str
) -> None:
    ann, bob = await meet(browser, gateway, "race")
    game_id = ann.url.split("/")[-1]
    for page, boost in ((ann, "0"), (bob, "0")):
        await page.get_by_label("Boost (RACE-1):").select_option(boost)
        await page.get_by_role("button", name="Commit my setup").click()
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible()
    await type_move(ann, "roll")
    draws = ann.get_by_role("list", name="dice and cards").locator("li")
    await expect(draws).to_have_count(1)
    first = draws.first
    listed = re.compile(r"^die\(6\) for roll: [0-5] \(faces 0–5\) · nonce 0 · proof")
    await expect(first).to_contain_text(listed)
    await expect(first).to_contain_text("verifiable once the seed is revealed at the end")
    version = await first.get_attribute("data-version")
    # in play, the proof says it cannot be checked yet rather than pretending
    await first.get_by_role("link", name="proof").click()
    await ann.wait_for_url(re.compile(rf"#/audit/{game_id}/{version}$"))
    proof = ann.get_by_role("region", name=f"the proof of event {version}")
    await expect(proof).to_contain_text("Verifiable once the seed is revealed at the end")
    await ann.get_by_role("link", name="Back to the game").click()
    await expect(ann.locator(".board-area svg.race")).to_be_visible()
    await roll_until_the_end(ann, bob)
    await expect(draws.first).not_to_contain_text("verifiable once")
    await expect(ann.get_by_role("list", name="dice and cards")).to_contain_text("nonce 1")
    # after the end: the proof recomputes the roll from the revealed seed, in this browser
    async with httpx.AsyncClient() as http:
        text = (await http.get(f"{gateway}/api/games/{game_id}/export", timeout=30)).text
    lines = [msgspec.json.decode(line, type=Exported) for line in text.splitlines()]
    bodies = {line.version: line.event for line in lines}
    seed = next(b["server_seed"] for b in bodies.values() if b["type"] == "SeedRevealed")
    revealed = [b for b in bodies.values() if b["type"] == "ClientSeedRevealed"]
    seeds = [b["seed"] for b in sorted(revealed, key=lambda b: b["seat"])]  # in seat order
    assert len(seeds) == 2
    roll = bodies[int(version or 0)]
    assert (roll["type"], roll["nonce"]) == ("RandomDrawn", 0)
    value = fairplay.die(seed, game_id, fairplay.mix(seeds), 0, 6)
    assert value == roll["value"]
    await expect(draws.first).to_contain_text(f"die(6) for roll: {value} ")
    await draws.first.get_by_role("link", name="proof").click()
    await ann.wait_for_url(re.compile(rf"#/audit/{game_id}/{version}$"))
    await expect(proof.get_by_role("status")).to_have_text(
        f"✓ Event {version}, die(6) for roll: the seeds give what the log recorded."
    )
    rows = proof.get_by_role("row")
    await expect(rows.filter(has_text="nonce")).to_have_text(re.compile(r"nonce\s*0$"))
    await expect(rows.filter(has_text="recorded in the log")).to_contain_text(str(value))
    recomputed = "recomputed from the revealed seed"
    await expect(rows.filter(has_text=recomputed)).to_have_text(
        re.compile(rf"{recomputed}\s*{value}$")
    )
    await expect(rows.filter(has_text="server seed")).to_contain_text(seed)
    await expect(ann.get_by_text("The log passes: the export the server gave.")).to_be_visible()
