import type { KeyPrincipal } from "../../http/auth.js";

// API-key lookups kept in memory for a few seconds: every authenticated request looks its key up,
// and the answer rarely changes. What changes it (rotation revokes keys, a merchant's status)
// forgets everything at once: in this process directly, in the others through NOTIFY
// `feira_auth` (sent in the changing transaction, so it arrives at commit; main.ts LISTENs).
// The TTL bounds what a lost notification, or a lookup racing the change, can keep alive.
// Only found keys are kept: unknown keys (guesses) always reach the database, and the map
// cannot be filled by them.
export const AUTH_CHANGED_CHANNEL = "feira_auth";
const MAX_ENTRIES = 10_000;

export function createKeyCache(ttlMs = 5_000, now = () => Date.now()) {
  const entries = new Map<string, { principal: KeyPrincipal; until: number }>();
  return {
    async get(keyHash: string, load: () => Promise<KeyPrincipal | null>): Promise<KeyPrincipal | null> {
      const hit = entries.get(keyHash);
      if (hit && hit.until > now()) return hit.principal;
      const principal = await load();
      if (principal) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(keyHash, { principal, until: now() + ttlMs });
      } else entries.delete(keyHash);
      return principal;
    },
    clear(): void {
      entries.clear();
    },
  };
}
