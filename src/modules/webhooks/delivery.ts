import type { Config } from "../../config.js";
import { withTx, type Db, type Tx } from "../../db/client.js";
import { faultPoint } from "../../lib/faults.js";
import type { HostLookup, PostResult } from "../../lib/url-guard.js";
import * as repo from "./deliveries.repo.js";
import { createDeliverySender } from "./delivery-http.js";
import { resolveDestination } from "./destination.js";
import { buildBody } from "./payload.js";
import { honourRetryAfter, nextAttemptDelayMs, type RetryKind } from "./retry-schedule.js";
import type { Secrets } from "./secrets.js";
import { webhookHeaders } from "./signing.js";

// The delivery worker (ARCHITECTURE flow 2). It claims due deliveries (the claim commits at
// once), sends them concurrently with no transaction open, and records finished outcomes in
// short transactions, each write guarded by its lease. A worker killed at any point loses
// nothing: its claimed deliveries stay "delivering" until the lease expires, and then any
// worker claims them again. Delivery is therefore at least once; receivers dedupe on
// webhook-id, which is the event id on every attempt and every destination.
//
// What one delivery costs is kept small, because a worker shares its machine with PostgreSQL
// and the receivers: connections are kept alive per checked address (delivery-http.ts), the
// claim of the next deliveries and the record of the finished ones run at once and each is
// one statement for a whole batch, a body is serialised once per event, and an endpoint's
// secrets are opened once per sealed value, not per delivery.

/** An endpoint that has failed every delivery for this long (times the retry scale) is disabled. */
export const ENDPOINT_DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
const EXCERPT_BYTES = 1024;

export interface DeliveryOptions {
  /** Budget of one attempt: DNS check, connect, TLS, answer. */
  timeoutMs: number;
  /** How long a claim lasts; longer than timeoutMs plus the time to record the outcome. */
  leaseMs: number;
  /** Deliveries in flight at once in one worker process. */
  concurrency: number;
  /** DNS for the destination check (tests use a fake resolver). */
  lookup?: HostLookup;
}

export interface DeliveryDeps extends DeliveryOptions {
  db: Db;
  config: Pick<Config, "webhookRetryScale" | "webhookAllowPrivateUrls" | "production">;
  secrets: Secrets;
}

/**
 * How often a worker's claim also takes over deliveries whose lease expired (their worker died):
 * they are sent again at most this long after the lease ends. Not on every claim, because that
 * scan grows with the deliveries made since the last vacuum (deliveries.repo.ts, CLAIM).
 */
const EXPIRED_LEASES_EVERY_MS = 1_000;

/** Opened signing secrets kept per sealed value; beyond this many the cache starts over. */
const MAX_OPENED_SECRETS = 10_000;

const retryKind = (kind: repo.ClaimedDelivery["kind"]): RetryKind => (kind === "legacy" ? "legacy" : "endpoint");

