import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { findCharge } from "../../src/modules/charges/charges.repo.js";
import { buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
import { createCharge, methodCharge } from "../helpers/charges.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { until } from "../helpers/wait.js";

// A flood of unsigned Pagar.me notices cannot make feira hammer Pagar.me: notices for one charge
// that arrive together share one read, reads are limited per address (5 a second here), and
// notices naming no live charge never reach the provider.

let t: TestApp;
let pagarme: FakePagarme;
let key: string;
let merchantId: string;
const PER_ADDRESS = 5;

before(async () => {
  pagarme = await startFakePagarme();
  t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes: { pix: ["pagarme"] }, timeoutMs: 5_000,
      processors: { pagarme: { secretKey: pagarme.secretKey, apiUrl: pagarme.url } },
      webhookLookups: { perSecond: 1_000, perAddressPerSecond: PER_ADDRESS },
    },
  }, { inProcessOnly: "coalescing is per process: the test counts this process's reads" });
  const m = await seedMerchant(t);
  key = m.productionKey;
  merchantId = m.id;
});

after(async () => {
  await t.close();
  await pagarme.close();
});

const pixCustomer = { name: "Maria Silva", email: "maria@example.com", phone: "+55 11 91234-5678", document: { type: "cpf", id: "529.982.247-25" } };

async function livePix() {
  const pix = await createCharge(t, key, methodCharge({ type: "pix" }, { customer: pixCustomer }));
  const row = (await findCharge(t.database.db, { merchantId, environment: "production" }, pix.id))!;
  return { id: pix.id, pspRefId: row.pspRefId! };
}

const notice = (data: Record<string, unknown>) =>
  t.app.inject({ method: "POST", url: "/v1/processors/pagarme/webhooks", payload: { id: "hook_flood", type: "charge.paid", data } });
/** The notices this process has waiting for a read, from its /metrics. */
async function noticesWaiting(): Promise<number> {
  const body = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
  return Number(/^feira_provider_notices_waiting (\d+)$/m.exec(body)?.[1] ?? NaN);
}
/** Reads at Pagar.me since `from` (a lookup of a charge is a GET). */
const readsSince = (from: number) => pagarme.requests.slice(from).filter((r) => r.method === "GET").length;

test("a burst of notices for one charge costs two reads at the provider, and every notice is answered 200", async () => {
  const pix = await livePix();
  const from = pagarme.requests.length;
  // The first notice's read is held at the provider until all 60 notices wait: the others,
  // however late each reaches the gate, then share the one read after it.
  const release = pagarme.core.holdAnswers();
  const answering = Promise.all(Array.from({ length: 60 }, () => notice({ id: pix.pspRefId, code: pix.id })));
  try {
    await until("60 notices waiting on one held read", async () => (await noticesWaiting()) === 60 && readsSince(from) === 1);
  } finally {
    release();
  }
  for (const res of await answering) expectStatus(res, 200);
  assert.equal(readsSince(from), 2, "60 notices at once: the held read and the one they share");
  assert.equal(await noticesWaiting(), 0);
});

test("notices one after another are limited per address: past the budget a 429 with Retry-After, and a bounded number of reads", async () => {
  const pix = await livePix();
  const from = pagarme.requests.length;
  const started = Date.now();
  const statuses: number[] = [];
  let retryAfter: string | undefined;
  for (let i = 0; i < 30; i++) {
    const res = await notice({ id: pix.pspRefId, code: pix.id });
    statuses.push(res.statusCode);
    if (res.statusCode === 429) {
      retryAfter = String(res.headers["retry-after"]);
      assert.equal(res.json().code, "rate_limited", res.body);
    }
  }
  // Budgets are per second, aligned to the clock: the loop may cross into new windows.
  const windows = Math.floor((Date.now() - started) / 1000) + 2;
  const reads = readsSince(from);
  assert.ok(reads <= PER_ADDRESS * windows, `${reads} reads for 30 notices over ${windows} windows`);
  assert.ok(statuses.includes(429), `some notices were refused: ${statuses.join(",")}`);
  assert.match(retryAfter ?? "", /^[1-9]\d*$/);
  assert.equal(statuses.filter((s) => s === 200).length, reads, "each admitted notice made one read");
});

test("notices naming no live charge are answered 200 without any call to the provider, however many", async () => {
  const from = pagarme.requests.length;
  for (let i = 0; i < 40; i++) expectStatus(await notice({ id: `or_unknown${i}`, code: `ch_unknown${i}` }), 200);
  expectStatus(await notice({}), 200);
  assert.equal(pagarme.requests.length - from, 0);
});
