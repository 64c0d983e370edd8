// Audit an exported game log in this browser (or in Node), trusting nothing the server says:
// the hash chain over the exact stored bytes, each line's readable copy (`event`) against them,
// the seeds, every draw and shuffle, every dealt card and hidden setup (docs/fair-play.md, the
// fair-play protocol v1), and the signatures the rules service put on the receipts a player
// kept and on the seal. Byte for byte as domain/fairplay.py, with the checks of domain/audit/
// (walk.py, chain.py, readable.py, randomness.py, hidden.py, verdict.py) and
// services/runtime/signing.py, and their wording of failures.
//
// Plain ES module, no dependencies: only globalThis.crypto.subtle (SHA-256, HMAC-SHA256,
// Ed25519) and standard JavaScript. What it does not do (tabula audit does): replay the events
// through the ruleset, decide every recorded command again, judge a setup's legality, and
// (without a `cardAt` hook) tell which card the shuffle put at a deck position; the result's
// notes say so whenever it matters for the log at hand.
//
//   const report = await auditExport(fileText, receipts);
//   report.ok, report.failure, report.failedAt, report.checks, report.notes

// -- notes, as domain/audit/report.py words them ------------------------------------------------

export const IN_PLAY_NOTE = "in play, seed not yet revealed: draws cannot be checked yet";
export const NO_HEAD_NOTE =
  "no store head to compare with: events cut from the end would go unnoticed";
export const NO_ACTIONS_NOTE =
  "commands not recorded (a log from before they were): not decided again";
export const MISSING = "missing";
export const REPLAY_NOTE =
  "not replayed here: ruleset events are checked as JSON with their tag, not folded through " +
  "the rules, and recorded commands are not decided again (tabula audit does both)";

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const U32 = 2 ** 32;
const U64 = 2n ** 64n;
const HEX64 = /^[0-9a-f]{64}$/;
const GAME_ID = /^[a-z0-9-]{1,64}$/;
const CLIENT_SEED = /^[A-Za-z0-9_-]{16,64}$/;

const subtle = () => globalThis.crypto.subtle;

/** What domain/fairplay.py raises as ValueError: a value the protocol refuses to hash. */
export class ValueError extends Error {}

/** A finding of the walk: the failure at `at` (or the event being checked), under `check`. */
class Discrepancy extends Error {
  constructor(message, check, at = null) {
    super(message);
    this.check = check;
    this.at = at;
  }
}

// -- bytes ----------------------------------------------------------------------------------------

function bytesOf(data) {
  if (typeof data === "string") return encoder.encode(data);
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) {
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }
  throw new TypeError("expected a string, an ArrayBuffer or a Uint8Array");
}

