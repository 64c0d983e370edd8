"""Screenshots of each board, from a `tabula up` of its own, into docs/screenshots/.

Two guests meet in the lobby for each game and play a few moves through the page (Cyvasse's
setups made on the setup screen, Yavoch's fleets in the placement editor; Yiora as Secondary
Complex, both games on its round board; Spacewar's first movement phase, a Mothership's path
picked in the board's chooser; Spacewar Health/Ammo's first actions, a fire amount picked
alike); the page of the first is captured, at a desktop and at a phone's width.

Run: .venv/bin/python -m tests.browser.screenshots
"""

import asyncio
import re
import tempfile
from pathlib import Path

from playwright.async_api import Page, async_playwright, expect

from tests.browser.conftest import CHROMIUM, challenge, person
from tests.browser.test_play import accept
from tests.stack import embedded_stack

OUT = Path(__file__).parents[2] / "docs" / "screenshots"
OPTIONS = {"yiora": "secondary_complex"}  # the variant each board is shown in, if not the default


async def moves(pages: tuple[Page, Page], count: int) -> None:
    """Up to `count` moves, each by two clicks on the board of whoever has a man to move."""
    for _ in range(count):
        for page in pages:
            if await page.locator(".cell.movable").count():
                listed = page.get_by_role("list", name="moves").locator("li")
                before = await listed.count()
                await page.locator(".cell.movable").first.click()
                await page.locator(".cell.target").first.click()
                chooser = page.locator(  # Spacewar (both parts): 2+ actions on the squares
                    ".sw-choice button[data-action], .ha-choice button[data-action]"
                )
                if await chooser.count():
                    await chooser.first.click()
                await expect(listed).to_have_count(before + 1)
                break


async def shoot(base: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for ruleset in ("chess3d", "cyvasse", "yavoch", "yiora", "spacewar", "spacewar-ha"):
            ann = await person(browser, base, "Ann")
            bob = await person(browser, base, "Bob")
            await challenge(ann, ruleset, variant=OPTIONS.get(ruleset, ""))
            await bob.reload()
            await accept(bob)
            await ann.wait_for_url(re.compile(r"#/games/"))
            if ruleset == "cyvasse":
                await ann.get_by_role("button", name="Random setup").click()
                await ann.screenshot(path=OUT / "cyvasse-setup.png", full_page=True)
                await ann.get_by_role("button", name="Commit my setup").click()
                await bob.get_by_role("button", name="Random setup").click()
                await bob.get_by_role("button", name="Commit my setup").click()
            if ruleset == "yavoch":
                await ann.get_by_role("button", name=re.compile(r"^Levels 1 and 2")).click()
                for page in (ann, bob):
                    await page.get_by_role("button", name="Random placement").click()
                    await page.get_by_role("button", name="Place my fleet").click()
            await expect(ann.get_by_text(re.compile(r"^(Your move|.+ to move)$"))).to_be_visible()
            await moves((ann, bob), 4)
            await ann.screenshot(path=OUT / f"{ruleset}.png", full_page=True)
            await ann.set_viewport_size({"width": 390, "height": 844})
            await ann.screenshot(path=OUT / f"{ruleset}-phone.png")
            await ann.context.close()
            await bob.context.close()
        await browser.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as home, embedded_stack(Path(home)) as up:
        url = re.search(r"Open (http://\S+)/", "".join(up.output))
        assert url, "".join(up.output)
        asyncio.run(shoot(url.group(1)))
    print(f"screenshots in {OUT}")


if __name__ == "__main__":
    main()
