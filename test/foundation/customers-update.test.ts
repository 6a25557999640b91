import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS } from "../helpers/charges.js";

// Issue 46 item 22: customers are updated (POST and PATCH /v1/customers/{id}, partial, checked as
// on create) and deleted (DELETE, refused while a charge or a subscription still needs them).
let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

type Method = "GET" | "POST" | "PATCH" | "DELETE";
const call = (method: Method, url: string, payload?: unknown, key = m.sandboxKey, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
  t.app.inject({ method, url, headers: { authorization: basic(key), ...headers }, payload: payload as never });

const valid = { name: "Maria Silva", email: "maria@example.com", documentId: "529.982.247-25", documentType: "cpf", phoneNumber: "+5511912345678" };

async function customer(body: Record<string, unknown> = {}, key = m.sandboxKey) {
  const res = await call("POST", "/v1/customers", { ...valid, ...body }, key);
  expectStatus(res, 201);
  return res.json() as { id: string; name: string; email: string; documentId: string; documentType: string; phoneNumber: string | null; updatedAt: string };
}

test("PATCH and POST change only the fields given, normalized as on create", async () => {
  const c = await customer();
  const patched = await call("PATCH", `/v1/customers/${c.id}`, { email: "Maria.Silva@Example.COM", phoneNumber: "+55 (11) 98765-4321" });
  expectStatus(patched, 200);
  const p = patched.json();
  assert.equal(p.email, "maria.silva@example.com");
  assert.equal(p.phoneNumber, "+5511987654321");
  assert.equal(p.name, "Maria Silva", "kept");
  assert.equal(p.documentId, "52998224725", "kept");
  assert.ok(Date.parse(p.updatedAt) >= Date.parse(c.updatedAt));

  const posted = await call("POST", `/v1/customers/${c.id}`, { name: "  Maria S. Souza ", documentType: "cnpj", documentId: "11.222.333/0001-81" });
  expectStatus(posted, 200);
  assert.equal(posted.json().name, "Maria S. Souza");
  assert.equal(posted.json().documentType, "cnpj");
  assert.equal(posted.json().documentId, "11222333000181");
  assert.equal(posted.json().email, "maria.silva@example.com", "kept");

  // null removes the phone; GET shows what the last update answered.
  const removed = await call("PATCH", `/v1/customers/${c.id}`, { phoneNumber: null });
  expectStatus(removed, 200);
  assert.equal(removed.json().phoneNumber, null);
  assert.deepEqual((await call("GET", `/v1/customers/${c.id}`)).json(), removed.json());
});

test("updates are checked as on create: 422 naming the field, nothing changed", async () => {
  const c = await customer();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ documentId: "529.982.247-24" }, /documentId/],
    // A new type is checked with the stored number: a CPF's digits are no CNPJ.
    [{ documentType: "cnpj" }, /documentId/],
    [{ email: "not-an-email" }, /email/],
    [{ name: "" }, /name/],
    [{ phoneNumber: "abc" }, /phoneNumber/],
    [{ unknownField: 1 }, /unknownField|additional/],
    [{}, /at least|properties|body/i],
  ];
  for (const [body, field] of cases) {
    for (const method of ["PATCH", "POST"] as const) {
      const res = await call(method, `/v1/customers/${c.id}`, body);
      expectStatus(res, 422);
      assert.match(res.json().message, field, `${method} ${JSON.stringify(body)}: ${res.body}`);
    }
  }
  const now = (await call("GET", `/v1/customers/${c.id}`)).json();
  assert.equal(now.documentId, "52998224725");
  assert.equal(now.email, "maria@example.com");
});

test("POST /v1/customers/{id} is idempotent as every POST: a repeat replays, another body under the key is 422", async () => {
  const c = await customer();
  const key = { "idempotency-key": `upd-${c.id}` };
  const first = await call("POST", `/v1/customers/${c.id}`, { name: "Ana" }, m.sandboxKey, key);
  expectStatus(first, 200);
  // Changed meanwhile: the replay still answers the first result, and changes nothing.
  expectStatus(await call("PATCH", `/v1/customers/${c.id}`, { name: "Bia" }), 200);
  const again = await call("POST", `/v1/customers/${c.id}`, { name: "Ana" }, m.sandboxKey, key);
  expectStatus(again, 200);
  assert.deepEqual(again.json(), first.json());
  assert.equal((await call("GET", `/v1/customers/${c.id}`)).json().name, "Bia");
  expectStatus(await call("POST", `/v1/customers/${c.id}`, { name: "Carla" }, m.sandboxKey, key), 422);
});

