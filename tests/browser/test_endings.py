"""Games played to their natural ends through the web client (issue 12): two browsers meet in
the lobby and play 3-D Chess, Cyvasse and Yavoch by clicks on the board (and the panel's
buttons) until the rules end the game; no resignation. A long game starts from a set position
near its end, entered in the challenge form's "Start from a position". The race test ruleset is
left to test_play.py, which already plays it to its finish.

The positions and lines below were checked with the domain code (the rulesets' own `create`,
`legal_actions` and `decide`) before they were written here; each test says which line it plays.
"""

import json
import re
from collections.abc import Callable

from playwright.async_api import Browser, Locator, Page, WebSocket, WebSocketRoute, expect

from tests.browser.conftest import challenge, person

SLOW = 20_000  # ms: waits that cross the services (a reveal, a reconnect) on a slow machine


async def meet(
    browser: Browser,
    gateway: str,
    ruleset: str,
    names: tuple[str, str],
    *,
    script: str = "",
    frames: list[str] | None = None,
    **options: str,
) -> tuple[Page, Page]:
    """The first person opens a challenge, the second accepts that one (by its challenger's
    name: the store outlives a test, and so may another test's challenge); both reach the game.
    `script`: run in the second person's page from its reload on; `frames`: where to keep what
    the first person's WebSockets receive."""
    first, second = names
    ann = await person(browser, gateway, first)
    bob = await person(browser, gateway, second)
    if frames is not None:
        ann.on("websocket", recorder(frames))
    await challenge(ann, ruleset, **options)
    if script:
        await bob.add_init_script(script)
    await bob.reload()
    row = bob.get_by_role("row").filter(has_text=ruleset).filter(has_text=first)
    await row.get_by_role("button", name="Accept").click()
    await bob.wait_for_url(re.compile(r"#/games/"))
    await ann.wait_for_url(re.compile(r"#/games/"))
    return ann, bob


def recorder(frames: list[str]) -> Callable[[WebSocket], None]:
    """A page's "websocket" handler keeping the text of every frame the page receives."""

    def listen(ws: WebSocket) -> None:
        ws.on("framereceived", lambda data: frames.append(text_of(data)))

    return listen


def text_of(frame: str | bytes) -> str:
    return frame if isinstance(frame, str) else frame.decode()


def moves(page: Page) -> Locator:
    return page.get_by_role("list", name="moves").locator("li")


