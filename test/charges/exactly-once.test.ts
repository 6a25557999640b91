import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { queryRows, sql } from "../../src/db/client.js";
import { createSandboxProcessor } from "../../src/processors/sandbox/sandbox.processor.js";
import { memoryRecords } from "../../src/processors/processor.js";
import { buildTestApp, expectStatus, seedMerchant, storedKey, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, get, methodCharge, post } from "../helpers/charges.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

// Exactly-once per Idempotency-Key inside one process, by putting the database in the states a
// crash leaves behind (the real kill -9 runs are in crash-points.test.ts and bench/crash.ts).

let t: TestApp;
let m: SeededMerchant;
let receiver: Receiver;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  receiver = await startReceiver();
});
after(async () => {
  await t.close();
  await receiver.close();
});

const db = () => t.database.db;
const one = async <T>(q: ReturnType<typeof sql>) => (await queryRows<T>(db(), q))[0]!;

/** The claim as a process that died after committing leaves it: processing, its lease run out. */
async function abandon(key: string) {
  await db().execute(sql`update idempotency_keys set state = 'processing', response_status = null, response_body = null,
    locked_until = now() - interval '1 millisecond' where key = ${storedKey(t, key)}`);
}

test("a claim abandoned after the charge committed: the retry answers with that charge, authorizes nothing more", async () => {
  const key = randomUUID();
  const first = await post(t, m.sandboxKey, "/v1/charges", cardCharge(CARDS.visa), { "idempotency-key": key });
  expectStatus(first, 201);
  await abandon(key);
  const retry = await post(t, m.sandboxKey, "/v1/charges", cardCharge(CARDS.visa), { "idempotency-key": key });
  expectStatus(retry, 201);
  assert.deepEqual(retry.json(), first.json());
  const id = first.json().id as string;
  const counts = await one<{ charges: number; auths: number; state: string }>(sql`select
    (select count(*)::int from charges where merchant_id = ${m.id}) as charges,
    (select count(*)::int from sandbox_processor_records where key = ${`authorize:${id}`}) as auths,
    (select state from idempotency_keys where key = ${storedKey(t, key)}) as state`);
  assert.deepEqual(counts, { charges: 1, auths: 1, state: "done" });
});

test("racing retries of an abandoned claim: one takes it over, the other waits for its answer; one charge", async () => {
  const key = randomUUID();
  const first = await post(t, m.sandboxKey, "/v1/charges", cardCharge(CARDS.mastercard, { amount: 33 }), { "idempotency-key": key });
  expectStatus(first, 201);
  await abandon(key);
  const retries = await Promise.all(Array.from({ length: 8 }, () =>
    post(t, m.sandboxKey, "/v1/charges", cardCharge(CARDS.mastercard, { amount: 33 }), { "idempotency-key": key })));
  for (const r of retries) {
    expectStatus(r, 201);
    assert.equal(r.json().id, first.json().id);
  }
  const n = await one<{ n: number }>(sql`select count(*)::int as n from charges where id = ${first.json().id}`);
  assert.equal(n.n, 1);
});

test("a claim abandoned before anything committed: the retry charges once, under the id the processor already knows", async () => {
  const key = randomUUID();
  const body = cardCharge(CARDS.visa, { amount: 12 });
  // As if the first process died right after the claim: a processing row with a seed.
  const first = await post(t, m.sandboxKey, "/v1/charges", body, { "idempotency-key": key });
  expectStatus(first, 201);
  const id = first.json().id as string;
  await db().execute(sql`delete from charges where id = ${id}`);
  await db().execute(sql`delete from events where object_id = ${id}`);
  await abandon(key);
  // The processor has the authorization of that id (the dead process made it); the retry gets
  // the same answer back instead of a second authorization.
  const retry = await post(t, m.sandboxKey, "/v1/charges", body, { "idempotency-key": key });
  expectStatus(retry, 201);
  assert.equal(retry.json().id, id);
  const auths = await one<{ n: number }>(sql`select count(*)::int as n from sandbox_processor_records where key = ${`authorize:${id}`}`);
  assert.equal(auths.n, 1);
});

