"""The browser's side of the fair-play protocol (services/gateway/web/fairplay.js), run in
Chromium, byte for byte against domain/fairplay.py: what a page commits to is what the table
checks at the reveal."""

import msgspec
from playwright.async_api import Browser

from domain import fairplay

CASES = [("g-1", 0, "abcdefghijklmnop"), ("race-0001", 3, "A_b-C" * 10)]
SETUPS = [{"boost": 2}, {"men": {"a1": "K", "b2": "R"}, "terrain": {}}, {"z": [3, {"b": 1}]}]


async def test_commitments_and_setup_bytes_match_the_protocol(
    browser: Browser, gateway: str
) -> None:
    page = await browser.new_page()
    await page.goto(gateway + "/")
    seeds = await page.evaluate(
        """async (cases) => {
             const f = await import("/static/fairplay.js");
             return Promise.all(cases.map(([g, s, seed]) => f.clientSeedCommitment(g, s, seed)));
           }""",
        CASES,
    )
    assert seeds == [fairplay.client_seed_commitment(g, s, seed) for g, s, seed in CASES]
    nonce = "ab" * 32
    made = await page.evaluate(
        """async ([setups, nonce]) => {
             const f = await import("/static/fairplay.js");
             const out = [];
             for (const setup of setups) {
               const text = f.canonicalJson(setup);
               const bytes = new TextEncoder().encode(text);
               out.push([text, await f.setupCommitment("g-1", 1, nonce, bytes)]);
             }
             const seed = f.newClientSeed();
             return [out, seed, f.newNonce()];
           }""",
        [SETUPS, nonce],
    )
    texts, seed, fresh_nonce = made
    for setup, (text, commitment) in zip(SETUPS, texts, strict=True):
        assert text.encode() == msgspec.json.encode(setup, order="sorted")
        assert commitment == fairplay.setup_commitment("g-1", 1, nonce, text.encode())
    assert fairplay.is_valid_client_seed(seed)
    assert len(fresh_nonce) == 64
    assert int(fresh_nonce, 16) >= 0
    await page.close()
