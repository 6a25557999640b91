import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { buildTestApp, expectStatus, seedMerchant, type TestApp, type TestAppOptions } from "../helpers/app.js";
import { cardCharge, CARDS, get, post } from "../helpers/charges.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
// topology: skip: its one app stays in-process: the bound on waiting charges is per process

// Production charges waiting on a processor that does not answer (the Pagar.me fake hangs):
// at most PROCESSOR_MAX_WAITING of them per process; the next is 503 processor_busy with
// Retry-After at once, having written nothing and left its Idempotency-Key free for the retry;
// and a waiting charge holds no database connection, so the rest of the API keeps working.

// Each hanging call ends at this timeout (the charge is then 201 pending, as after any timeout).
// It only has to outlast the checks made while the calls hang.
const HANG_MS = 5_000;

async function slowProvider(maxWaiting: number, options: TestAppOptions = {}): Promise<{ t: TestApp; fake: FakePagarme; key: string; sandboxKey: string; close(): Promise<void> }> {
  const fake = await startFakePagarme();
  const t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"] },
      processors: { pagarme: { secretKey: fake.secretKey, apiUrl: fake.url } }, timeoutMs: HANG_MS, maxWaiting,
    },
  }, options);
  const m = await seedMerchant(t);
  return {
    t, fake, key: m.productionKey, sandboxKey: m.sandboxKey,
    async close() {
      await t.close();
      await fake.close();
    },
  };
}

const orderCalls = (fake: FakePagarme) => fake.requests.filter((r) => r.route === "POST /orders").length;

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Sends `n` production card charges that will hang at the fake; resolves once all reached it. */
async function hangCharges(w: { t: TestApp; fake: FakePagarme; key: string }, n: number) {
  await w.fake.setFault({ mode: "hang", match: "POST /orders", times: n });
  let settled = 0;
  const answers = Array.from({ length: n }, () => post(w.t, w.key, "/v1/charges", cardCharge(CARDS.visa)).finally(() => { settled++; }));
  await until(`${n} charges waiting at the processor`, () => orderCalls(w.fake) >= n);
  return { answers: Promise.all(answers), settled: () => settled };
}

test("past PROCESSOR_MAX_WAITING a charge is 503 processor_busy with Retry-After at once, writes nothing, and its retry passes once the processor answers", async () => {
  const w = await slowProvider(3, {
    inProcessOnly: "the bound is per process: behind two API processes each would count the charges it serves, and the fourth could find room",
  });
  try {
    const hanging = await hangCharges(w, 3);
    const metrics = await w.t.app.inject({ method: "GET", url: "/metrics" });
    assert.match(metrics.body, /^feira_processor_waiting_charges 3$/m, "the gauge shows the charges waiting");

    const key = "busy-retry-1";
    const body = cardCharge(CARDS.visa, { customer: { name: "Ana Souza", email: "ana.busy@example.com" } });
    const busy = await post(w.t, w.key, "/v1/charges", body, { "idempotency-key": key });
    expectStatus(busy, 503);
    assert.equal(hanging.settled(), 0, "answered while every slot was still waiting, not after them");
    assert.deepEqual(busy.json(), {
      statusCode: 503, error: "Service Unavailable", code: "processor_busy",
      message: "The payment processor is slow to answer and 3 charges are already waiting on it in this server process; nothing was charged, retry after the Retry-After delay",
    });
    assert.equal(busy.headers["retry-after"], "1");
    assert.equal(orderCalls(w.fake), 3, "the refused charge never reached the processor");
    const written = await get(w.t, w.key, "/v1/charges");
    expectStatus(written, 200);
    assert.deepEqual(written.json().data, [], "no charge was written (the waiting ones write theirs when they are answered)");
    const customers = await get(w.t, w.key, "/v1/customers?email=ana.busy%40example.com");
    expectStatus(customers, 200);
    assert.deepEqual(customers.json().data, [], "the refused charge's customer was not created");

    // The processor answers the waiting ones (here: they time out, 201 pending); slots free up.
    for (const res of await hanging.answers) {
      expectStatus(res, 201);
      assert.equal(res.json().status, "pending");
    }
    const retried = await post(w.t, w.key, "/v1/charges", body, { "idempotency-key": key });
    expectStatus(retried, 201);
    assert.equal(retried.json().status, "paid", "the same Idempotency-Key runs once the processor has room");
    assert.equal(w.fake.ordersCreated(retried.json().id), 1);
    const fresh = await post(w.t, w.key, "/v1/charges", cardCharge(CARDS.visa));
    expectStatus(fresh, 201);
    assert.equal(fresh.json().status, "paid");
    const after = await w.t.app.inject({ method: "GET", url: "/metrics" });
    assert.match(after.body, /^feira_processor_waiting_charges 0$/m, "every slot was given back");
  } finally {
    await w.close();
  }
});

test("a charge waiting on the processor holds no database connection: with more charges waiting than the pool has connections, the API still answers", async () => {
  // 12 waiting charges against a pool of 10 PostgreSQL connections (one engine on PGlite): if a
  // waiting charge held a connection or a transaction, the requests below could not run.
  const w = await slowProvider(12);
  try {
    const hanging = await hangCharges(w, 12);
    const list = await get(w.t, w.key, "/v1/charges");
    expectStatus(list, 200);
    const sandbox = await post(w.t, w.sandboxKey, "/v1/charges", cardCharge(CARDS.visa), { "idempotency-key": "while-waiting" });
    expectStatus(sandbox, 201);
    assert.equal(sandbox.json().status, "paid");
    const customer = await post(w.t, w.key, "/v1/customers", { name: "Rui Costa", email: "rui@example.com", documentId: "529.982.247-25", documentType: "cpf" });
    expectStatus(customer, 201);
    assert.equal(hanging.settled(), 0, "all of this ran while the 12 charges were still waiting");
    for (const res of await hanging.answers) expectStatus(res, 201);
  } finally {
    await w.close();
  }
});