function withDeadline<T>(promise: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => { timer = setTimeout(() => resolve(onTimeout()), ms); });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export function createDeliveryWorker(deps: DeliveryDeps) {
  const { db, config, secrets } = deps;
  const scale = config.webhookRetryScale;
  const disableAfterMs = ENDPOINT_DISABLE_AFTER_MS * scale;
  const disableDays = Math.round(ENDPOINT_DISABLE_AFTER_MS / 86_400_000);

  // The first attempt of a kind may itself wait (legacy: about 1 s after the change).
  const minClaim = Math.max(1, Math.floor(deps.concurrency / 4));
  const firstDelayMs = {
    endpoint: nextAttemptDelayMs("endpoint", 0, scale) ?? 0,
    legacy: nextAttemptDelayMs("legacy", 0, scale) ?? 0,
  };

  const sender = createDeliverySender({ connections: deps.concurrency });

  // The key includes the owner and every sealed value, so a rotation (a new sealed value) or a
  // value copied into another row (another AAD, which does not open) is never served from here.
  // An entry with an overlapping previous secret lasts until that secret expires.
  const opened = new Map<string, { keys: string[]; until: number }>();
  function endpointSecrets(merchantId: string, e: NonNullable<repo.ClaimedDelivery["endpoint"]>): string[] {
    const key = `${merchantId} ${e.id} ${e.secretSealed} ${e.previousSecretSealed} ${e.previousSecretExpiresAt?.getTime()}`;
    const now = Date.now();
    const hit = opened.get(key);
    if (hit && now < hit.until) return hit.keys;
    const keys = secrets.endpointSigningSecrets({ ...e, merchantId }, new Date(now));
    if (opened.size >= MAX_OPENED_SECRETS) opened.clear();
    opened.set(key, { keys, until: keys.length > 1 ? e.previousSecretExpiresAt!.getTime() : Infinity });
    return keys;
  }

  /** The current secret, and the rotated-out one while it overlaps (each signs the attempt). */
  async function signingSecrets(d: repo.ClaimedDelivery): Promise<string[]> {
    if (d.endpoint) return endpointSecrets(d.merchantId, d.endpoint);
    return secrets.postbackSigningSecrets(db, { merchantId: d.merchantId, environment: d.environment });
  }

  // The deliveries of one event share its event object (claimDue), so its body is built once.
  const bodies = new WeakMap<repo.ClaimedDelivery["event"], string>();
  function bodyOf(d: repo.ClaimedDelivery): string {
    let body = bodies.get(d.event);
    if (body === undefined) bodies.set(d.event, (body = buildBody({ ...d.event, environment: d.environment })));
    return body;
  }

  /** Checks the destination again (DNS rebinding) and POSTs, all within one timeout. */
  async function send(d: repo.ClaimedDelivery, url: string, keys: string[]): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const timedOut = { ok: false as const, message: `timeout after ${deps.timeoutMs}ms resolving the host` };
    const target = await withDeadline(resolveDestination(url, d.environment, config, deps.lookup), deps.timeoutMs, () => timedOut);
    if (!target.ok) return { status: null, durationMs: elapsed(), error: `not sent: ${target.message}` };
    const body = bodyOf(d);
    const headers = webhookHeaders(keys, d.event.id, Math.floor(Date.now() / 1000), body);
    const remaining = Math.max(1, deps.timeoutMs - elapsed());
    const result = await sender.post(target, body, headers, { timeoutMs: remaining, maxResponseBytes: EXCERPT_BYTES });
    // The post had what was left of the budget; report the budget itself.
    if (result.status === null && result.error.startsWith("timeout after")) return { ...result, durationMs: elapsed(), error: `timeout after ${deps.timeoutMs}ms` };
    return { ...result, durationMs: elapsed() };
  }

  /** Sends one attempt (no transaction open) and says what to record. */
  async function attempt(d: repo.ClaimedDelivery): Promise<repo.Outcome> {
    // An endpoint disabled or deleted after the event was recorded gets nothing.
    if (d.kind === "endpoint" && (!d.endpoint || d.endpoint.deleted || !d.endpoint.enabled)) {
      const why = !d.endpoint || d.endpoint.deleted ? "the endpoint was deleted" : "the endpoint is disabled";
      return { status: "skipped", url: d.url, lastStatus: null, lastError: `not sent: ${why}` };
    }
    // An endpoint's deliveries follow its current URL, so fixing a wrong URL fixes the retries.
    const url = d.endpoint?.url ?? d.url;
    let keys: string[] | undefined;
    try {
      keys = await signingSecrets(d);
    } catch {
      // A secret sealed under another ENCRYPTION_KEY: an operator error, logged as a failed
      // attempt so that it is visible and the schedule still ends.
    }
    const startedAt = new Date();
    let result: PostResult;
    if (keys === undefined) {
      result = { status: null, durationMs: 0, error: "internal error: the signing secret could not be read" };
    } else {
      // Whatever goes wrong is an attempt that failed, so that the schedule still ends.
      result = await send(d, url, keys).catch(() => ({ status: null, durationMs: 0, error: "internal error while sending" }));
    }
    faultPoint("delivery.after-send"); // sent, not recorded: the lease expires and it is sent again
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const error = result.status === null ? result.error : ok ? null : `HTTP ${result.status}`;
    const base = {
      url,
      lastStatus: result.status,
      lastError: error,
      attempt: {
        startedAt,
        durationMs: result.durationMs,
        responseStatus: result.status,
        error,
        responseExcerpt: result.status === null ? null : result.responseExcerpt,
      },
    };
    if (ok) return { ...base, status: "delivered" };
    // Standard Webhooks: 410 Gone means "stop sending" (the endpoint is disabled when recorded).
    if (result.status === 410) return { ...base, status: "failed", lastError: "HTTP 410 Gone: no further attempts" };
    const delay = nextAttemptDelayMs(retryKind(d.kind), d.attempts + 1, scale);
    if (delay === null) return { ...base, status: "failed" };
    // 429 Too Many Requests and 503 Service Unavailable are the answers where Retry-After
    // means "come back then"; the log says where the time came from.
    const asked = (result.status === 429 || result.status === 503) && result.retryAfter !== undefined
      ? honourRetryAfter(retryKind(d.kind), delay, result.retryAfter, scale)
      : null;
    if (asked === null) return { ...base, status: "pending", retryInMs: delay };
    const noted = `${error}; ${asked.note}`;
    return { ...base, lastError: noted, attempt: { ...base.attempt, error: noted }, status: "pending", retryInMs: asked.delayMs };
  }

  /**
   * Records outcomes that include failures to endpoints, with their effects (failing streak,
   * disabling), in one transaction. A batch of successes needs none of this: recordOutcomes
   * alone is one statement, its own transaction.
   */
  async function recordWithFailures(tx: Tx, batch: { d: repo.ClaimedDelivery; outcome: repo.Outcome }[]): Promise<void> {
    const written = await repo.recordOutcomes(tx, batch);
    const failed = batch.filter(({ d, outcome }) => written.has(d.id) && d.endpoint && outcome.status !== "skipped" && outcome.status !== "delivered");
    for (const { d, outcome } of failed) {
      if (outcome.lastStatus === 410) {
        await repo.disableEndpoint(tx, d.endpoint!.id, "The endpoint answered 410 Gone");
        continue;
      }
      const disabled = await repo.noteFailure(tx, d.endpoint!.id, disableAfterMs, `Every delivery failed for more than ${disableDays} days`);
      // The endpoint is off now, so this delivery's remaining retries would only be skipped.
      if (disabled && outcome.status === "pending") {
        await repo.finishAfterDisable(tx, d.id, `${outcome.lastError}; the endpoint was disabled after failing for ${disableDays} days`);
      }
    }
  }

  // Deliveries in flight and outcomes waiting to be recorded. Up to concurrency are in flight at
  // once, each in its own slot: a receiver that takes the whole timeout holds one slot, not a
  // whole batch, so it cannot stall the deliveries to everyone else.
  const inflight = new Map<string, Promise<void>>();
  const finished: { d: repo.ClaimedDelivery; outcome: repo.Outcome }[] = [];
  const observers: DeliveryObserver[] = [];
  const errors: unknown[] = [];

  // The waits of nextFinished, ended by the next delivery to finish or by a wake.
  const waiting: (() => void)[] = [];
  const release = () => { if (waiting.length > 0) for (const resolve of waiting.splice(0)) resolve(); };
  // New deliveries were queued since this run began: the run ends without waiting for the ones
  // in flight, so the next run claims them into free slots at once. Otherwise a delivery queued
  // while one receiver takes its time (up to timeoutMs) waited for that receiver.
  let woken = false;

  function start(d: repo.ClaimedDelivery): void {
    const running = attempt(d)
      .then((outcome) => { finished.push({ d, outcome }); }, (err: unknown) => { errors.push(err); })
      .finally(() => {
        inflight.delete(d.id);
        release();
      });
    inflight.set(d.id, running);
  }

  /** Waits until some delivery in flight is finished, unless one already is, or a wake. */
  async function nextFinished(): Promise<void> {
    if (woken || finished.length > 0 || errors.length > 0 || inflight.size === 0) return;
    await new Promise<void>((resolve) => { waiting.push(resolve); });
  }

  /** Records a batch of finished outcomes: one commit for many deliveries. */
  async function record(batch: { d: repo.ClaimedDelivery; outcome: repo.Outcome }[]): Promise<number> {
    if (batch.length === 0) return 0;
    const failures = batch.some(({ d, outcome }) => d.endpoint && outcome.status !== "delivered" && outcome.status !== "skipped");
    if (failures) await withTx(db, (tx) => recordWithFailures(tx, batch));
    else await repo.recordOutcomes(db, batch);
    // After the commit: observers (the worker's log) see only what was recorded.
    for (const { d, outcome } of batch) for (const observer of observers) observer(d, outcome);
    return batch.length;
  }

  /** Records every finished outcome; rethrows an unexpected error of a delivery (the runner logs it). */
  async function recordFinished(): Promise<number> {
    const recorded = await record(finished.splice(0));
    // An unexpected error leaves its delivery leased, to be retried when the lease expires.
    if (errors.length > 0) throw errors.shift();
    return recorded;
  }

  // When this worker's claim last took over expired leases too (EXPIRED_LEASES_EVERY_MS).
  let expiredCheckedAt = -Infinity;

  /**
   * One run of the task: claim due deliveries into the free slots and record the finished
   * ones, both at once (two connections; PGlite runs them one after the other), then wait
   * until some delivery in flight is finished or a wake announces new ones. Under load a
   * claim waits for a quarter of the slots to be free, so that each claim is one statement for
   * several deliveries. Returns how much it did; 0 when nothing was due, in flight or finished.
   */
  async function runOnce(): Promise<number> {
    // Cleared before the claim reads the queue: a wake from here on may announce rows it misses.
    woken = false;
    const room = deps.concurrency - inflight.size;
    const claim = room > 0 && (room >= minClaim || inflight.size === 0);
    const expiredToo = claim && performance.now() - expiredCheckedAt >= EXPIRED_LEASES_EVERY_MS;
    if (expiredToo) expiredCheckedAt = performance.now();
    const claiming = claim
      ? repo.claimDue(db, room, deps.leaseMs, firstDelayMs, expiredToo).then((claimed) => {
        for (const d of claimed) start(d);
        return claimed.length;
      })
      : Promise.resolve(0);
    const [claimed, recorded] = await Promise.allSettled([claiming, recordFinished()]);
    if (claimed.status === "rejected") throw claimed.reason;
    if (recorded.status === "rejected") throw recorded.reason;
    await nextFinished();
    return claimed.value + recorded.value + inflight.size + finished.length;
  }

  /** New deliveries are queued (the runner's wake): a run waiting on deliveries in flight ends. */
  function wake(): void {
    woken = true;
    release();
  }

  /** Lets the deliveries in flight end and records them, claiming nothing new (shutdown). */
  async function finish(): Promise<void> {
    while (inflight.size > 0 || finished.length > 0) {
      await nextFinished();
      await recordFinished();
    }
    await sender.close();
  }

  /** Calls `observer` with every recorded outcome (the worker logs failures and a summary). */
  function observe(observer: DeliveryObserver): void {
    observers.push(observer);
  }

  return { runOnce, finish, observe, wake };
}

export type DeliveryObserver = (d: repo.ClaimedDelivery, outcome: repo.Outcome) => void;

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
