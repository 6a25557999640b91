import { setTimeout as sleep } from "node:timers/promises";
import type { LightMyRequestResponse } from "fastify";
import { Webhook } from "standardwebhooks";
import type { Config } from "../../src/config.js";
import { queryRows, sql, withTx } from "../../src/db/client.js";
import { drainTasks } from "../../src/jobs/runner.js";
import type { HostLookup } from "../../src/lib/url-guard.js";
import { recordEvent, type EventInput } from "../../src/modules/webhooks/outbox.js";
import { createWebhookModule, type WebhookModule } from "../../src/modules/webhooks/webhooks.module.js";
import { basic, buildTestApp, expectStatus, type TestApp } from "../helpers/app.js";
import { startReceiver, type ReceivedRequest, type Receiver } from "../helpers/webhook-receiver.js";

// The real app over a fresh database, with the webhook module built from test options: a fake
// DNS resolver (this machine has no DNS, and SSRF cases need names that resolve to private
// addresses) and a short HTTP timeout. Everything else is the production wiring.
export interface WebhookTestApp extends TestApp {
  webhooks: WebhookModule;
}

export async function buildWebhookTestApp(opts: {
  config?: Partial<Config>;
  lookup?: HostLookup;
  timeoutMs?: number;
  leaseMs?: number;
  /** Why no worker process may deliver in topology mode (the test steps the delivery task). */
  noWorkerProcesses?: string;
} = {}): Promise<WebhookTestApp> {
  let webhooks: WebhookModule | undefined;
  // In topology mode (test/helpers/topology.ts) the worker processes deliver too, with the
  // real resolver and the default timeout: a test that depends on either stays in-process.
  const inProcessOnly = opts.lookup
    ? "fake DNS resolver (a module option; the processes resolve for real)"
    : opts.timeoutMs !== undefined && opts.timeoutMs < 3_000
      ? `delivery timeout of ${opts.timeoutMs} ms (a module option; the processes use the default)`
      : undefined;
  const t = await buildTestApp(opts.config, {
    inProcessOnly,
    noWorkerProcesses: opts.noWorkerProcesses,
    services: (base, config, database) => {
      webhooks = createWebhookModule({
        db: database.db, config, sealer: base.sealer, lookup: opts.lookup, timeoutMs: opts.timeoutMs, leaseMs: opts.leaseMs,
      });
      return { ...base, webhooks };
    },
  });
  return { ...t, webhooks: webhooks! };
}

/**
 * For `noWorkerProcesses`: a test that runs the delivery task itself and asserts the state
 * between attempts (pending, attempt counts, schedules). Worker processes delivering at the
 * same time would take those attempts from it; the API processes still serve its requests.
 */
export const STEPS_DELIVERY = "the test steps the delivery task and asserts the state between attempts";

/** A resolver answering from a table; unknown names fail like a real NXDOMAIN. */
export function fakeDns(table: Record<string, string[]>): HostLookup {
  return async (host) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

/** Records an event through the real outbox, in its own transaction, as a module would. */
export function record(t: TestApp, input: EventInput): Promise<string> {
  return withTx(t.database.db, (tx) => recordEvent(tx, input));
}

/** Runs the worker until nothing is pending or in flight (retries included), or fails. */
export async function settle(t: WebhookTestApp, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await drainTasks(t.webhooks.tasks);
    const [row] = await queryRows<{ n: number | string }>(t.database.db,
      sql`select count(*) as n from webhook_deliveries where status in ('pending', 'delivering')`);
    if (Number(row?.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`deliveries still open after ${timeoutMs}ms: ${row?.n}`);
    await sleep(2);
  }
}

export async function call(
  t: TestApp,
  key: string,
  method: "GET" | "POST" | "PATCH" | "DELETE",
  url: string,
  payload?: unknown,
  status?: number,
): Promise<LightMyRequestResponse> {
  const res = await t.app.inject({
    method, url, headers: { authorization: basic(key) }, ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (status !== undefined) expectStatus(res, status);
  return res;
}

export async function createEndpoint(t: TestApp, key: string, body: Record<string, unknown>) {
  const res = await call(t, key, "POST", "/v1/webhook-endpoints", body, 201);
  return res.json() as { id: string; secret: string; url: string; events: string[] };
}

/** Verifies a received request with the official Standard Webhooks library; throws if bad. */
export function verified(secret: string, req: ReceivedRequest): Record<string, unknown> {
  return new Webhook(secret).verify(req.body, req.headers as Record<string, string>) as Record<string, unknown>;
}

/** A charge as standard events show it (snake_case keys, cents). */
export function chargeData(id: string, status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id, status, psp_ref_id: null, amount: 1000, currency: "BRL", spread: 0, anticipation_fee_estimated: 0, net: 1000,
    customer: null, payment_method: { type: "pix" }, merchant_id: "mer_x", payment_details: null, shipping_address: null,
    tracking_info: null, metadata: null, postback_url: null, paid_at: null, is_test: true,
    created_at: "2025-01-01T00:00:00.000Z", updated_at: "2025-01-01T00:00:00.000Z", deleted_at: null, ...extra,
  };
}

export const paidEvent = (
  merchantId: string,
  chargeId: string,
  extra: { postbackUrl?: string; environment?: "sandbox" | "production" } = {},
): EventInput => ({
  merchantId, environment: extra.environment ?? "sandbox", type: "charge.paid", objectId: chargeId,
  data: chargeData(chargeId, "paid"), postbackUrl: extra.postbackUrl,
});

export interface LoggedDelivery {
  status: string;
  attemptCount: number;
  lastError: string | null;
  eventId: string;
  attempts: { attempt: number; responseStatus: number | null; error: string | null; durationMs: number; responseExcerpt: string | null; startedAt: string }[];
}

/** The delivery log of an endpoint, through the API. */
export async function deliveriesOf(t: TestApp, key: string, endpointId: string): Promise<LoggedDelivery[]> {
  return (await call(t, key, "GET", `/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`, undefined, 200)).json().data;
}

type Respond = NonNullable<Parameters<typeof startReceiver>[0]>["respond"];

/** Receivers started by a test file, all closed at its end. */
export function receiverPool() {
  const started: Receiver[] = [];
  return {
    async start(respond?: Respond): Promise<Receiver> {
      const r = await startReceiver({ respond });
      started.push(r);
      return r;
    },
    close: () => Promise.all(started.map((r) => r.close())),
  };
}
