import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { queryRows, sql } from "../../src/db/client.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, get, methodCharge, post } from "../helpers/charges.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

// POST /v1/sandbox/charges/{id}/expire: what the expiry janitor does to an unpaid charge past
// its expiresAt, on request (feira trigger charge.failed relies on it).

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

const expire = (key: string, id: string) => post(t, key, `/v1/sandbox/charges/${id}/expire`);

test("a pending Pix expires now: failed with failureReason expired, charge.failed to endpoints and charge.updated to the postback URL", async () => {
  expectStatus(await post(t, m.sandboxKey, "/v1/webhook-endpoints", { url: receiver.url, events: ["charge.failed"] }), 201);
  const c = await createCharge(t, m.sandboxKey, methodCharge({ type: "pix" }, { postbackUrl: `${receiver.url}/postback` }));
  assert.equal(c.status, "pending");

  const res = await expire(m.sandboxKey, c.id);
  expectStatus(res, 200);
  assert.equal(res.json().status, "failed");
  assert.equal(res.json().failureReason, "expired");
  assert.equal(res.json().reason, "expired");
  assert.equal((await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json().status, "failed");

  const events = await queryRows<{ type: string; kind: string; reason: string }>(t.database.db, sql`
    select e.type, d.kind, e.data->>'failure_reason' as reason from webhook_deliveries d join events e on e.id = d.event_id
    where e.object_id = ${c.id} and e.type in ('charge.updated', 'charge.failed') order by e.type`);
  assert.deepEqual(events.map(({ type, kind }) => ({ type, kind })), [
    { type: "charge.failed", kind: "endpoint" },
    { type: "charge.updated", kind: "legacy" },
  ]);
  assert.equal(events[0]!.reason, "expired");

  // Once: a failed charge neither expires again nor gets paid.
  expectStatus(await expire(m.sandboxKey, c.id), 409);
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`), 409);
});

test("only pending payer-paid charges expire: paid and card charges are 409 invalid_state", async () => {
  const pix = await createCharge(t, m.sandboxKey, methodCharge({ type: "pix" }));
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${pix.id}/pay`), 200);
  const paid = await expire(m.sandboxKey, pix.id);
  expectStatus(paid, 409);
  assert.equal(paid.json().code, "invalid_state");
  assert.match(paid.json().message, /is paid/);

  const card = await createCharge(t, m.sandboxKey, cardCharge(CARDS.threeDS, {}, { threeDSMode: "managed" }));
  const refused = await expire(m.sandboxKey, card.id);
  expectStatus(refused, 409);
  assert.equal(refused.json().code, "invalid_state");
  assert.equal((await get(t, m.sandboxKey, `/v1/charges/${card.id}`)).json().status, card.status);
});

test("sandbox keys only, and only the merchant's own charges", async () => {
  const c = await createCharge(t, m.sandboxKey, methodCharge({ type: "boleto" }));
  expectStatus(await expire(m.productionKey, c.id), 403);
  const other = await seedMerchant(t);
  expectStatus(await expire(other.sandboxKey, c.id), 404);
  expectStatus(await t.app.inject({ method: "POST", url: `/v1/sandbox/charges/${c.id}/expire` }), 401);
  assert.equal((await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json().status, "pending");
  expectStatus(await expire(m.sandboxKey, c.id), 200);
});
