import { loadUndici } from "../../lib/undici-lazy.js";
import type { buildConnector, Pool } from "undici";
import type { PostResult, SafeTarget } from "../../lib/url-guard.js";

// Keep-alive HTTP for the delivery worker: one undici pool per (origin, checked address).
//
// A fresh connection per delivery cost more than everything else the worker does (connect,
// close, and the receiver's accept), so connections are kept. The SSRF pin still holds
// exactly: a pool connects only to the address it was created for, which is part of its key,
// and a delivery reaches a pool only after resolveDestination checked that very address under
// the delivery's own rules. A name that resolves elsewhere on the next delivery gets another
// pool (after its own check); a pool is never pointed at an address it was not created for.
// undici does not follow redirects (no redirect interceptor here): a 3xx is reported as is.
// undici is imported on the first delivery (lib/undici-lazy.ts).

export interface DeliverySender {
  post(target: SafeTarget, body: string, headers: Record<string, string>, opts: { timeoutMs: number; maxResponseBytes: number }): Promise<PostResult>;
  /** Closes every pool (worker shutdown); in-flight requests finish first. */
  close(): Promise<void>;
}

/** Pools unused for this long are closed; their sockets are long gone by then (keep-alive 4 s). */
const POOL_IDLE_MS = 60_000;
/** More distinct destinations than this in one minute: the least recently used pools go. */
const MAX_POOLS = 1000;
const USER_AGENT = "feira-webhooks/1";

function errorText(err: unknown): string {
  // With happy-eyeballs Node can reject with an AggregateError whose own message is empty.
  if (err instanceof AggregateError && err.message === "" && err.errors.length > 0) return errorText(err.errors[0]);
  if (err instanceof Error) return err.message || (err as NodeJS.ErrnoException).code || err.name;
  return String(err);
}

/**
 * A kept-alive connection the receiver closed while the request was being written: sent again
 * once, on a new connection. The receiver may have had it (at least once: it dedupes on
 * webhook-id); without this, an idle timeout on the receiver's side would count as a failure.
 */
const staleConnection = (err: unknown) =>
  ["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"].includes(String((err as NodeJS.ErrnoException | undefined)?.code));

export function createDeliverySender(opts: { connections: number }): DeliverySender {
  // Map order is recency order: a pool is moved to the end each time it is used.
  const pools = new Map<string, { pool: Pool; usedAt: number }>();
  let sweptAt = Date.now();

  async function poolFor(target: SafeTarget): Promise<Pool> {
    const key = `${target.url.origin} ${target.address}`;
    const now = Date.now();
    const found = pools.get(key);
    if (found) {
      pools.delete(key);
      found.usedAt = now;
      pools.set(key, found);
      return found.pool;
    }
    const { buildConnector, Pool } = await loadUndici();
    // Another delivery may have made this pool while the import was awaited.
    const made = pools.get(key);
    if (made) return made.pool;
    const base = buildConnector({});
    // The pin: whatever the origin's host, the socket goes to the checked address. TLS still
    // sends SNI and verifies the certificate for the origin's name (undici derives the
    // servername from the Host, never from the IP).
    const pinned: buildConnector.connector = (o, cb) => base({ ...o, hostname: target.address }, cb);
    const pool = new Pool(target.url.origin, { connections: opts.connections, connect: pinned, pipelining: 1 });
    pools.set(key, { pool, usedAt: now });
    if (pools.size > MAX_POOLS || now - sweptAt > POOL_IDLE_MS) sweep(now);
    return pool;
  }

  function sweep(now: number): void {
    sweptAt = now;
    for (const [key, entry] of pools) {
      if (pools.size <= MAX_POOLS && now - entry.usedAt < POOL_IDLE_MS) break; // the rest are newer
      pools.delete(key);
      void entry.pool.close().catch(() => undefined);
    }
  }

  async function post(
    target: SafeTarget, body: string, headers: Record<string, string>, o: { timeoutMs: number; maxResponseBytes: number },
  ): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const abort = new AbortController();
    // One budget for connect, TLS, headers and body, so a trickling receiver cannot hold a
    // slot past it.
    const timer = setTimeout(() => abort.abort(), o.timeoutMs);
    const timedOut = (): PostResult => ({ status: null, durationMs: elapsed(), error: `timeout after ${o.timeoutMs}ms` });
    const request = async () => (await poolFor(target)).request({
      method: "POST",
      path: `${target.url.pathname}${target.url.search}`,
      headers: { "user-agent": USER_AGENT, ...headers },
      body,
      signal: abort.signal,
    });
    try {
      const res = await request().catch((err: unknown) => {
        if (staleConnection(err) && !abort.signal.aborted) return request();
        throw err;
      });
      const status = res.statusCode;
      const rawRetryAfter = res.headers["retry-after"];
      const retryAfter = (Array.isArray(rawRetryAfter) ? rawRetryAfter[0] : rawRetryAfter)?.trim();
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          const room = o.maxResponseBytes - size;
          if (room > 0) {
            const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
            chunks.push(part);
            size += part.length;
          }
          // Enough for the delivery log: stop reading, so a huge or endless body costs nothing
          // (the connection is dropped instead of drained).
          if (size >= o.maxResponseBytes) {
            res.body.destroy();
            break;
          }
        }
      } catch {
        // The status arrived, so the delivery is judged by it even if the body breaks off.
      }
      return {
        status, durationMs: elapsed(), responseExcerpt: Buffer.concat(chunks).toString("utf8"),
        ...(retryAfter ? { retryAfter } : {}),
      };
    } catch (err) {
      if (abort.signal.aborted) return timedOut();
      return { status: null, durationMs: elapsed(), error: errorText(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  async function close(): Promise<void> {
    const all = [...pools.values()];
    pools.clear();
    await Promise.all(all.map((e) => e.pool.close().catch(() => undefined)));
  }

  return { post, close };
}
