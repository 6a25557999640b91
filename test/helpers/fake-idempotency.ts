import { createHash } from "node:crypto";

// The provider fakes' idempotency keys: fake-provider.ts keeps one store per account.

// Canonical JSON (sorted keys) so that a client re-serialising the same body differently is
// still "the same request" for the idempotency check.
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}
export const fingerprint = (route: string, body: unknown) =>
  createHash("sha256").update(route).update("\n").update(JSON.stringify(canonical(body ?? null))).digest("hex");

interface StoredKey<R> { fingerprint: string; at: number; reply: R; inFlight: boolean }
export type KeyLookup<R> = { kind: "new" } | { kind: "replay"; reply: R; inFlight: boolean } | { kind: "mismatch"; reply: R };

/** One account's idempotency keys: a key remembers the first answer it produced, for `ttlMs`. */
export class IdempotencyStore<R> {
  private keys = new Map<string, StoredKey<R>>();
  constructor(public ttlMs: number) {}
  lookup(key: string, fp: string): KeyLookup<R> {
    const k = this.keys.get(key);
    if (!k || Date.now() - k.at > this.ttlMs) return { kind: "new" };
    if (k.fingerprint !== fp) return { kind: "mismatch", reply: k.reply };
    return { kind: "replay", reply: k.reply, inFlight: k.inFlight };
  }
  /** Stores the answer; the key stays "in flight" until that answer was written (see afterReply). */
  remember(req: { afterReply(fn: () => void): void }, key: string, fp: string, reply: R): void {
    const stored: StoredKey<R> = { fingerprint: fp, at: Date.now(), reply: structuredClone(reply), inFlight: true };
    this.keys.set(key, stored);
    req.afterReply(() => { stored.inFlight = false; });
  }
  /** As if every key's lifetime had passed (the real ones live 24 h). */
  expireAll(): void { this.keys.clear(); }
  get size(): number { return this.keys.size; }
}
