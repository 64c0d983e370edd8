"""The audit page checks an export in the browser and names the event a tampered file breaks,
as the Python audit does (domain/audit) on the same bytes."""

import base64
import re
from pathlib import Path

import httpx
import msgspec
from playwright.async_api import Browser, expect

from domain.audit import audit
from services.cli.records import read_export
from services.runtime.codec import Exported
from tests.browser.test_play import meet

GOLDEN = Path(__file__).parents[1] / "contracts" / "golden"


async def test_the_golden_logs_pass_and_a_changed_byte_is_named(
    browser: Browser, gateway: str, tmp_path: Path
) -> None:
    ann, bob = await meet(browser, gateway, "chess3d")
    game_id = ann.url.split("/")[-1]
    for i, move in enumerate(["IE2-IE4", "IIIE7-IIIE5", "IG1-IF3"]):
        page = (ann, bob)[i % 2]
        await page.get_by_label("action").fill(move)
        await page.get_by_role("button", name="Play", exact=True).click()
        await expect(bob.get_by_role("list", name="moves").locator("li")).to_have_count(i + 1)
    await ann.goto(f"{gateway}/#/audit/{game_id}")
    await expect(ann.get_by_text(re.compile("^The log passes"))).to_be_visible()
    # each golden log, as an arbiter would load it from a file
    for log in sorted(GOLDEN.glob("*.jsonl")):
        await ann.get_by_label("an export file").set_input_files(str(log))
        await expect(ann.get_by_text(f"The log passes: the file {log.name}.")).to_be_visible()
    # one byte changed in the body of event 3, its stored hash kept
    async with httpx.AsyncClient() as http:
        text = (await http.get(f"{gateway}/api/games/{game_id}/export", timeout=30)).text
    lines = [msgspec.json.decode(line, type=Exported) for line in text.splitlines()]
    body = bytearray(base64.b64decode(lines[2].body_b64))
    body[body.index(b"IIIE7") + 4] = ord("6")  # IIIE7-IIIE5 reads IIIE6-IIIE5
    lines[2] = msgspec.structs.replace(lines[2], body_b64=base64.b64encode(body).decode())
    tampered = tmp_path / "tampered.tabula.jsonl"
    tampered.write_bytes(b"".join(msgspec.json.encode(line) + b"\n" for line in lines))
    await ann.get_by_label("an export file").set_input_files(str(tampered))
    verdict = ann.get_by_role("alert")
    await expect(verdict).to_contain_text("The log fails at event 3 (MovePlayed)")
    python = audit(read_export(tampered))  # the same file, checked by domain/audit
    assert python.failure is not None
    assert (python.failure.version, python.failure.type) == (3, "MovePlayed")
    await expect(verdict).to_contain_text(python.failure.message)