test("tenancy: another merchant's or environment's customer is 404 to update and delete, and unchanged", async () => {
  const owner = await seedMerchant(t);
  const c = await customer({}, owner.sandboxKey);
  for (const key of [m.sandboxKey, owner.productionKey]) {
    expectStatus(await call("PATCH", `/v1/customers/${c.id}`, { name: "X" }, key), 404);
    expectStatus(await call("POST", `/v1/customers/${c.id}`, { name: "X" }, key), 404);
    expectStatus(await call("DELETE", `/v1/customers/${c.id}`, undefined, key), 404);
  }
  const still = await call("GET", `/v1/customers/${c.id}`, undefined, owner.sandboxKey);
  expectStatus(still, 200);
  assert.equal(still.json().name, "Maria Silva");
  expectStatus(await call("PATCH", "/v1/customers/cus_unknown", { name: "X" }), 404);
  expectStatus(await call("DELETE", "/v1/customers/cus_unknown"), 404);
});

test("delete: 409 while a charge awaits payment or a subscription may bill, then {id, deleted} and gone", async () => {
  const c = await customer({ email: "del@example.com" });
  // A paid card charge and a Pix awaiting payment.
  const paid = await call("POST", "/v1/charges", {
    amount: 10, currency: "BRL", customer: { id: c.id },
    paymentMethod: { type: "credit_card", number: CARDS.visa, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123", installments: 1 },
  });
  expectStatus(paid, 201);
  const pix = await call("POST", "/v1/charges", { amount: 10, currency: "BRL", customer: { id: c.id }, paymentMethod: { type: "pix" } });
  expectStatus(pix, 201);
  let refused = await call("DELETE", `/v1/customers/${c.id}`);
  expectStatus(refused, 409);
  assert.match(refused.json().message, new RegExp(`awaiting payment \\(${pix.json().id}\\)`));
  expectStatus(await call("POST", `/v1/sandbox/charges/${pix.json().id}/pay`), 200);

  // A subscription on a saved card: its card is in use until the subscription ends.
  const card = await call("POST", `/v1/customers/${c.id}/cards`, { number: CARDS.visa, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2035" });
  expectStatus(card, 201);
  const plan = await call("POST", "/v1/plans", { name: "Monthly", price: 9.9, currency: "BRL", interval: "month" });
  expectStatus(plan, 201);
  const sub = await call("POST", "/v1/subscriptions", { planId: plan.json().id, customer: { id: c.id }, paymentMethod: { type: "credit_card", cardId: card.json().id } });
  expectStatus(sub, 201);
  refused = await call("DELETE", `/v1/customers/${c.id}`);
  expectStatus(refused, 409);
  assert.match(refused.json().message, new RegExp(`subscriptions that may still bill it \\(${sub.json().id}\\)`));
  expectStatus(await call("POST", `/v1/subscriptions/${sub.json().id}/cancel`, {}), 200);

  const deleted = await call("DELETE", `/v1/customers/${c.id}`);
  expectStatus(deleted, 200);
  assert.deepEqual(deleted.json(), { id: c.id, deleted: true });

  // Gone from every lookup; its cards with it; a second delete finds nothing.
  expectStatus(await call("GET", `/v1/customers/${c.id}`), 404);
  expectStatus(await call("PATCH", `/v1/customers/${c.id}`, { name: "X" }), 404);
  expectStatus(await call("GET", `/v1/customers/${c.id}/cards`), 404);
  expectStatus(await call("DELETE", `/v1/customers/${c.id}`), 404);
  const listed = await call("GET", "/v1/customers?email=del@example.com");
  assert.deepEqual(listed.json().data, []);
  const byCard = await call("POST", "/v1/charges", { amount: 10, currency: "BRL", customer: { name: "Maria Silva", email: "other@example.com" }, paymentMethod: { type: "credit_card", cardId: card.json().id, installments: 1 } });
  expectStatus(byCard, 404);
  expectStatus(await call("POST", "/v1/charges", { amount: 10, currency: "BRL", customer: { id: c.id }, paymentMethod: { type: "pix" } }), 404);

  // A new charge with its e-mail makes a new customer; its past charges still show it and refund.
  const inline = await call("POST", "/v1/charges", { amount: 10, currency: "BRL", customer: { name: "Maria Silva", email: "del@example.com" }, paymentMethod: { type: "pix" } });
  expectStatus(inline, 201);
  assert.notEqual(inline.json().customerId, c.id);
  const old = await call("GET", `/v1/charges/${paid.json().id}`);
  expectStatus(old, 200);
  assert.equal(old.json().customerId, c.id);
  expectStatus(await call("POST", `/v1/charges/${paid.json().id}/refund`, {}), 201);
});