async def click_move(page: Page, start: str, end: str, text: str) -> None:
    """The player to move clicks `start`, then the highlighted `end`: the move `text` is made."""
    await expect(page.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    await page.locator(f'[data-cell="{start}"]').click()
    await expect(page.locator(f'[data-cell="{end}"].target')).to_be_visible()
    await page.locator(f'[data-cell="{end}"]').click()
    await expect(moves(page).last).to_have_text(text)


async def press(page: Page, action: str) -> None:
    """Press the panel's button for the legal action `action` (a transfer, END, a shot)."""
    before = await moves(page).count()
    await page.locator(f'button[data-action="{action}"]').click()
    await expect(moves(page).last).to_have_text(action)
    await expect(moves(page)).to_have_count(before + 1)


# -- 3-D Chess -------------------------------------------------------------------------------

# White: Queen IG8, Rook IIF6, King IIIF8; Black: King IIIH8; White to move. After IG8-IG7 Black
# has one legal move, IIIH8-IIIH7, and IG7-IIIG7 mates (checked with domain.chess3d: the
# position parses, nobody is in check, the line ends in GameEnded 1-0 "checkmate").
MATE_IN_TWO = "6Q1/8/8/8/8/8/8/8|8/8/5R2/8/8/8/8/8|5K1k/8/8/8/8/8/8/8 w - - - 0 1 -"


async def test_3d_chess_from_a_set_position_to_checkmate(browser: Browser, gateway: str) -> None:
    ann, bob = await meet(browser, gateway, "chess3d", ("Ann3d", "Bob3d"), position=MATE_IN_TWO)
    await expect(ann.locator('[data-cell="IG8"]')).to_have_attribute(
        "aria-label", "IG8: White Queen"
    )
    await click_move(ann, "IG8", "IG7", "IG8-IG7")
    # Black's one legal move: the page offers only its King, and only IIIH7 for it
    await expect(bob.get_by_text("Your move", exact=True)).to_be_visible()
    await expect(bob.locator(".cell.movable")).to_have_count(1)
    await click_move(bob, "IIIH8", "IIIH7", "IIIH8-IIIH7")
    await click_move(ann, "IG7", "IIIG7", "IG7-IIIG7")
    # C3-7.1: the checkmated side loses (checked first of the end checks, C3-4.4)
    for page in (ann, bob):
        await expect(page.locator('p.result[title="1-0 (checkmate)"]')).to_be_visible()
        await expect(moves(page)).to_have_text(["IG8-IG7", "IIIH8-IIIH7", "IG7-IIIG7"])
        await expect(page.locator('[data-cell="IIIG7"]')).to_have_attribute(
            "aria-label", "IIIG7: White Queen"
        )
        await expect(page.get_by_role("button", name="resign")).to_have_count(0)
        await expect(page.get_by_text("Your move", exact=True)).to_have_count(0)


# -- Cyvasse ---------------------------------------------------------------------------------

# Version A on 8x8 (the default variant). Both setups obey CY-3.2 to CY-3.4 (domain.cyvasse
# parse_setup accepts them); at the reveal neither King is attacked (no CY-R60 capture), and
# White mates in two: e1-f1 (a waiting move), h5xg4 (Black's Spears take the Light Horse),
# f4xg4 (the Elephant takes back and mates the King on g5).
WHITE_SETUP = {
    "f2": "K", "a2": "D", "h4": "T", "e3": "T", "e1": "E", "f4": "E", "d2": "H", "b2": "H",
    "h2": "C", "d1": "C", "e4": "L", "g4": "L", "b1": "S", "c1": "S", "c3": "S", "b4": "S",
    "a3": "R", "g2": "R", "c2": "R", "a1": "R", "g3": "M", "f3": "M", "e2": "M", "g1": "M",
    "d3": "M", "b3": "M",
}  # fmt: skip
BLACK_SETUP = {
    "g5": "K", "e6": "D", "e7": "T", "b7": "T", "e8": "E", "g8": "E", "d5": "H", "c8": "H",
    "a8": "C", "b5": "C", "h7": "L", "c6": "L", "g7": "S", "h5": "S", "d8": "S", "d6": "S",
    "c5": "R", "b6": "R", "g6": "R", "f5": "R", "c7": "M", "a7": "M", "a6": "M", "h6": "M",
    "f6": "M", "f7": "M",
}  # fmt: skip
ARMY_ORDER = "KDTEHCLSRM"  # the setup screen's palette order: it moves on to the next man itself
MEN = {
    "K": "King", "D": "Dragon", "T": "Trebuchet", "E": "Elephant", "H": "Heavy Horse",
    "C": "Crossbowmen", "L": "Light Horse", "S": "Spears", "R": "Rabble", "M": "Mountain",
}  # fmt: skip


async def place_setup(page: Page, side: str, men: dict[str, str]) -> None:
    """Behind the screen (CY-3.1): click each man onto its square, in the palette's order; the
    page checks the setup as the engine will, then commits it."""
    screen = page.locator(".cy-setup")
    await expect(screen).to_be_visible(timeout=SLOW)
    for cell, letter in sorted(men.items(), key=lambda m: ARMY_ORDER.index(m[1])):
        await screen.locator(f'[data-cell="{cell}"]').click()
        await expect(screen.locator(f'[data-cell="{cell}"]')).to_have_attribute(
            "aria-label", f"{cell}: {side} {MEN[letter]}"
        )
    await expect(screen.get_by_role("status")).to_have_text(re.compile(r"^Valid setup"))
    await screen.get_by_role("button", name="Commit my setup").click()


async def test_cyvasse_setups_placed_by_clicks_then_checkmate(
    browser: Browser, gateway: str
) -> None:
    ann, bob = await meet(browser, gateway, "cyvasse", ("AnnCy", "BobCy"))
    await place_setup(ann, "White", WHITE_SETUP)
    await place_setup(bob, "Black", BLACK_SETUP)
    # CY-3.1.3: both revealed by the pages and placed; White moves first (CY-3.7)
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    for page in (ann, bob):
        await expect(page.locator('[data-cell="g5"]')).to_have_attribute(
            "aria-label", "g5: Black King"
        )
        await expect(page.locator('[data-cell="f2"]')).to_have_attribute(
            "aria-label", "f2: White King"
        )
    await click_move(ann, "e1", "f1", "e1-f1")
    await click_move(bob, "h5", "g4", "h5xg4")
    await click_move(ann, "f4", "g4", "f4xg4")
    # CY-7.1 (version A): in check with no legal action, Black loses (CY-4.4's first check)
    for page in (ann, bob):
        await expect(page.locator('p.result[title="1-0 (checkmate)"]')).to_be_visible()
        await expect(moves(page)).to_have_text(["e1-f1", "h5xg4", "f4xg4"])
        await expect(page.get_by_text("Your move", exact=True)).to_have_count(0)


async def test_a_reveal_waits_for_the_events_its_view_is_ahead_of(
    browser: Browser, gateway: str
) -> None:
    """Bob's page fetches a view that already holds his setup commit while its feed has not
    yet brought the commit's event (held back here). Judged from the events alone, his commit
    would look unmade and the setup screen would come back for a second commitment; the page
    must wait for the events instead, then reveal (CY-3.1.3)."""
    ann, bob = await meet(browser, gateway, "cyvasse", ("AnnAhead", "BobAhead"))
    feeds: list[WebSocketRoute] = []
    held: list[str] = []

    def hold_from_bobs_commit(ws: WebSocketRoute) -> None:
        feeds.append(ws)
        server = ws.connect_to_server()

        def forward(message: str | bytes) -> None:
            frame = json.loads(message)
            if held == ["released"] or frame.get("type") != "events":
                ws.send(message)
                return
            # Up to Ann's commit (version 2) now; from Bob's own commit (3) on, held.
            now = [e for e in frame["events"] if e["version"] < 3]
            later = [e for e in frame["events"] if e["version"] >= 3]
            if now:
                ws.send(json.dumps({**frame, "events": now}))
            if later:
                held.append(json.dumps({**frame, "events": later}))

        server.on_message(forward)

    await bob.route_web_socket(re.compile(r"/ws\?"), hold_from_bobs_commit)
    await place_setup(ann, "White", WHITE_SETUP)
    await place_setup(bob, "Black", BLACK_SETUP)
    # Bob's page draws a view past his commit, then looks for a step it owes: none yet
    await expect(bob.get_by_role("slider", name="Replay")).to_have_attribute(
        "aria-valuetext", re.compile(r"^live, event [34]$"), timeout=SLOW
    )
    await expect(bob.locator(".cy-setup")).to_have_count(0)
    assert held, "the feed brought Bob's commit before his page drew a view holding it"
    frames, held[:] = list(held), ["released"]
    for frame in frames:
        feeds[-1].send(frame)
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible(timeout=SLOW)
    await expect(bob.locator('[data-cell="g5"]')).to_have_attribute("aria-label", "g5: Black King")


# -- Yavoch ----------------------------------------------------------------------------------

# The Full Yavoch from the start: its position notation holds the field only, no hands or deck
# (docs/rules/yavoch.md, "Position notation"), so a game with cards in hand starts with the
# setup. Player one's Command ship at 211 and player two's at 411 stand on one slant column
# (SU from 211: 311, empty, then 411), off the core positions (Y-1.9: x = 3 or y = 3), so Core
# Anomaly or Core Dump between turns cannot touch them and the asteroids strike level 3 only.
# Turn 1: a Trych steps, the Neornith at 212 gives the Command ship a unit (2 units), END and a
# card drawn; turn 2: player two's Trych steps, END and a card drawn; turn 3: the HEP CAT fires
# at 411 and destroys the enemy Command ship with a unit to spare (checked with domain.yavoch).
P1_FLEET = [
    "211", "212", "213", "214", "221", "222", "223", "224", "231", "232", "111", "112",
    "113", "114", "115", "121", "122", "123", "124", "125", "151", "155",
]  # fmt: skip  # C, N N N, S S S S, A A, T x 10, G G: the editor's order (FLEET_ORDER)
FLEET_KINDS = "CNNNSSSSAATTTTTTTTTTGG"
P2_FLEET = [{"1": "5", "2": "4"}[p[0]] + p[1:] for p in P1_FLEET]  # the mirror: C411, T521...
COMPONENT = re.compile(r"C-[A-Z]{3}-[TSNAX]")  # a component card's face (Y-2.7)


async def place_fleet(page: Page, cells: list[str]) -> None:
    """The placement editor (Y-3.2): each click places the next piece of the fleet."""
    await expect(page.get_by_role("button", name="Random placement")).to_be_visible(timeout=SLOW)
    for cell in cells:
        await page.locator(f'[data-cell="{cell}"]').click()
    await page.get_by_role("button", name="Place my fleet").click()


async def test_full_yavoch_to_a_destroyed_command_ship_with_a_spectator(
    browser: Browser, gateway: str
) -> None:
    """Two players with cards in hand, watched by a third browser that sees every move and no
    card face of either hand (Y-7.2, Y-7.3), neither on its page nor in its WebSocket frames."""
    ann_frames: list[str] = []
    ann, bob = await meet(
        browser, gateway, "yavoch", ("AnnYv", "BobYv"), frames=ann_frames, variant="full"
    )
    game = ann.url.split("#")[1]
    cat = await person(browser, gateway, "CatYv")
    frames: list[str] = []
    cat.on("websocket", recorder(frames))
    await cat.goto(f"{gateway}/#{game}")
    await expect(cat.get_by_role("heading", name=re.compile(r"^yavoch \(full"))).to_be_visible()

    await ann.get_by_role("button", name=re.compile(r"^Levels 1 and 2")).click()
    await place_fleet(ann, P1_FLEET)
    await place_fleet(bob, P2_FLEET)
    # turn 1: a Trych steps, a unit passes to the Command ship (Y-5.54), END; a card is drawn
    await click_move(ann, "121", "131", "T121-131")
    await press(ann, "E212>211")
    await press(ann, "END")
    # turn 2
    await click_move(bob, "521", "531", "T521-531")
    await press(bob, "END")
    await expect(ann.get_by_text("Your move", exact=True)).to_be_visible()

    # Each seat sees the faces of the cards dealt to it (Y-7.3): one drawn at the end of its
    # turn; an impact card may be found on the way (Y-6.14) and its event may move or discard
    # cards (Engineering Failure, Enemy Defector: Y-6.21, Y-6.22).
    cards: dict[int, list[str]] = {0: [], 1: []}
    secrets = []
    for page, seat in ((ann, 0), (bob, 1)):
        own = page.get_by_role("list", name="dice and cards").get_by_text(
            f"card to seat {seat} (yours): "
        )
        await expect(own.first).to_be_visible()
        for text in await own.all_inner_texts():
            card = COMPONENT.search(text)
            if card is None:  # an impact card found on the way is turned up for all (Y-6.15)
                assert re.search(r": I-[A-Z]+ ", text), text
                continue
            cards[seat].append(card[0])
            secrets += [card[0], await card_words(page, card[0])]
    assert cards[0], "no component card dealt to Ann"
    assert cards[1], "no component card dealt to Bob"
    played = ["T121-131", "E212>211", "END", "T521-531", "END"]
    seats_moves = await moves(ann).all_inner_texts()
    assert seats_moves[-5:] == played, seats_moves
    await expect(moves(cat)).to_have_text(seats_moves)  # the spectator sees every move
    await expect(moves(bob)).to_have_text(seats_moves)
    # the spectator sees how many cards each hand holds (Y-7.2), not which
    for player in (1, 2):
        hand = cat.locator(".hand").filter(has_text=f"Player {player}'s hand: ")
        await expect(hand).to_have_text(re.compile(r"^Player \d's hand: \d+ cards?$"))
    page_text = await cat.content()
    for secret in secrets:
        assert secret not in page_text, f"the spectator's page shows {secret}"
    assert not COMPONENT.search(page_text), COMPONENT.search(page_text)
    assert frames, "the spectator's WebSocket received nothing"
    seen = "\n".join(frames)
    assert not COMPONENT.search(seen), f"a card face reached the spectator: {seen[:2000]}"
    assert "T521-531" in seen  # the frames were the game's events
    # ... and the scan finds a card face where one is sent: in Ann's frames, her own card
    assert all(card in "\n".join(ann_frames) for card in cards[0]), cards

    # turn 3: the HEP CAT at the enemy Command ship (Y-5.60 to Y-5.64)
    await ann.locator('button[data-action="C211*411"]').click()
    # Y-8.1: the destroyed Command ship's owner loses (not a draw: 1 unit left, Y-8.2); the
    # whole log is public now (Y-7.7): the setup's actions join the move list
    whole = [
        "levels 12",
        "place " + " ".join(f"{k}{c}" for k, c in zip(FLEET_KINDS, P1_FLEET, strict=True)),
        "place " + " ".join(f"{k}{c}" for k, c in zip(FLEET_KINDS, P2_FLEET, strict=True)),
        *played,
        "C211*411",
    ]
    for page in (ann, bob, cat):
        await expect(page.locator('p.result[title="1-0 (command_ship_destroyed)"]')).to_be_visible()
        await expect(moves(page)).to_have_text(whole)


async def card_words(page: Page, card: str) -> str:
    """The words the web client writes for `card` on a page that may see it (yavoch.js
    cardName): "Graviton Polarizer, for a Squam"."""
    words = await page.evaluate(
        "async (card) => (await import('/static/boards/yavoch.js')).cardName(card)", card
    )
    assert isinstance(words, str), words
    assert " (" in words, words
    return words.split(" (")[0]


# -- A reconnect -----------------------------------------------------------------------------

# Captain Decker's Yavoch from a set position (setup skipped; player one on levels 1 and 2): a
# turn is several actions (MOVE, transfers, END), so a dropped socket misses several events.
# Checked with domain.yavoch: every action below is legal in turn.
SMALL_FLEETS = "1T121 1C211:1 1N212:1 1S222:1 2S444:1 2N454:1 2C455:1 2T545 / 1"
# The page's sockets, kept where the test can close them (offline emulation alone blocks new
# connections but leaves an open WebSocket open).
KEEP_SOCKETS = """
const Native = window.WebSocket;
window.testSockets = [];
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    window.testSockets.push(this);
  }
};
"""
OPEN_SOCKETS = "() => window.testSockets.filter((s) => s.readyState !== WebSocket.CLOSED).length"


async def test_a_dropped_websocket_resumes_without_gap_or_duplicate(
    browser: Browser, gateway: str
) -> None:
    ann, bob = await meet(
        browser, gateway, "yavoch", ("AnnRc", "BobRc"), script=KEEP_SOCKETS, position=SMALL_FLEETS
    )
    await click_move(ann, "121", "131", "T121-131")
    await press(ann, "E212>211")
    await press(ann, "END")
    await click_move(bob, "545", "535", "T545-535")
    await press(bob, "END")
    before = ["T121-131", "E212>211", "END", "T545-535", "END"]
    await expect(moves(bob)).to_have_text(before)
    # Bob's network goes down: his socket drops, and the page cannot reconnect (nor fetch)
    # while Ann plays a whole turn
    await bob.context.set_offline(True)
    assert await bob.evaluate(OPEN_SOCKETS) == 1
    await bob.evaluate("() => window.testSockets.forEach((s) => s.close())")
    await bob.wait_for_function(f"() => ({OPEN_SOCKETS})() === 0")
    await click_move(ann, "222", "233", "S222-233")
    await press(ann, "E211>212")
    await press(ann, "END")
    after = [*before, "S222-233", "E211>212", "END"]
    await expect(moves(ann)).to_have_text(after)
    assert await moves(bob).all_inner_texts() == before  # the gap is real: Bob saw none of it
    await bob.context.set_offline(False)
    # docs/gateway.md: the page reconnects with ?after=<last version> and misses nothing
    await expect(moves(bob)).to_have_text(after, timeout=SLOW)
    assert await bob.evaluate(OPEN_SOCKETS) == 1, "one socket follows the game again"
    await click_move(bob, "535", "525", "T535-525")
    for page in (ann, bob):
        await expect(moves(page)).to_have_text([*after, "T535-525"])
