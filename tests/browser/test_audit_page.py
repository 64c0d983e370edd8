"""The audit page checks an export in the browser and names the event a tampered file breaks,
as the Python audit does (domain/audit) on the same bytes."""

import base64
import re
from pathlib import Path

import httpx
import msgspec
import redis.asyncio as aioredis
from playwright.async_api import Browser, expect

from domain.audit import audit
from services.cli.records import read_export, read_export_copies
from services.runtime.codec import Exported
from services.runtime.eventstore import EventStore
from tests.browser.conftest import person
from tests.browser.test_play import meet
from tests.e2e.test_cli import forget, imported

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


async def test_an_export_whose_readable_copy_was_edited_fails_at_its_line(
    browser: Browser, gateway: str, store: EventStore, redis: "aioredis.Redis", tmp_path: Path
) -> None:
    """As `tabula audit --file` (issue 20, item 13): the export the server gives passes, every
    readable copy counted; the same file with one line's `event` edited, its body_b64 and so
    its chain untouched, fails at that line, in the Python audit's words."""
    stored = await imported(store, redis, "chess3d-v1")
    game_id = stored[0].game_id
    try:
        page = await person(browser, gateway, "Ann")
        await page.goto(f"{gateway}/#/audit/{game_id}")
        await expect(
            page.get_by_text("The log passes: the export the server gave.")
        ).to_be_visible()
        counted = f"{len(stored)} readable copies (event) match body_b64"
        await expect(page.get_by_role("row").filter(has_text=counted)).to_be_visible()
        async with httpx.AsyncClient() as http:
            text = (await http.get(f"{gateway}/api/games/{game_id}/export", timeout=30)).text
        lines = [msgspec.json.decode(line) for line in text.splitlines()]
        victim = next(
            line for line in lines if line["type"] == "MovePlayed" and line["version"] > 5
        )
        victim["event"]["move"] = "IA1-IA8"  # what a reader sees; the audited bytes are kept
        edited = tmp_path / "edited.tabula.jsonl"
        edited.write_bytes(b"".join(msgspec.json.encode(line) + b"\n" for line in lines))
        await page.get_by_label("an export file").set_input_files(str(edited))
        verdict = page.get_by_role("alert")
        v = victim["version"]
        await expect(verdict).to_contain_text(f"The log fails at event {v} (MovePlayed)")
        in_file, copies = read_export_copies(edited)
        python = audit(in_file, readable=copies)  # the same file, checked by domain/audit
        assert python.failure is not None
        assert (python.failure.version, python.failure.type) == (v, "MovePlayed")
        assert python.failure.message.startswith(f"line {v}: its readable copy (event) is not")
        await expect(verdict).to_contain_text(python.failure.message)
        # An integer made a float reads the same to JSON.parse, but is not what msgspec decodes.
        victim["event"]["move"] = msgspec.json.decode(base64.b64decode(victim["body_b64"]))["move"]
        seat = next(
            line for line in lines if line["event"].get("seat") == 0 and line["version"] > 1
        )
        seat["event"]["seat"] = 0.0
        floated = tmp_path / "floated.tabula.jsonl"
        floated.write_bytes(b"".join(msgspec.json.encode(line) + b"\n" for line in lines))
        await page.get_by_label("an export file").set_input_files(str(floated))
        await expect(verdict).to_contain_text(
            f"The log fails at event {seat['version']} ({seat['type']}): line {seat['version']}: "
            "its readable copy (event) is not its body_b64 decoded"
        )
    finally:
        await forget(redis, game_id)
