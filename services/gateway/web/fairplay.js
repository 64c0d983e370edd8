// The player's side of the fair-play protocol (docs/fair-play.md), made in this browser with
// WebCrypto, so the server never chooses a client seed nor sees a setup before its reveal.
// Byte for byte as domain/fairplay.py (its test vectors are checked in tests/gateway/).

const ascii = (text) => new TextEncoder().encode(text);

export function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256Hex(bytes) {
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

const SEED_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/** A fresh client seed: 32 characters of [A-Za-z0-9_-] (6 random bits each, 192 in all). */
export function newClientSeed() {
  const random = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(random, (b) => SEED_ALPHABET[b & 63]).join("");
}

/** A fresh setup nonce: 32 random bytes as 64 hex characters. */
export function newNonce() {
  return hex(crypto.getRandomValues(new Uint8Array(32)));
}

/** SHA256("client-seed:v1:" + game_id + ":" + seat + ":" + client_seed) (fair-play 1.2). */
export function clientSeedCommitment(gameId, seat, seed) {
  return sha256Hex(ascii(`client-seed:v1:${gameId}:${seat}:${seed}`));
}

/** SHA256("setup:v1:" + game_id + ":" + seat + ":" + nonce + ":" || setup bytes) (3). */
export function setupCommitment(gameId, seat, nonce, setupBytes) {
  const head = ascii(`setup:v1:${gameId}:${seat}:${nonce}:`);
  const all = new Uint8Array(head.length + setupBytes.length);
  all.set(head);
  all.set(setupBytes, head.length);
  return sha256Hex(all);
}

/** JSON as the server encodes a setup: keys sorted, no spaces (msgspec order="sorted"). */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