test("a claim held by a request in flight: a duplicate waits a bounded time, then 409 with what to do", async () => {
  const key = randomUUID();
  const body = cardCharge(CARDS.visa, { amount: 14 });
  expectStatus(await post(t, m.sandboxKey, "/v1/charges", body, { "idempotency-key": key }), 201);
  await db().execute(sql`update idempotency_keys set state = 'processing', response_body = null, locked_until = now() + interval '1 hour' where key = ${storedKey(t, key)}`);
  const res = await post(t, m.sandboxKey, "/v1/charges", body, { "idempotency-key": key });
  expectStatus(res, 409);
  assert.equal(res.json().code, "idempotency_in_progress");
  assert.match(res.json().message, /still being processed; retry in a few seconds with the same key and body/);
});

test("a 5xx keeps the key's seed: the retry with the same body creates under the same id", async () => {
  const key = randomUUID();
  const body = methodCharge({ type: "pix" }, { amount: 21 });
  expectStatus(await post(t, m.sandboxKey, "/v1/charges", body, { "idempotency-key": key }), 201);
  const seeded = await one<{ seed: string }>(sql`select seed from idempotency_keys where key = ${storedKey(t, key)}`);
  // What the 5xx branch leaves: the claim released, seed and body fingerprint kept.
  await db().execute(sql`update idempotency_keys set state = 'processing', response_body = null, locked_until = null where key = ${storedKey(t, key)}`);
  const retry = await post(t, m.sandboxKey, "/v1/charges", body, { "idempotency-key": key });
  expectStatus(retry, 201);
  const after = await one<{ seed: string }>(sql`select seed from idempotency_keys where key = ${storedKey(t, key)}`);
  assert.equal(after.seed, seeded.seed);
  const other = await post(t, m.sandboxKey, "/v1/charges", { ...body, amount: 22 }, { "idempotency-key": key });
  expectStatus(other, 422);
});

test("the sandbox processor answers a repeated authorization with its first result", async () => {
  const processor = createSandboxProcessor(memoryRecords());
  const input = {
    chargeId: "ch_same", amountMinor: 100, currency: "BRL", now: new Date(), publicBaseUrl: "http://localhost",
    merchant: { id: "m", name: "Loja", city: "SAO PAULO", pixKey: randomUUID() }, customer: null,
    instrument: { kind: "pix" as const, expiresIn: 3600, options: {} },
  };
  const a = await processor.authorize(input);
  const b = await processor.authorize(input);
  const c = await processor.authorize({ ...input, chargeId: "ch_other" });
  assert.equal(a.outcome, "pending");
  assert.deepEqual(b, a);
  assert.ok(b.outcome === "pending" && b.expiresAt instanceof Date);
  assert.notEqual((c as { pspRefId: string }).pspRefId, (a as { pspRefId: string }).pspRefId);
});

test("an unpaid Pix past its expiresAt fails as expired: charge.updated to the postback URL, charge.failed to endpoints", async () => {
  const endpoint = await post(t, m.sandboxKey, "/v1/webhook-endpoints", { url: receiver.url, events: ["charge.failed"] });
  expectStatus(endpoint, 201);
  const created = await post(t, m.sandboxKey, "/v1/charges", methodCharge({ type: "pix" }, { postbackUrl: `${receiver.url}/postback` }));
  expectStatus(created, 201);
  const id = created.json().id as string;
  assert.equal(await t.services.charges.expireUnpaid(), 0, "not expired yet");
  await db().execute(sql`update charges set expires_at = now() - interval '1 second' where id = ${id}`);
  assert.equal(await t.services.charges.expireUnpaid(), 1);
  assert.equal(await t.services.charges.expireUnpaid(), 0, "once");

  const got = (await get(t, m.sandboxKey, `/v1/charges/${id}`)).json();
  assert.equal(got.status, "failed");
  assert.equal(got.failureReason, "expired");
  const deliveries = await queryRows<{ type: string; kind: string; url: string }>(db(), sql`
    select e.type, d.kind, d.url from webhook_deliveries d join events e on e.id = d.event_id
    where e.object_id = ${id} and e.type in ('charge.updated', 'charge.failed') order by e.type`);
  assert.deepEqual(deliveries, [
    { type: "charge.failed", kind: "endpoint", url: `${receiver.url}/` },
    { type: "charge.updated", kind: "legacy", url: `${receiver.url}/postback` },
  ]);
  const failed = await one<{ data: Record<string, unknown> }>(sql`select data from events where object_id = ${id} and type = 'charge.failed'`);
  assert.equal(failed.data.failure_reason, "expired");
  assert.equal(failed.data.status, "failed");
  // Paying it now is too late.
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${id}/pay`), 409);
});
