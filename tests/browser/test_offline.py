"""The page through a gateway restart: it shows the connection's state, takes no moves while the
gateway is away, and sends a move whose answer was lost again, with its command id, once the
gateway is back: applied once. Every page runs under the gateway's Content-Security-Policy,
and none of them trips it."""

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from playwright.async_api import Browser, Page, Request, Route, expect

from services.gateway.__main__ import listen, serving
from services.gateway.people import Limits
from services.runtime.config import Settings
from tests.browser.conftest import SLOW, challenge, moves, person

# Every Content-Security-Policy violation on the page, from its first script on.
WATCH_CSP = """window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));"""


class Restartable:
    """The gateway on one port, stopped and started again as an operator restarts it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        sock = listen("127.0.0.1", 0)
        self.port = sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.sock: Any = sock
        self.running: contextlib.AsyncExitStack | None = None

    async def start(self) -> None:
        sock = self.sock or listen("127.0.0.1", self.port)
        self.sock = None
        self.running = contextlib.AsyncExitStack()
        await self.running.enter_async_context(
            serving(self.settings, sock, Limits(100_000, 100_000, 1_000))
        )

    async def stop(self) -> None:
        if self.running is not None:
            await self.running.aclose()
            self.running = None


@pytest.fixture
async def restartable(
    stack: Settings, role_settings: Callable[[str], Settings]
) -> AsyncIterator[Restartable]:
    gateway = Restartable(role_settings("gateway"))
    await gateway.start()
    try:
        yield gateway
    finally:
        await gateway.stop()


async def signed_in(browser: Browser, base: str, name: str) -> Page:
    """A guest in a context of its own, watched for CSP violations from the first page on."""
    return await person(browser, base, name, WATCH_CSP)


async def violations(page: Page) -> list[str]:
    found: list[str] = await page.evaluate("window.__csp")
    return found


async def test_a_restart_is_shown_and_a_move_with_a_lost_answer_is_applied_once(
    browser: Browser, restartable: Restartable
) -> None:
    base = restartable.base
    ann = await signed_in(browser, base, "Ann")
    bob = await signed_in(browser, base, "Bob")
    await challenge(ann, "chess3d")
    await bob.reload()
    await bob.get_by_role("button", name="Accept").first.click()
    await bob.wait_for_url(re.compile(r"#/games/"))
    await ann.wait_for_url(re.compile(r"#/games/"), timeout=SLOW)
    game_id = ann.url.split("/")[-1]
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    await expect(ann.get_by_text("Live.")).to_be_visible()
    await expect(ann.locator("#connection")).to_have_text("Online")

    # Ann's move reaches the gateway and is applied; its answer is lost as the gateway stops.
    command_ids: list[str] = []

    def posted(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/actions"):
            command_ids.append(json.loads(request.post_data or "{}")["command_id"])

    ann.on("request", posted)
    applied, lost = asyncio.Event(), asyncio.Event()

    async def hold(route: Route) -> None:
        if applied.is_set():  # the page's retry
            await route.continue_()
            return
        await route.fetch()  # the gateway applies it; the page hears nothing yet
        applied.set()
        await lost.wait()
        await route.abort("connectionfailed")  # the page's fetch: TypeError, Failed to fetch

    await ann.route("**/actions", hold)
    await ann.get_by_label("action").fill("IE2-IE4")
    await ann.get_by_role("button", name="Play", exact=True).click()
    await asyncio.wait_for(applied.wait(), 20)
    await expect(moves(bob)).to_have_text(["IE2-IE4"], timeout=SLOW)  # applied: Bob's turn
    await expect(bob.get_by_text("Your move", exact=True)).to_be_visible()

    await restartable.stop()
    lost.set()
    for page in (ann, bob):
        await expect(page.locator("#connection")).to_have_text(re.compile("^Offline"),
                                                               timeout=SLOW)  # fmt: skip
        await expect(page.get_by_text("Your move", exact=True)).to_have_count(0)
        await expect(page.get_by_text("Live.", exact=True)).to_have_count(0)
        await expect(page.get_by_text("Offline: moves wait")).to_be_visible()
    # Bob, whose move it is, cannot make one; Ann's waits to be sent.
    await expect(bob.get_by_label("action")).to_be_disabled()
    await expect(bob.get_by_role("button", name="Play", exact=True)).to_be_disabled()
    await expect(bob.get_by_role("button", name="resign")).to_be_disabled()
    assert await bob.locator(".board-area").evaluate("e => e.inert")
    await expect(ann.get_by_text("Sending IE2-IE4")).to_be_visible()
    await expect(ann.get_by_role("alert")).to_have_count(0)  # no "Failed to fetch"

    await restartable.start()
    for page in (ann, bob):
        await expect(page.locator("#connection")).to_have_text("Online", timeout=SLOW)
        await expect(page.get_by_text("Live.", exact=True)).to_be_visible()
        await expect(moves(page)).to_have_text(["IE2-IE4"])
    await expect(ann.get_by_text("Sending IE2-IE4")).to_have_count(0, timeout=SLOW)
    await expect(bob.get_by_text("Your move", exact=True)).to_be_visible()
    await expect(bob.get_by_label("action")).to_be_enabled()
    await expect(ann.get_by_role("alert")).to_have_count(0)
    # Sent twice with one command id, applied once: one event after the game's start.
    assert len(command_ids) == 2
    assert command_ids[0] == command_ids[1]
    events = await ann.evaluate(
        f"fetch('/api/games/{game_id}/events?after=0').then((r) => r.json())"
    )
    assert [re.sub(r"^\d+ ", "", e["action"]) for e in events if e["action"]] == ["IE2-IE4"]
    receipts = await ann.evaluate(f"localStorage.getItem('tabula:receipts:{game_id}')")
    assert json.loads(receipts)[-1]["duplicate"] is True

    # The rules page and the audit page work under the policy too.
    rules = await ann.context.new_page()
    await rules.goto(f"{base}/rules/chess3d")
    await expect(rules.locator("body")).to_have_css("max-width", "800px")  # its style applied
    await ann.goto(f"{base}/#/audit/{game_id}")
    await expect(ann.get_by_text("The log passes")).to_be_visible(timeout=SLOW)
    for page in (ann, bob, rules):
        assert await violations(page) == []
