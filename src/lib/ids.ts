import { createHash, randomBytes } from "node:crypto";

// Crockford base32: ids sort by creation time (10 chars of milliseconds) and then by
// 16 random chars (80 bits). Time-ordered ids make `ORDER BY id` a stable cursor.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export type IdPrefix =
  | "mer" | "key" | "cus" | "card" | "ch" | "re" | "evt" | "whe" | "whd" | "wha" | "inv"
  | "ltx" | "le" | "stl" | "fee" | "adm" | "po" | "sm" | "doc" | "sub" | "plan" | "pl" | "req" | "dp" | "dpf" | "mdt" | "rea" | "eml";

function encodeTime(ms: number): string {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

// Random bytes are drawn from the system 4 KiB at a time: a charge makes about fifteen ids, and
// one randomBytes call per id showed in its profile.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let poolAt = 0;

/** `n` random bytes from the pool (n <= POOL_SIZE); each byte is handed out once. */
function drawRandom(n: number): number {
  if (poolAt + n > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += n;
  return at;
}

function randomChars(n: number): string {
  const at = drawRandom(n);
  let out = "";
  for (let i = 0; i < n; i++) out += ALPHABET[pool[at + i]! % 32];
  return out;
}

export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  return `${prefix}_${encodeTime(now)}${randomChars(16)}`;
}

/** A seed for seededId: the time part of an id and 16 random characters. */
export function newSeed(now: number = Date.now()): string {
  return encodeTime(now) + randomChars(16);
}

/**
 * The id a request with this seed gives to what it creates: the same seed always gives the same
 * id (per prefix), so a retry that takes over an abandoned idempotency claim finds the charge or
 * refund the first attempt may have created. Without a seed (no Idempotency-Key), a fresh id.
 */
export function seededId(prefix: IdPrefix, seed: string | undefined): string {
  if (!seed) return newId(prefix);
  const digest = createHash("sha256").update(`${prefix}:${seed}`).digest();
  let out = "";
  for (let i = 0; i < 16; i++) out += ALPHABET[digest[i]! % 32];
  return `${prefix}_${seed.slice(0, 10)}${out}`;
}

const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

// Random base62 secret text, used for API keys and passwords shown once, and for the sandbox's
// processor references (one per charge). From the same pool as ids: the bytes are the system
// CSPRNG's, each used once.
export function randomToken(length: number): string {
  let out = "";
  while (out.length < length) {
    const n = Math.min(length - out.length + 8, POOL_SIZE);
    const at = drawRandom(n);
    for (let i = 0; i < n && out.length < length; i++) {
      const b = pool[at + i]!;
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (b < 248) out += BASE62[b % 62];
    }
  }
  return out;
}

/**
 * A seed derived from an existing id and a label (e.g. a subscription and a billing period):
 * work that must happen once per (object, label) derives its ids from it with seededId, so a
 * second worker or a retry after a crash lands on the same charge instead of making another.
 * The random part comes from (parent, label); the time part is `at`, the time the derived object
 * is made, which must itself be stable across retries (a period's issue time, an attempt's
 * scheduled time). Ids sort by their time part, so a renewal made today under the time of a
 * year-old parent would sit a year deep in every newest-first list. Without `at`, the parent's
 * time: only for what is made together with the parent (its vault card, its mandate).
 */
export function derivedSeed(parentId: string, label: string, at?: Date | number): string {
  const time = at === undefined
    ? parentId.slice(parentId.indexOf("_") + 1, parentId.indexOf("_") + 11)
    : encodeTime(Math.max(0, typeof at === "number" ? at : at.getTime()));
  const digest = createHash("sha256").update(`${parentId}:${label}`).digest();
  let out = "";
  for (let i = 0; i < 16; i++) out += ALPHABET[digest[i]! % 32];
  return time + out;
}

/** The creation time written in an id (`ch_<10 chars of ms><16 random>`), in ms since the epoch. */
export function idTime(id: string): number {
  const at = id.indexOf("_") + 1;
  let ms = 0;
  for (let i = at; i < at + 10; i++) ms = ms * 32 + ALPHABET.indexOf(id[i]!);
  return ms;
}

/**
 * The smallest (`low`) or largest (`high`) id of `prefix` whose time part is `ms`: ids sort as
 * text by time first, so `id >= idBound(p, a, "low") and id <= idBound(p, b, "high")` holds
 * exactly the ids made from a to b.
 */
export function idBound(prefix: IdPrefix, ms: number, end: "low" | "high"): string {
  return `${prefix}_${encodeTime(Math.max(0, ms))}${(end === "low" ? ALPHABET[0]! : ALPHABET[31]!).repeat(16)}`;
}