function concat(...parts) {
  const chunks = parts.map(bytesOf);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export function hex(bytes) {
  return Array.from(bytesOf(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Bytes of a hex string (either case, even length), or null if it is not hex. */
function fromHex(text) {
  if (typeof text !== "string" || text.length % 2 || !/^[0-9a-fA-F]*$/.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function u64be(value) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(value));
  return out;
}

function u32be(value) {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

function isAscii(text) {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Python's repr() of a str (enough of it for messages worded as the Python audit's). */
function pyRepr(value) {
  if (typeof value !== "string") return String(value);
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of value) {
    const c = ch.codePointAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += ch;
  }
  return out + quote;
}

/** domain/audit/report.py's short(): the first 16 characters and an ellipsis. */
function short(text, limit = 16) {
  text = String(text);
  return text.length <= limit ? text : text.slice(0, limit) + "…";
}

// -- validation, worded as domain/fairplay.py --------------------------------------------------

function checkGameId(gameId) {
  if (!(typeof gameId === "string" && GAME_ID.test(gameId))) {
    throw new ValueError(`game id must match [a-z0-9-]{1,64}, got ${pyRepr(gameId)}`);
  }
  return gameId;
}

function checkHex64(value, what) {
  if (!(typeof value === "string" && HEX64.test(value))) {
    throw new ValueError(`${what} must be 64 lowercase hex characters, got ${pyRepr(value)}`);
  }
  return value;
}

function checkClientSeed(seed, what = "client seed") {
  if (!(typeof seed === "string" && CLIENT_SEED.test(seed))) {
    throw new ValueError(`${what} must match [A-Za-z0-9_-]{16,64}, got ${pyRepr(seed)}`);
  }
  return seed;
}

/** Require an integer lo <= value (<= hi): a Number (safe integer) or a BigInt. */
function checkInt(value, what, lo, hi = null) {
  const isInt =
    typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value));
  if (!isInt) throw new ValueError(`${what} must be an int, got ${pyRepr(value)}`);
  const v = BigInt(value);
  if (v < BigInt(lo) || (hi !== null && v > BigInt(hi))) {
    const bound = `${lo} <= ${what}` + (hi !== null ? ` <= ${hi}` : "");
    throw new ValueError(`${what} out of range: need ${bound}, got ${value}`);
  }
  return value;
}

function asciiBytes(text, what) {
  if (typeof text !== "string") throw new ValueError(`${what} must be a str, got ${typeof text}`);
  if (!isAscii(text)) throw new ValueError(`${what} must be ASCII, got ${pyRepr(text)}`);
  return encoder.encode(text);
}

// -- primitives: SHA-256, HMAC-SHA256 ----------------------------------------------------------

/** Lowercase hex SHA-256 of bytes (a string is hashed as its UTF-8 bytes). */
export async function sha256Hex(data) {
  return hex(await subtle().digest("SHA-256", bytesOf(data)));
}

const hmacKeys = new Map();

function hmacKey(key) {
  const cacheable = typeof key === "string";
  if (cacheable && hmacKeys.has(key)) return hmacKeys.get(key);
  const made = subtle().importKey(
    "raw",
    bytesOf(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  if (cacheable) {
    if (hmacKeys.size > 64) hmacKeys.clear();
    hmacKeys.set(key, made);
  }
  return made;
}

/** HMAC-SHA256(key, msg) as 32 bytes; strings are taken as their UTF-8 (here ASCII) bytes. */
export async function hmacSha256(key, msg) {
  return new Uint8Array(await subtle().sign("HMAC", await hmacKey(key), bytesOf(msg)));
}

// -- section 1: seeds --------------------------------------------------------------------------

/** SHA256(server_seed) over its 64 ASCII hex characters (1.1). */
export function seedCommitment(serverSeed) {
  return sha256Hex(checkHex64(serverSeed, "server seed"));
}

/** SHA256("client-seed:v1:" + game_id + ":" + seat + ":" + client_seed) (1.2). */
export function clientSeedCommitment(gameId, seat, clientSeed) {
  checkGameId(gameId);
  checkInt(seat, "seat", 0);
  checkClientSeed(clientSeed);
  return sha256Hex(`client-seed:v1:${gameId}:${seat}:${clientSeed}`);
}

/** SHA256(client_seed_0 + ":" + client_seed_1 + ...), seeds in seat order (1.4). */
export function mixSeeds(clientSeeds) {
  if (!Array.isArray(clientSeeds) || clientSeeds.length === 0) {
    throw new ValueError("mix needs a non-empty sequence of client seeds, in seat order");
  }
  clientSeeds.forEach((s, seat) => checkClientSeed(s, `client seed of seat ${seat}`));
  return sha256Hex(clientSeeds.join(":"));
}

/** One 32-byte block of a draw's stream (1.5):
 * HMAC-SHA256(server_seed, "v1:" + game_id + ":" + mix + ":" + nonce + ":" + cursor). */
export function streamBlock(serverSeed, gameId, mix, nonce, cursor) {
  checkHex64(serverSeed, "server seed");
  checkGameId(gameId);
  checkHex64(mix, "mix");
  checkInt(nonce, "nonce", 0);
  checkInt(cursor, "cursor", 0);
  return hmacSha256(serverSeed, `v1:${gameId}:${mix}:${nonce}:${cursor}`);
}

/** The byte stream of one draw (1.5): blocks for cursor 0, 1, 2 ... read in order. */
export class Stream {
  constructor(serverSeed, gameId, mix, nonce) {
    checkHex64(serverSeed, "server seed");
    checkGameId(gameId);
    checkHex64(mix, "mix");
    checkInt(nonce, "nonce", 0);
    this.key = serverSeed;
    this.prefix = `v1:${gameId}:${mix}:${nonce}:`;
    this.cursor = 0;
    this.buffer = new Uint8Array(0);
    this.offset = 0;
    this.consumed = 0;
  }

  async read(size) {
    while (this.buffer.length - this.offset < size) {
      const block = await hmacSha256(this.key, `${this.prefix}${this.cursor}`);
      this.buffer = concat(this.buffer.subarray(this.offset), block);
      this.offset = 0;
      this.cursor += 1;
    }
    const out = this.buffer.subarray(this.offset, this.offset + size);
    this.offset += size;
    this.consumed += size;
    return out;
  }
}

// -- section 2: draws --------------------------------------------------------------------------

async function dieFrom(stream, n) {
  const limit = 256 - (256 % n);
  for (;;) {
    const [b] = await stream.read(1);
    if (b < limit) return b % n;
  }
}

async function uniformFrom(stream, m) {
  const limit = U32 - (U32 % m);
  for (;;) {
    const b = await stream.read(4);
    const u = b[0] * 0x1000000 + b[1] * 0x10000 + b[2] * 0x100 + b[3];
    if (u < limit) return u % m;
  }
}

/** The draw numbered `nonce` as a die with faces 0 .. n-1 (2 <= n <= 256). */
export async function die(serverSeed, gameId, mix, nonce, n) {
  checkInt(n, "n", 2, 256);
  return dieFrom(new Stream(serverSeed, gameId, mix, nonce), n);
}

/** The draw numbered `nonce` as a uniform integer in [0, m) (1 <= m <= 2**32). */
export async function uniform(serverSeed, gameId, mix, nonce, m) {
  checkInt(m, "m", 1, U32);
  return uniformFrom(new Stream(serverSeed, gameId, mix, nonce), m);
}

/** The draw numbered `nonce` as a Fisher-Yates shuffle of k cards: result[p] is the canonical
 * index of the card at deck position p (position 0 is dealt first). */
export async function shuffle(serverSeed, gameId, mix, nonce, k) {
  checkInt(k, "k", 0, U32);
  const stream = new Stream(serverSeed, gameId, mix, nonce);
  const deck = Array.from({ length: k }, (_, i) => i);
  for (let i = k - 1; i > 0; i--) {
    const j = await uniformFrom(stream, i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** hex(HMAC-SHA256(server_seed, "salt:v1:" + game_id + ":" + position)). */
export async function cardSalt(serverSeed, gameId, position) {
  checkHex64(serverSeed, "server seed");
  checkGameId(gameId);
  checkInt(position, "position", 0);
  return hex(await hmacSha256(serverSeed, `salt:v1:${gameId}:${position}`));
}

/** SHA256("card:v1:" + game_id + ":" + position + ":" + card_id + ":" + salt). */
export function cardCommitment(gameId, position, cardId, salt) {
  checkGameId(gameId);
  checkInt(position, "position", 0);
  let card;
  if (typeof cardId === "string") {
    asciiBytes(cardId, "card id");
    if (!cardId) throw new ValueError("card id must not be empty");
    card = cardId;
  } else {
    card = String(checkInt(cardId, "card id", 0));
  }
  checkHex64(salt, "salt");
  return sha256Hex(`card:v1:${gameId}:${position}:${card}:${salt}`);
}

// -- section 3: hidden setup -------------------------------------------------------------------

/** SHA256("setup:v1:" + game_id + ":" + seat + ":" + nonce + ":" || setup_bytes). */
export function setupCommitment(gameId, seat, nonce, setupBytes) {
  checkGameId(gameId);
  checkInt(seat, "seat", 0);
  checkHex64(nonce, "setup nonce");
  return sha256Hex(concat(`setup:v1:${gameId}:${seat}:${nonce}:`, bytesOf(setupBytes)));
}

// -- section 4: the hash chain (v1, and v2 which also covers time, command id and action) -------

export const CHAIN_V1 = 1;
export const CHAIN_V2 = 2;
const CHAIN_VERSIONS = [CHAIN_V2, CHAIN_V1]; // the order a verifier tries them on h_1

/** h_0 = SHA256("gamelog:v1:genesis:" + game_id). */
export function genesisHash(gameId) {
  return sha256Hex(`gamelog:v1:genesis:${checkGameId(gameId)}`);
}

function chainHead(version, prevHash, type, body) {
  checkInt(version, "version", 1, U64 - 1n);
  checkHex64(prevHash, "previous hash");
  const tag = asciiBytes(type, "event type");
  const data = bytesOf(body);
  return [u64be(version), fromHex(prevHash), u32be(tag.length), tag, u32be(data.length), data];
}

/** Hash chain v1: SHA256("gamelog:v1:" || u64be(n) || h_(n-1) (32 raw bytes) ||
 * u32be(len(type)) || type || u32be(len(body)) || body). */
export async function chainHash(version, prevHash, type, body) {
  return sha256Hex(concat("gamelog:v1:", ...chainHead(version, prevHash, type, body)));
}

/** Hash chain v2: v1's fields under "gamelog:v2:", then u64be(time_ms) || u32be(len(cmd)) ||
 * cmd || u32be(len(act)) || act. */
export async function chainHashV2(version, prevHash, type, body, timeMs, commandId, action = "") {
  const head = chainHead(version, prevHash, type, body);
  checkInt(timeMs, "time_ms", 0, U64 - 1n);
  const cmd = asciiBytes(commandId, "command id");
  const act = asciiBytes(action, "action");
  return sha256Hex(
    concat("gamelog:v2:", ...head, u64be(timeMs), u32be(cmd.length), cmd, u32be(act.length), act),
  );
}

/** h_n under hash chain `chain` (CHAIN_V1 ignores time, command id and action). */
export function entryHash(chain, version, prevHash, type, body, timeMs, commandId, action = "") {
  if (chain === CHAIN_V2) {
    return chainHashV2(version, prevHash, type, body, timeMs, commandId, action);
  }
  if (chain === CHAIN_V1) return chainHash(version, prevHash, type, body);
  throw new ValueError(`unknown hash chain version ${chain}: this code knows v1 and v2`);
}

async function entryHashOf(chain, e, prev) {
  return entryHash(chain, e.version, prev, e.type, e.body, e.timeMs, e.commandId, e.action);
}

/** The chain version whose formula reproduces the stored h_1 (v2 tried first), or 0. */
async function firstLink(gameId, e) {
  if (e.version !== 1) return 0;
  const prev = await genesisHash(gameId);
  for (const chain of CHAIN_VERSIONS) {
    let computed;
    try {
      computed = await entryHashOf(chain, e, prev);
    } catch (err) {
      if (err instanceof ValueError) continue;
      throw err;
    }
    if (computed === e.hash) return chain;
  }
  return 0;
}

/** fairplay.verify_chain: the first version whose h_n cannot be confirmed (null: none), and
 * the log's chain version as h_1 decides it (0: neither formula). */
async function verifyChain(gameId, entries) {
  await genesisHash(gameId); // a game id the protocol does not allow cannot be checked
  const chain = entries.length ? await firstLink(gameId, entries[0]) : 0;
  let prev = null;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const expected = i + 1;
    if (e.version !== expected) return { bad: expected, chain };
    if (i === 0) {
      if (!chain) return { bad: 1, chain };
      prev = e.hash;
      continue;
    }
    let computed;
    try {
      computed = await entryHashOf(chain, e, prev);
    } catch (err) {
      if (err instanceof ValueError) return { bad: expected, chain };
      throw err;
    }
    if (computed !== e.hash) return { bad: expected, chain };
    prev = computed;
  }
  return { bad: null, chain };
}

/** domain/audit/chain.py's chain_failure: why entry i breaks the chain, in words. */
async function chainFailure(entries, i, gameId, logChain) {
  const s = entries[i];
  const expected = i + 1;
  if (s.version !== expected) {
    throw new Discrepancy(
      `hash chain: version ${s.versionText} stored where ${expected} was expected ` +
        "(a gap, a repeat or a reordering)",
      "chain",
    );
  }
  const prev = i ? entries[i - 1].hash : await genesisHash(gameId);
  const chains = logChain ? [logChain] : CHAIN_VERSIONS;
  const computed = [];
  for (const chain of chains) {
    try {
      computed.push(`v${chain} ${short(await entryHashOf(chain, s, prev))}`);
    } catch (err) {
      if (!(err instanceof ValueError)) throw err;
      computed.push(`v${chain}: ${err.message}`);
    }
  }
  const what =
    logChain !== CHAIN_V1
      ? "the event, its time (ts), its command id (cmd) or its hash"
      : "the event or its hash";
  throw new Discrepancy(
    `hash chain: the stored hash ${short(s.hash)} is not h_${s.versionText} of the stored ` +
      `entry (${computed.join(" nor ")}): ${what} was altered`,
    "chain",
  );
}

// -- signatures (services/runtime/signing.py) ----------------------------------------------

const pad = () => digest(new Uint8Array([2])); // H(0x02), what pads a batch to a power of two

export function receiptMessage(gameId, version, hash) {
  return encoder.encode(`tabula-receipt:v1:${gameId}:${version}:${hash}`);
}

export function sealMessage(gameId, version, hash) {
  return encoder.encode(`tabula-seal:v1:${gameId}:${version}:${hash}`);
}

async function digest(...parts) {
  return new Uint8Array(await subtle().digest("SHA-256", concat(...parts)));
}

/** The Merkle root a receipt's message, index and sibling hashes lead to (leaf H(0x00||m),
 * node H(0x01||left||right)); null if a sibling is not hex. */
export async function receiptRoot(message, index, path) {
  let node = await digest(new Uint8Array([0]), message);
  let at = index;
  for (const sibling of path) {
    const other = fromHex(sibling);
    if (other === null) return null;
    const one = new Uint8Array([1]);
    node = at % 2 === 0 ? await digest(one, node, other) : await digest(one, other, node);
    at = Math.floor(at / 2);
  }
  return node;
}

/** The Merkle root over `messages` and each one's path (for tests; signing.merkle). */
export async function merkle(messages) {
  let level = await Promise.all(messages.map((m) => digest(new Uint8Array([0]), m)));
  let size = 1;
  while (size < level.length) size *= 2;
  const padding = await pad();
  while (level.length < size) level.push(padding);
  const paths = messages.map(() => []);
  const index = messages.map((_, i) => i);
  while (level.length > 1) {
    index.forEach((at, i) => {
      paths[i].push(hex(level[at ^ 1]));
      index[i] = Math.floor(at / 2);
    });
    const next = [];
    for (let k = 0; k < level.length; k += 2) {
      next.push(await digest(new Uint8Array([1]), level[k], level[k + 1]));
    }
    level = next;
  }
  return { root: level[0], paths };
}

/** Ed25519 verification of `signature` (hex) over `message` under `key` (hex, 32 bytes). */
export async function verifyEd25519(key, message, signature) {
  const raw = fromHex(key);
  const sig = fromHex(signature);
  if (raw === null || sig === null || raw.length !== 32 || sig.length !== 64) return false;
  try {
    const pub = await subtle().importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
    return await subtle().verify({ name: "Ed25519" }, pub, sig, bytesOf(message));
  } catch {
    return false;
  }
}

/** Whether a receipt's path leads to a root its signature covers ("tabula-receipts:v1:"||root). */
export async function verifyReceipt(receipt, verified = null) {
  const message = receiptMessage(receipt.game_id, receipt.version, receipt.hash);
  const root = await receiptRoot(message, receipt.index ?? 0, receipt.path ?? []);
  if (root === null) return false;
  const signed = `${receipt.key}|${hex(root)}|${receipt.signature}`;
  if (verified && verified.has(signed)) return true;
  const ok = await verifyEd25519(
    receipt.key,
    concat("tabula-receipts:v1:", root),
    receipt.signature,
  );
  if (ok && verified) verified.add(signed);
  return ok;
}

// -- reading an export -------------------------------------------------------------------------

function typeName(value) {
  if (value === null) return "null";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "array";
  return "object";
}

/** The byte spans [start, end) of the values of a JSON object's top-level members (the
 * object is known to be valid JSON): the stored body is kept byte for byte. */
function memberSpans(bytes) {
  let i = 0;
  const n = bytes.length;
  const spans = new Map();
  const ws = () => {
    while (i < n && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[i])) i++;
  };
  const skipString = () => {
    i++;
    while (i < n) {
      if (bytes[i] === 0x5c) i += 2;
      else if (bytes[i++] === 0x22) return;
    }
  };
  const skipValue = () => {
    const b = bytes[i];
    if (b === 0x22) return skipString();
    if (b === 0x7b || b === 0x5b) {
      let depth = 0;
      while (i < n) {
        const c = bytes[i];
        if (c === 0x22) {
          skipString();
          continue;
        }
        if (c === 0x7b || c === 0x5b) depth++;
        else if ((c === 0x7d || c === 0x5d) && --depth === 0) {
          i++;
          return;
        }
        i++;
      }
      return;
    }
    while (i < n && ![0x20, 0x09, 0x0a, 0x0d, 0x2c, 0x7d, 0x5d].includes(bytes[i])) i++;
  };
  ws();
  i++; // {
  ws();
  if (bytes[i] === 0x7d) return spans;
  while (i < n) {
    ws();
    const keyStart = i;
    skipString();
    const key = JSON.parse(strictUtf8.decode(bytes.subarray(keyStart, i)));
    ws();
    i++; // :
    ws();
    const start = i;
    skipValue();
    spans.set(key, [start, i]);
    ws();
    if (bytes[i] === 0x2c) i++;
    else break;
  }
  return spans;
}

function strictBase64(text) {
  if (text.length % 4 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    throw new Error("Non-base64 digit found or incorrect padding");
  }
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const INTEGER = /^-?(0|[1-9][0-9]*)$/;

/** One line: an export line (`body_b64`, services/runtime/codec.py `Exported`) or a stored
 * event as the store returns it (`body` embedded verbatim, tests/contracts/golden). */
function parseLine(bytes, number) {
  const text = strictUtf8.decode(bytes);
  const obj = JSON.parse(text);
  if (typeName(obj) !== "object") throw new Error(`Expected \`object\`, got \`${typeName(obj)}\``);
  const spans = memberSpans(bytes);
  const raw = (name) => strictUtf8.decode(bytes.subarray(...spans.get(name)));
  const want = (name, kind, fallback) => {
    if (!(name in obj)) {
      if (fallback !== undefined) return fallback;
      throw new Error(`Object missing required field \`${name}\``);
    }
    const v = obj[name];
    const got = typeName(v);
    if (kind === "int") {
      const literal = raw(name).trim();
      if (got !== "int" || !INTEGER.test(literal)) {
        throw new Error(`Expected \`int\`, got \`${got}\` - at \`$.${name}\``);
      }
      return BigInt(literal);
    }
    if (got !== kind) throw new Error(`Expected \`${kind}\`, got \`${got}\` - at \`$.${name}\``);
    return v;
  };
  const exported = "body_b64" in obj || !("body" in obj);
  let body;
  if (exported) {
    const b64 = want("body_b64", "str");
    try {
      body = strictBase64(b64);
    } catch (err) {
      throw new Error(`body_b64: ${err.message}`);
    }
  } else {
    body = bytes.slice(...spans.get("body"));
  }
  const version = want("version", "int");
  const timeMs = want("time_ms", "int");
  return {
    line: number,
    format: exported ? "export" : "stored",
    gameId: want("game_id", "str"),
    version: Number(version),
    versionText: version.toString(),
    type: want("type", "str"),
    timeMs,
    commandId: want("command_id", "str"),
    hash: want("hash", "str"),
    action: want("action", "str", ""),
    redacted: exported ? false : want("redacted", "bool", false),
    body,
    // an export's readable copy of the body, as its text (none in a stored event's line)
    readable: exported && "event" in obj ? raw("event") : undefined,
  };
}

/** The stored events of an export (JSON Lines; a string or bytes), each with its exact stored
 * bytes (`body`, a Uint8Array). Throws naming the first line that is not an export line. */
export function parseExport(text) {
  const bytes = bytesOf(text);
  const entries = [];
  let number = 0;
  let start = 0;
  const flush = (end) => {
    number++;
    const line = bytes.subarray(start, end);
    if (line.every((b) => b === 0x20 || b === 0x09 || b === 0x0b || b === 0x0c)) return;
    try {
      entries.push(parseLine(line, number));
    } catch (err) {
      throw new Error(`line ${number}: not a Tabula export line: ${err.message}`);
    }
  };
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a || bytes[i] === 0x0d) {
      flush(i);
      if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) i++;
      start = i + 1;
    }
  }
  if (start < bytes.length) flush(bytes.length);
  return entries;
}

// -- an export's readable copies (domain/audit/readable.py) ------------------------------------

const bomKept = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // msgspec refuses one
// One token of JSON text, after its whitespace: a string, an integer, any other number, a
// literal, or a punctuator.
const JSON_TOKEN = new RegExp(
  [
    String.raw`[ \t\n\r]*(?:("(?:[^"\\]|\\.)*")`,
    String.raw`(-?(?:0|[1-9][0-9]*))(?![.eE0-9])`,
    String.raw`(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)`,
    "(true|false|null)",
    String.raw`([[\]{}:,]))`,
  ].join("|"),
  "y",
);

/** JSON text decoded as msgspec decodes it, where JSON.parse would blur it: an integer is a
 * BigInt, exact at any size, and not the float of the same value; a float out of range, or a
 * string with a lone surrogate, is refused. Objects are Maps, so that no key is special. */
function exactJson(text) {
  JSON.parse(text); // refuses whatever is not JSON, so the tokens below are well formed
  let i = 0;
  const next = () => {
    JSON_TOKEN.lastIndex = i;
    const m = JSON_TOKEN.exec(text);
    i = JSON_TOKEN.lastIndex;
    return m;
  };
  const value = (m) => {
    const [, string, integer, float, literal, punct] = m;
    if (string !== undefined) {
      const s = JSON.parse(string);
      if (!s.isWellFormed()) throw new Error("a string holds a lone surrogate");
      return s;
    }
    if (integer !== undefined) return BigInt(integer);
    if (float !== undefined) {
      const x = Number(float);
      if (!Number.isFinite(x)) throw new Error("Number out of range");
      return x;
    }
    if (literal !== undefined) return JSON.parse(literal);
    const close = punct === "[" ? "]" : "}";
    const out = punct === "[" ? [] : new Map();
    let t = next();
    while (t[5] !== close) {
      if (punct === "[") out.push(value(t));
      else {
        next(); // :
        out.set(JSON.parse(t[1]), value(next()));
      }
      t = next();
      if (t[5] === ",") t = next();
    }
    return out;
  };
  return value(next());
}

/** Whether two values of `exactJson` are the same: the same kinds, objects with the same
 * members in any order, arrays element by element (readable.py `same_json`). */
function sameJson(a, b) {
  const pending = [[a, b]];
  while (pending.length) {
    const [x, y] = pending.pop();
    if (x instanceof Map) {
      if (!(y instanceof Map) || x.size !== y.size) return false;
      for (const [k, v] of x) {
        if (!y.has(k)) return false;
        pending.push([v, y.get(k)]);
      }
    } else if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      x.forEach((v, k) => pending.push([v, y[k]]));
    } else if (typeof x !== typeof y || x !== y) {
      return false;
    }
  }
  return true;
}

/** Refuse an export line whose readable copy (`event`) is not its body decoded (null for a
 * body that is not JSON, as the export writes it): readable.py `check_readable`. */
function checkReadable(s) {
  let decoded;
  try {
    decoded = exactJson(bomKept.decode(s.body));
  } catch {
    decoded = null;
  }
  let copy;
  try {
    copy = exactJson(s.readable);
  } catch {
    copy = undefined; // a copy msgspec would not read: never the body
  }
  if (copy === undefined || !sameJson(decoded, copy)) {
    throw new Discrepancy(
      `line ${s.line}: its readable copy (event) is not its body_b64 decoded: the export was ` +
        "edited, and what it shows a reader is not what was audited",
      "export",
    );
  }
}

// -- decoding bodies: the platform events (contracts/events.py), as msgspec checks them ------

const SCORE = String.raw`(?:0|[1-9][0-9]{0,5})(?:/[1-9][0-9]{0,5})?`;
const RESULT = new RegExp(`^${SCORE}(?:-${SCORE}){1,63}$`); // contracts/events.py Result

const SEAT = { seat: ["int"] };
const PLATFORM = {
  GameCreated: {
    ruleset: ["str"], game_id: ["str", ""], variant: ["str", ""], seats: ["int"],
    teams: ["list[list[int]]", []], players: ["list[str]", []], position: ["str", ""],
    randomness: ["bool", false], hidden_setup: ["bool", false],
    reveal_deadline_ms: ["int", 300000], creator_key: ["str", ""],
  },
  Resigned: SEAT,
  DrawOffered: SEAT,
  DrawDeclined: SEAT,
  DrawAccepted: SEAT,
  GameEnded: { result: ["result"], reason: ["str"], winners: ["list[int]", []] },
  GameSealed: { version: ["int"], hash: ["str"], signature: ["str", ""], key: ["str", ""] },
  SeedCommitted: { commitment: ["str"] },
  ClientSeedCommitted: { seat: ["int"], commitment: ["str"] },
  ClientSeedRevealed: { seat: ["int"], seed: ["str"] },
  RandomDrawn: { nonce: ["int"], kind: ["str"], n: ["int"], purpose: ["str"], value: ["int"] },
  DeckShuffled: { nonce: ["int"], n: ["int"], purpose: ["str"], order: ["list[int]", []] },
  CardDealt: {
    seat: ["int"], position: ["int"], commitment: ["str"], card: ["str", ""], salt: ["str", ""],
  },
  CardRevealed: { seat: ["int"], position: ["int"], card: ["str"], salt: ["str"] },
  SetupCommitted: { seat: ["int"], commitment: ["str"] },
  SetupRevealed: { seat: ["int"], nonce: ["str"], setup: ["str"], rejected: ["str", ""] },
  TimedOut: { seats: ["list[int]"], idle_ms: ["int"] },
  SetupsDiscarded: { reason: ["str"] },
  SeedRevealed: { server_seed: ["str"] },
};

function checkValue(value, kind, where) {
  const got = typeName(value);
  if (kind === "result") {
    if (got !== "str" || !RESULT.test(value)) {
      throw new Error(`Expected \`str\` matching regex '${RESULT.source}' - at \`${where}\``);
    }
    return;
  }
  const list = /^list\[(.*)\]$/.exec(kind);
  if (list) {
    if (got !== "array") throw new Error(`Expected \`array\`, got \`${got}\` - at \`${where}\``);
    value.forEach((item, i) => checkValue(item, list[1], `${where}[${i}]`));
    return;
  }
  if (got !== kind || (kind === "int" && !Number.isSafeInteger(value))) {
    throw new Error(`Expected \`${kind}\`, got \`${got}\` - at \`${where}\``);
  }
}

/** A body as its event: JSON with a string `type`; a platform event's fields checked as
 * msgspec checks them (defaults filled in). Ruleset events are taken as JSON. */
function decodeBody(body) {
  let event;
  try {
    event = JSON.parse(strictUtf8.decode(body));
  } catch (err) {
    throw new Error(`JSON is malformed: ${err.message}`);
  }
  const got = typeName(event);
  if (got !== "object") throw new Error(`Expected \`object\`, got \`${got}\``);
  if (!("type" in event)) throw new Error("Object missing required field `type`");
  if (typeof event.type !== "string") {
    throw new Error(`Expected \`str\`, got \`${typeName(event.type)}\` - at \`$.type\``);
  }
  const schema = Object.hasOwn(PLATFORM, event.type) ? PLATFORM[event.type] : null;
  if (schema) {
    for (const [name, [kind, fallback]] of Object.entries(schema)) {
      if (!(name in event)) {
        if (fallback === undefined) throw new Error(`Object missing required field \`${name}\``);
        event[name] = structuredClone(fallback);
        continue;
      }
      checkValue(event[name], kind, `$.${name}`);
    }
  }
  return event;
}

/** A body decoded as the platform event `type`, or null. */
function decodeAs(entry, type) {
  try {
    const event = decodeBody(entry.body);
    return event.type === type ? event : null;
  } catch {
    return null;
  }
}

// -- the walk (domain/audit/walk.py, randomness.py, hidden.py, verdict.py) ---------------------

const MAX_SEATS = 1024; // contracts: a seat is 0..63
const NOT_INPUT = new Set(["GameCreated", "SeedCommitted", "GameEnded", "GameSealed"]);
const AFTER_SEAL = new Set(["SeedRevealed", "GameSealed"]);

class Auditor {
  constructor(stored, options) {
    this.stored = stored;
    this.cardAt = options.cardAt ?? null;
    this.gameId = stored[0].gameId;
    this.created = null;
    this.createdProblem = "";
    this.index = 0;
    this.chain = 0;
    this.decoded = 0; // events that decoded, tags matching ("types")
    this.readableChecked = 0; // an export's readable copies that match their bodies
    // seeds
    this.commitment = "";
    this.serverSeed = "";
    this.seedRevealedAt = 0;
    this.clientCommitments = [];
    this.clientSeeds = [];
    this.mix = "";
    // draws
    this.nextNonce = 0;
    this.diceChecked = 0;
    this.dicePending = 0;
    this.shufflesChecked = 0;
    this.shufflesPending = 0;
    this.shuffles = []; // {version, nonce, n, purpose, order}, for a cardAt hook
    // Each die, uniform, shuffle and card on its own: what was recorded, what the seed gives
    this.draws = [];
    // cards
    this.dealt = new Map();
    this.cards = 0;
    this.saltsChecked = 0;
    this.canonicalChecked = 0;
    this.canonicalUnknown = 0;
    this.cardReveals = 0;
    // setups
    this.setupCommitments = [];
    this.setupsRevealed = [];
    this.setups = 0;
    this.setupsRejected = 0;
    this.setupsMatchingRejected = 0;
    // end
    this.endedAt = null;
    this.sealed = 0;
    this.sealedAt = 0;
    this.actions = stored.some((s) => s.action);
  }

  async run() {
    const stored = this.stored;
    let failure = null;
    let bad = null;
    try {
      this.readCreated();
      const verdict = await verifyChain(this.gameId, stored);
      bad = verdict.bad;
      this.chain = verdict.chain;
    } catch (err) {
      const message =
        err instanceof ValueError ? `cannot check the chain: ${err.message}` : err.message;
      failure = { version: stored[0].version, type: stored[0].type, message, check: "chain" };
    }
    if (failure === null) {
      await this.findSeed(bad === null ? stored.length : bad - 1);
      for (let i = 0; i < stored.length; i++) {
        this.index = i;
        const s = stored[i];
        try {
          if (bad === i + 1) await chainFailure(stored, i, this.gameId, this.chain);
          if (s.readable !== undefined) {
            checkReadable(s);
            this.readableChecked += 1;
          }
          await this.check(s);
        } catch (caught) {
          // Whatever else a hostile log breaks is a finding too: fail closed, never throw.
          const err = caught instanceof Discrepancy
            ? caught
            : new Discrepancy(`cannot check this event: ${caught?.message ?? caught}`, "types");
          const at = err.at ?? s;
          failure = { version: at.version, type: at.type, message: err.message, check: err.check };
          break;
        }
      }
    }
    const checked = failure === null ? stored.length : this.index;
    const notes = [];
    if (failure === null) {
      failure = this.finish(notes);
      notes.push(NO_HEAD_NOTE);
      if (!this.actions) notes.push(NO_ACTIONS_NOTE);
    }
    return { failure, notes, checks: this.checks(checked, failure) };
  }

  status() {
    if (this.created === null) return "unknown";
    return this.endedAt ? "ended" : "in play";
  }

  readCreated() {
    const first = this.stored[0];
    if (first.version !== 1 || first.type !== "GameCreated") {
      this.createdProblem = "the log does not start with GameCreated at version 1";
      return;
    }
    let created;
    try {
      created = decodeBody(first.body);
      if (created.type !== "GameCreated") {
        throw new Error(`Invalid value ${pyRepr(created.type)} - at \`$.type\``);
      }
    } catch (err) {
      this.createdProblem = `GameCreated does not decode: ${err.message}`;
      return;
    }
    this.created = created;
    const gameId = created.game_id || first.gameId;
    if (GAME_ID.test(gameId)) this.gameId = gameId;
    else this.createdProblem = `game id ${pyRepr(gameId)} does not match [a-z0-9-]{1,64}`;
  }

  /** The commitment and the revealed seed, looked up ahead within the verified chain. */
  async findSeed(upto) {
    let commitment = "";
    let seed = "";
    for (const s of this.stored.slice(0, upto)) {
      if (s.type === "SeedCommitted" && !commitment) {
        const e = decodeAs(s, "SeedCommitted");
        if (!e) return;
        commitment = e.commitment;
      } else if (s.type === "SeedRevealed" && commitment && !seed) {
        const e = decodeAs(s, "SeedRevealed");
        if (!e) return;
        seed = e.server_seed;
      }
    }
    if (seed && HEX64.test(seed) && (await seedCommitment(seed)) === commitment) {
      this.serverSeed = seed;
    }
  }

  async check(s) {
    const first = this.stored[0];
    if (s.gameId !== first.gameId) {
      throw new Discrepancy(
        `belongs to game ${pyRepr(s.gameId)}, not ${pyRepr(first.gameId)}`,
        "chain",
      );
    }
    if (this.sealed && !AFTER_SEAL.has(s.type)) {
      throw new Discrepancy(
        `recorded after the game was sealed at version ${this.sealedAt}`,
        "seal",
      );
    }
    let event;
    if (this.index === 0) {
      if (this.createdProblem || this.created === null) {
        throw new Discrepancy(this.createdProblem, "types");
      }
      event = this.created;
    } else {
      try {
        event = decodeBody(s.body);
      } catch (err) {
        const name = this.created ? this.created.ruleset : "?";
        throw new Discrepancy(
          `the body does not decode as a ${name} event: ${err.message}`,
          "types",
        );
      }
    }
    if (event.type !== s.type) {
      throw new Discrepancy(
        `stored type ${pyRepr(s.type)} but the body's tag is ${pyRepr(event.type)}`,
        "types",
      );
    }
    await this.protocol(s, event);
    this.decoded += 1;
  }

  async protocol(s, event) {
    const created = this.created;
    if (event.type === "GameCreated") {
      if (s.version !== 1) throw new Discrepancy("a second GameCreated", "types");
      const seats = Math.max(0, created.seats);
      if (seats > MAX_SEATS) {
        // (Python would go on; a browser should not allocate for a billion seats.)
        throw new Discrepancy(`${seats} seats: this audit handles up to ${MAX_SEATS}`, "types");
      }
      this.clientCommitments = Array(seats).fill("");
      this.clientSeeds = Array(seats).fill("");
      this.setupCommitments = Array(seats).fill("");
      this.setupsRevealed = Array(seats).fill(false);
      return;
    }
    if (created.randomness && !this.commitment && !NOT_INPUT.has(s.type)) {
      throw new Discrepancy(
        "player input before the server's seed commitment (SeedCommitted must come " +
          "before any player input)",
        "seed",
      );
    }
    const handler = HANDLERS[event.type];
    if (!handler) return;
    try {
      await handler.call(this, s, event);
    } catch (err) {
      const own = this.draws.at(-1);
      if (own && own.version === s.version) Object.assign(own, { ok: false, detail: err.message });
      if (err instanceof ValueError) throw new Discrepancy(err.message, CHECK_OF[event.type]);
      throw err;
    }
  }

  /** The check of one draw or card at `s`, filled in as the walk goes (ok: null, pending). */
  record(s, fields) {
    const own = { version: s.version, type: s.type, nonce: null, position: null, recorded: "",
                  computed: null, ok: null, detail: "", how: "", ...fields };
    this.draws.push(own);
    return own;
  }

  /** How a draw's bytes are made (fair-play 1.5), for a reader to recompute it by hand. */
  streamWords(nonce) {
    return `HMAC-SHA256(server_seed, "v1:${this.gameId}:${this.mix || "<mix>"}:${nonce}:<cursor>")`;
  }

  seat(seat, check) {
    if (!(seat >= 0 && seat < this.created.seats)) {
      throw new Discrepancy(`seat ${seat} does not exist (seats: ${this.created.seats})`, check);
    }
    return seat;
  }

  // -- seeds and draws (randomness.py) --

  onSeedCommitted(s, event) {
    if (!this.created.randomness) {
      throw new Discrepancy("a seed commitment in a game created without randomness", "seed");
    }
    if (this.commitment) {
      throw new Discrepancy("a second SeedCommitted (protocol v1 has one seed per game)", "seed");
    }
    if (!HEX64.test(event.commitment)) {
      throw new Discrepancy("the commitment is not a SHA-256 (64 hex)", "seed");
    }
    this.commitment = event.commitment;
  }

  onClientSeedCommitted(s, event) {
    const check = "client seeds";
    if (!this.commitment) {
      throw new Discrepancy(
        "a client seed commitment in a game without a server commitment",
        check,
      );
    }
    const seat = this.seat(event.seat, check);
    if (this.clientCommitments[seat]) {
      throw new Discrepancy(`seat ${seat} committed a client seed twice`, check);
    }
    this.clientCommitments[seat] = event.commitment;
  }

  async onClientSeedRevealed(s, event) {
    const check = "client seeds";
    const seat = this.seat(event.seat, check);
    if (!this.clientCommitments.every(Boolean)) {
      throw new Discrepancy(
        `seat ${seat} revealed its client seed before every seat committed`,
        check,
      );
    }
    if (this.clientSeeds[seat]) {
      throw new Discrepancy(`seat ${seat} revealed a client seed twice`, check);
    }
    if (!CLIENT_SEED.test(event.seed)) {
      throw new Discrepancy(`seat ${seat}'s client seed ${pyRepr(event.seed)} is not valid`, check);
    }
    const computed = await clientSeedCommitment(this.gameId, seat, event.seed);
    if (computed !== this.clientCommitments[seat]) {
      throw new Discrepancy(
        `seat ${seat}'s revealed client seed does not match its commitment ` +
          short(this.clientCommitments[seat]),
        check,
      );
    }
    this.clientSeeds[seat] = event.seed;
    if (this.clientSeeds.every(Boolean)) this.mix = await mixSeeds(this.clientSeeds);
  }

  drawPreconditions(nonce, check) {
    if (!this.created.randomness) {
      throw new Discrepancy("a random draw in a game created without randomness", check);
    }
    if (!this.commitment) {
      throw new Discrepancy("a random draw before the server's seed commitment", check);
    }
    if (!this.mix) {
      throw new Discrepancy("a random draw before every seat revealed its client seed", check);
    }
    if (this.seedRevealedAt) {
      throw new Discrepancy(
        `a random draw after the seed was revealed at version ${this.seedRevealedAt} ` +
          "(a revealed seed is never used again)",
        check,
      );
    }
    if (nonce !== this.nextNonce) {
      const what = nonce < this.nextNonce ? "repeats an earlier nonce" : "skips nonces";
      throw new Discrepancy(`nonce ${nonce} where ${this.nextNonce} is next: it ${what}`, "nonces");
    }
    this.nextNonce += 1;
  }

  async onRandomDrawn(s, event) {
    const own = this.record(s, {
      what: `${event.kind}(${event.n}) for ${event.purpose}`, nonce: event.nonce,
      recorded: String(event.value),
      how: `${event.kind}(${event.n}) from the bytes of ${this.streamWords(event.nonce)}`,
    });
    this.drawPreconditions(event.nonce, "dice");
    let draw;
    if (event.kind === "die") {
      if (!(event.n >= 2 && event.n <= 256)) {
        throw new Discrepancy(`die(${event.n}): a die has 2 to 256 faces`, "dice");
      }
      draw = die;
    } else if (event.kind === "uniform") {
      if (!(event.n >= 1 && event.n <= U32)) {
        throw new Discrepancy(`uniform(${event.n}): the range is 1 to 2**32`, "dice");
      }
      draw = uniform;
    } else {
      throw new Discrepancy(`unknown draw kind ${pyRepr(event.kind)} (die or uniform)`, "dice");
    }
    if (!(event.value >= 0 && event.value < event.n)) {
      throw new Discrepancy(
        `${event.kind}(${event.n}) value ${event.value} is out of range`,
        "dice",
      );
    }
    if (!this.serverSeed) {
      this.dicePending += 1;
      return;
    }
    const value = await draw(this.serverSeed, this.gameId, this.mix, event.nonce, event.n);
    Object.assign(own, { computed: String(value), ok: value === event.value });
    if (value !== event.value) {
      throw new Discrepancy(
        `${event.kind}(${event.n}) at nonce ${event.nonce} (${event.purpose}) recorded ` +
          `${event.value}, but the seeds give ${value}`,
        "dice",
      );
    }
    this.diceChecked += 1;
  }

  async onDeckShuffled(s, event) {
    const own = this.record(s, {
      what: `shuffle of ${event.n} cards for ${event.purpose}`, nonce: event.nonce,
      recorded: (event.order ?? []).join(" "),
      how: `Fisher-Yates over ${event.n} cards from the bytes of ${this.streamWords(event.nonce)}`,
    });
    this.drawPreconditions(event.nonce, "shuffles");
    const order = event.order;
    const seen = new Set(order);
    if (
      order.length !== event.n ||
      seen.size !== order.length ||
      !order.every((x) => x >= 0 && x < event.n)
    ) {
      throw new Discrepancy(`the order is not a permutation of 0..${event.n - 1}`, "shuffles");
    }
    if (this.serverSeed) {
      const expected = await shuffle(this.serverSeed, this.gameId, this.mix, event.nonce, event.n);
      const p = expected.findIndex((x, i) => x !== order[i]);
      Object.assign(own, { computed: expected.join(" "), ok: p < 0 });
      if (p >= 0) {
        throw new Discrepancy(
          `shuffle of ${event.n} at nonce ${event.nonce} (${event.purpose}) differs from the ` +
            `seeds' from position ${p} on (${order[p]} instead of ${expected[p]})`,
          "shuffles",
        );
      }
      this.shufflesChecked += 1;
    } else {
      this.shufflesPending += 1;
    }
    this.shuffles.push({
      version: s.version, nonce: event.nonce, n: event.n, purpose: event.purpose, order: [...order],
    });
  }

  async onSeedRevealed(s, event) {
    if (!this.commitment) throw new Discrepancy("a seed reveal without a seed commitment", "seed");
    if (this.seedRevealedAt) {
      throw new Discrepancy(
        `the seed was already revealed at version ${this.seedRevealedAt}`,
        "seed",
      );
    }
    const matches =
      HEX64.test(event.server_seed) &&
      (await seedCommitment(event.server_seed)) === this.commitment;
    if (!matches) {
      throw new Discrepancy(
        `SHA256 of the revealed seed is not the commitment ${short(this.commitment)}`,
        "seed",
      );
    }
    if (!this.endedAt) {
      throw new Discrepancy("the seed was revealed while the game is in play", "seed");
    }
    this.serverSeed = event.server_seed;
    this.seedRevealedAt = s.version;
  }

  // -- cards and setups (hidden.py) --

  async onCardDealt(s, event) {
    const own = this.record(s, {
      what: `the card at deck position ${event.position} dealt to seat ${event.seat}`,
      position: event.position, recorded: `${event.card} (commitment ${short(event.commitment)})`,
      how: `salt = HMAC-SHA256(server_seed, "salt:v1:${this.gameId}:${event.position}"), and ` +
        `SHA256("card:v1:${this.gameId}:${event.position}:" + card + ":" + salt) is the commitment`,
    });
    this.seat(event.seat, "cards");
    const p = event.position;
    if (!(event.card && event.salt)) {
      throw new Discrepancy(`the stored deal of position ${p} lacks its card or salt`, "cards");
    }
    if (this.serverSeed) {
      const salt = await cardSalt(this.serverSeed, this.gameId, p);
      Object.assign(own, { computed: `salt ${short(salt)}`, ok: salt === event.salt });
      if (salt !== event.salt) {
        throw new Discrepancy(`the salt of position ${p} is not the seed's salt_${p}`, "cards");
      }
      this.saltsChecked += 1;
    }
    const commitment = await cardCommitment(this.gameId, p, event.card, event.salt);
    if (own.computed !== null) own.computed += `, commitment ${short(commitment)}`;
    if (commitment !== event.commitment) {
      throw new Discrepancy(
        `the commitment of position ${p} does not open to card ${pyRepr(event.card)} with its salt`,
        "cards",
      );
    }
    const expected = this.cardAt
      ? await this.cardAt({
          ruleset: this.created.ruleset,
          variant: this.created.variant,
          gameId: this.gameId,
          position: p,
          shuffles: this.shuffles,
          dealt: this.dealt,
        })
      : undefined;
    if (expected === undefined) {
      this.canonicalUnknown += 1;
    } else {
      if (expected === null) {
        throw new Discrepancy(`no card can be dealt at position ${p} here`, "cards");
      }
      if (event.card !== expected) {
        throw new Discrepancy(
          `the shuffled deck puts ${pyRepr(expected)} at position ${p}, but ` +
            `${pyRepr(event.card)} was dealt`,
          "cards",
        );
      }
      this.canonicalChecked += 1;
    }
    this.dealt.set(p, event);
    this.cards += 1;
  }

  async onCardRevealed(s, event) {
    const p = event.position;
    const own = this.record(s, {
      what: `seat ${event.seat} shows the card at deck position ${p}`, position: p,
      recorded: event.card,
      how: `SHA256("card:v1:${this.gameId}:${p}:" + card + ":" + salt) is the commitment dealt`,
    });
    const dealt = this.dealt.get(p);
    if (dealt === undefined) {
      throw new Discrepancy(`reveals position ${p}, which was never dealt`, "card reveals");
    }
    const commitment = await cardCommitment(this.gameId, p, event.card, event.salt);
    Object.assign(own, { computed: `commitment ${short(commitment)}`,
                         ok: commitment === dealt.commitment });
    if (commitment !== dealt.commitment) {
      throw new Discrepancy(
        `card ${pyRepr(event.card)} does not match the commitment of position ${p} dealt earlier`,
        "card reveals",
      );
    }
    this.cardReveals += 1;
  }

  onSetupCommitted(s, event) {
    if (!this.created.hidden_setup) {
      throw new Discrepancy("a setup commitment in a game created without hidden setup", "setups");
    }
    const seat = this.seat(event.seat, "setups");
    if (this.setupCommitments[seat]) {
      throw new Discrepancy(`seat ${seat} committed its setup twice`, "setups");
    }
    this.setupCommitments[seat] = event.commitment;
  }

  onSetupsDiscarded() {
    if (!this.setupsRevealed.every(Boolean)) {
      throw new Discrepancy("setups discarded before every seat had revealed", "setups");
    }
    const seats = this.setupCommitments.length;
    this.setupCommitments = Array(seats).fill("");
    this.setupsRevealed = Array(seats).fill(false);
  }

  async onSetupRevealed(s, event) {
    if (!this.created.hidden_setup) {
      throw new Discrepancy("a setup reveal in a game created without hidden setup", "setups");
    }
    const seat = this.seat(event.seat, "setups");
    if (!this.setupCommitments.every(Boolean)) {
      throw new Discrepancy(
        `seat ${seat} revealed its setup before every seat committed`,
        "setups",
      );
    }
    if (this.setupsRevealed[seat]) {
      throw new Discrepancy(`seat ${seat} revealed its setup twice`, "setups");
    }
    let matches;
    try {
      const data = encoder.encode(event.setup);
      matches = (await setupCommitment(this.gameId, seat, event.nonce, data)) ===
        this.setupCommitments[seat];
    } catch (err) {
      if (!(err instanceof ValueError)) throw err;
      matches = false;
    }
    // The placement rules (a matching setup's legality) are the ruleset's: not judged here.
    if (!matches && !event.rejected) {
      throw new Discrepancy(
        `seat ${seat}'s revealed setup does not match its commitment, yet it was not rejected`,
        "setups",
      );
    }
    if (event.rejected) {
      this.lostBy(seat);
      this.setupsRejected += 1;
      if (matches) this.setupsMatchingRejected += 1;
    }
    this.setupsRevealed[seat] = true;
    this.setups += 1;
  }

  /** A rejected reveal loses the game: a GameEnded must follow that `seat` did not win. */
  lostBy(seat) {
    for (const later of this.stored.slice(this.index + 1)) {
      if (later.type !== "GameEnded") continue;
      const ended = decodeAs(later, "GameEnded");
      if (ended === null) return; // the walk reports it there
      if (ended.winners.includes(seat)) {
        throw new Discrepancy(
          `seat ${seat}'s setup was rejected, yet seat ${seat} wins at version ${later.version}`,
          "setups",
        );
      }
      return;
    }
    throw new Discrepancy(
      `seat ${seat}'s setup was rejected but the game did not end by it`,
      "setups",
    );
  }

  // -- the end and the seal (walk.py) --

  onGameEnded(s) {
    if (this.endedAt === null) this.endedAt = { version: s.version, type: s.type };
  }

  onGameSealed(s, event) {
    const before = this.stored[this.index - 1];
    if (event.version !== before.version || event.hash !== before.hash) {
      throw new Discrepancy(
        `the seal records (${event.version}, ${short(event.hash)}), but the event before it ` +
          `is (${before.version}, ${short(before.hash)})`,
        "seal",
      );
    }
    this.sealed += 1;
    this.sealedAt = s.version;
  }

  // -- the verdict (verdict.py) --

  finish(notes) {
    if (!this.created || !this.created.randomness) return null;
    if (!this.commitment) {
      notes.push("the server seed was never committed (no draws were possible)");
    } else if (!this.seedRevealedAt) {
      if (this.endedAt) {
        return {
          ...this.endedAt,
          message:
            "the game has ended but the server seed was never revealed: its draws " +
            "cannot be checked",
          check: "seed",
        };
      }
      notes.push(IN_PLAY_NOTE);
    }
    if (this.commitment && !this.mix) {
      notes.push("the client seeds were not all revealed: no mix, no draws");
    }
    return null;
  }

  checks(checked, failure) {
    const covered = {
      [CHAIN_V1]: "times, command ids and actions not included",
      [CHAIN_V2]: "times, command ids and actions included",
    };
    let chainDetail = `${checked} events, hashes and versions`;
    if (covered[this.chain]) chainDetail += ` (hash chain v${this.chain}, ${covered[this.chain]})`;
    const checks = [{ name: "chain", ok: true, detail: chainDetail }];
    if (this.readableChecked) {
      const n = this.readableChecked;
      checks.push({ name: "export", ok: true, detail: `${n} readable copies (event) match body_b64` });
    }
    const created = this.created;
    if (created !== null) {
      checks.push({ name: "types", ok: true, detail: `${this.decoded} events decode, tags match` });
      if (created.randomness && this.commitment) {
        const state = this.seedRevealedAt ? "revealed, matches" : "committed, not yet revealed";
        checks.push({ name: "seed", ok: true, detail: `${state} ${short(this.commitment)}` });
      }
      const revealed = this.clientSeeds.filter(Boolean).length;
      if (revealed) {
        const mix = this.mix ? `, mix ${short(this.mix)}` : "";
        checks.push({ name: "client seeds", ok: true, detail: `${revealed} reveals match${mix}` });
      }
      const draws = this.diceChecked + this.dicePending;
      if (draws) {
        const detail = this.dicePending
          ? `${draws} rolls recorded, not yet checkable`
          : `${this.diceChecked} rolls recomputed`;
        checks.push({ name: "dice", ok: true, detail });
      }
      const shuffles = this.shufflesChecked + this.shufflesPending;
      if (shuffles) {
        const detail = this.shufflesPending
          ? `${shuffles} recorded, permutations, not yet recomputable`
          : `${this.shufflesChecked} recomputed`;
        checks.push({ name: "shuffles", ok: true, detail });
      }
      if (this.nextNonce) {
        checks.push({
          name: "nonces", ok: true, detail: `0..${this.nextNonce - 1}, no gap or repeat`,
        });
      }
      if (this.cards) {
        const extra = this.saltsChecked ? [`${this.saltsChecked} salts`] : [];
        if (this.canonicalChecked) extra.push(`${this.canonicalChecked} against the shuffled deck`);
        const more = extra.length ? ` (${extra.join(", ")})` : "";
        checks.push({ name: "cards", ok: true, detail: `${this.cards} commitments${more}` });
      }
      if (this.cardReveals) {
        checks.push({ name: "card reveals", ok: true, detail: `${this.cardReveals} match` });
      }
      if (this.setups) {
        const rejected = this.setupsRejected
          ? ` (${this.setupsRejected} rejected, game lost)`
          : "";
        checks.push({ name: "setups", ok: true, detail: `${this.setups}${rejected}` });
      }
      if (this.sealed) {
        checks.push({ name: "seal", ok: true, detail: `records version ${this.sealedAt - 1}` });
      }
    }
    if (failure) {
      const detail = `event ${failure.version} (${failure.type}): ${failure.message}`;
      const same = checks.find((c) => c.name === failure.check);
      if (same) {
        same.ok = false;
        same.detail = `${same.detail}; then ${detail}`;
      } else {
        checks.push({ name: failure.check, ok: false, detail });
      }
    }
    return checks;
  }
}

const HANDLERS = {
  SeedCommitted: Auditor.prototype.onSeedCommitted,
  ClientSeedCommitted: Auditor.prototype.onClientSeedCommitted,
  ClientSeedRevealed: Auditor.prototype.onClientSeedRevealed,
  RandomDrawn: Auditor.prototype.onRandomDrawn,
  DeckShuffled: Auditor.prototype.onDeckShuffled,
  CardDealt: Auditor.prototype.onCardDealt,
  CardRevealed: Auditor.prototype.onCardRevealed,
  SetupCommitted: Auditor.prototype.onSetupCommitted,
  SetupRevealed: Auditor.prototype.onSetupRevealed,
  SetupsDiscarded: Auditor.prototype.onSetupsDiscarded,
  SeedRevealed: Auditor.prototype.onSeedRevealed,
  GameEnded: Auditor.prototype.onGameEnded,
  GameSealed: Auditor.prototype.onGameSealed,
};

const CHECK_OF = {
  SeedCommitted: "seed",
  SeedRevealed: "seed",
  ClientSeedCommitted: "client seeds",
  ClientSeedRevealed: "client seeds",
  RandomDrawn: "dice",
  DeckShuffled: "shuffles",
  CardDealt: "cards",
  CardRevealed: "card reveals",
  SetupCommitted: "setups",
  SetupRevealed: "setups",
  SetupsDiscarded: "setups",
  GameEnded: "types",
  GameSealed: "seal",
};

// -- signed seals and receipts (signing.py check_seals, check_receipts) -----------------------

async function checkSeals(stored, keys) {
  let signed = 0;
  const unsigned = [];
  for (const s of stored) {
    if (s.type !== "GameSealed") continue;
    const seal = decodeAs(s, "GameSealed");
    if (seal === null) continue; // the walk reports it
    if (!seal.signature) {
      unsigned.push(s.version);
      continue;
    }
    signed += 1;
    const at = { version: s.version, type: s.type };
    if (keys.length && !keys.includes(seal.key)) {
      const failure = `the seal at version ${s.version} is signed by a key not given`;
      return { signed, unsigned, at, failure };
    }
    const message = sealMessage(s.gameId, seal.version, seal.hash);
    if (!(await verifyEd25519(seal.key, message, seal.signature))) {
      const failure = `the seal at version ${s.version}: its signature does not verify`;
      return { signed, unsigned, at, failure };
    }
  }
  return { signed, unsigned, failure: null, at: null };
}

function readReceipts(receipts) {
  if (typeof receipts === "string") {
    return receipts.split(/\r?\n/).filter((l) => l.trim()).map((l) => JSON.parse(l));
  }
  return Array.from(receipts ?? []);
}

function receiptProblem(r) {
  const fields = [["game_id", "str"], ["version", "int"], ["hash", "str"], ["signature", "str"],
    ["key", "str"]];
  for (const [name, kind] of fields) {
    if (typeName(r?.[name]) !== kind) return `${name} is not a${kind === "int" ? "n" : ""} ${kind}`;
  }
  if (r.index !== undefined && !(Number.isSafeInteger(r.index) && r.index >= 0)) {
    return "index is not a non-negative int";
  }
  const strings = (list) => Array.isArray(list) && list.every((p) => typeof p === "string");
  if (r.path !== undefined && !strings(r.path)) {
    return "path is not a list of hex strings";
  }
  return null;
}

async function checkReceipts(stored, receipts, keys) {
  const gameId = stored.length ? stored[0].gameId : "";
  const mine = receipts.filter((r) => r && r.game_id === gameId);
  const others = receipts.length - mine.length;
  const verified = new Set();
  const result = (failure, at = null) => ({ count: mine.length, others, failure, at });
  for (const r of mine) {
    const problem = receiptProblem(r);
    const where = `receipt for version ${r.version} (${String(r.hash).slice(0, 16)}…)`;
    if (problem) return result(`${where}: malformed, ${problem}`);
    if (!(await verifyReceipt(r, verified))) {
      return result(`${where}: its signature does not verify`);
    }
    if (keys.length && !keys.includes(r.key)) {
      return result(`${where}: signed by ${r.key.slice(0, 16)}…, not a key given`);
    }
    if (r.version < 1) return result(`${where}: no log has a version ${r.version}`);
    if (r.version > stored.length) {
      return result(
        `${where}: the log ends at version ${stored.length}, before the head the service signed`,
        { version: r.version, type: MISSING },
      );
    }
    const s = stored[r.version - 1];
    if (s.hash !== r.hash) {
      return result(
        `${where}: the log has ${s.hash.slice(0, 16)}… there; this is not the history the ` +
          "service signed",
        { version: s.version, type: s.type },
      );
    }
  }
  return result(null);
}

// -- the audit ----------------------------------------------------------------------------------

/**
 * Audit an export (JSON Lines, a string or bytes) without trusting the server.
 *
 * `receipts`: the receipts the player kept (contracts/commands.py Receipt objects, or their
 * JSON Lines); each must verify under its key and name a (version, hash) of this log.
 * `options.keys`: the service's public keys to pin (hex); empty, each signature is checked
 * under the key it names. `options.cardAt({ruleset, variant, gameId, position, shuffles,
 * dealt})`: the card the recorded shuffles put at a deck position (null: none can be dealt
 * there; undefined: unknown), for rulesets whose deck the caller knows.
 *
 * Returns { ok, failure, failedAt, checks: [{name, ok, detail}], notes, gameId, ruleset,
 * events, head, chain, status }: `failure` the first discrepancy in words (as the Python
 * audit words it), `failedAt` the event it names ({version, type}; type "missing" for an
 * event the log lacks; null when it names none).
 */
export async function auditExport(text, receipts = [], options = {}) {
  const keys = options.keys ?? [];
  const empty = { gameId: "", ruleset: "", events: 0, head: "", chain: 0, status: "unknown",
                  draws: [], serverSeed: "", mix: "" };
  let stored;
  try {
    stored = parseExport(text);
  } catch (err) {
    const checks = [{ name: "export", ok: false, detail: err.message }];
    return { ok: false, failure: err.message, failedAt: null, checks, notes: [], ...empty };
  }
  if (!stored.length) {
    const checks = [{ name: "export", ok: false, detail: "the log is empty" }];
    return { ok: false, failure: "the log is empty", failedAt: null, checks, notes: [], ...empty };
  }
  const auditor = new Auditor(stored, options);
  const { failure: walked, notes, checks } = await auditor.run();
  let failure = walked;

  const seals = await checkSeals(stored, keys);
  checks.push({
    name: "signed seals",
    ok: seals.failure === null,
    detail: seals.failure ?? `${seals.signed} verified`,
  });
  for (const v of seals.unsigned) {
    notes.push(`the seal at version ${v} is not signed (written before seals were signed)`);
  }
  if (!failure && seals.failure) failure = { ...seals.at, message: seals.failure };

  let kept;
  try {
    kept = readReceipts(receipts);
  } catch (err) {
    kept = null;
    const message = `cannot read the receipts: ${err.message}`;
    checks.push({ name: "receipts", ok: false, detail: message });
    if (!failure) failure = { version: null, message };
  }
  if (kept && kept.length) {
    const r = await checkReceipts(stored, kept, keys);
    checks.push({
      name: "receipts", ok: r.failure === null, detail: r.failure ?? `${r.count} verified`,
    });
    if (r.others) notes.push(`${r.others} receipts for other games were not checked`);
    if (!failure && r.failure) failure = { ...(r.at ?? { version: null }), message: r.failure };
  }

  // What this audit cannot see that tabula audit does.
  notes.push(REPLAY_NOTE);
  if (auditor.canonicalUnknown) {
    notes.push(
      `cards: ${auditor.canonicalUnknown} dealt cards checked against their commitments and ` +
        "salts only, not against the card the recorded shuffle put at their deck position " +
        `(that needs the ${auditor.created.ruleset} rules; tabula audit checks it)`,
    );
  }
  if (auditor.setups) {
    notes.push(
      "setups: each reveal checked against its commitment; the placement rules (whether a " +
        "matching setup was rightly accepted or rejected) are the ruleset's and not judged here",
    );
  }
  const redacted = stored.filter((s) => s.redacted).map((s) => s.version);
  if (redacted.length) {
    notes.push(
      `events ${redacted.join(", ")} are redacted projections, not the stored bytes: ` +
        "their hashes cannot verify",
    );
  }

  const last = stored[stored.length - 1];
  return {
    ok: failure === null,
    failure: failure ? failure.message : null,
    failedAt: failure && failure.version !== null && failure.version !== undefined
      ? { version: failure.version, type: failure.type }
      : null,
    checks,
    notes,
    gameId: auditor.gameId,
    ruleset: auditor.created ? auditor.created.ruleset : "",
    events: stored.length,
    head: last.hash,
    chain: auditor.chain,
    status: auditor.status(),
    // each draw's and card's own check ({version, type, what, nonce, position, recorded,
    // computed, ok: true, false or null (not yet checkable), detail, how}), and the seeds
    draws: auditor.draws,
    serverSeed: auditor.serverSeed,
    mix: auditor.mix,
  };
}
