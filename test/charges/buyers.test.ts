import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, get, post } from "../helpers/charges.js";
import { signIn, type PanelClient } from "../panel/panel-client.js";

// Buyers are who they typed (CONTRACT.md section 8): an inline customer is found again by e-mail
// (any case), or by phone when there is no e-mail, never by document alone; the charge keeps the
// name and e-mail typed for it, in its events and in the panel.

let t: TestApp;
let m: SeededMerchant;
let panel: PanelClient;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  panel = await signIn(t, m.email, m.password);
});
after(async () => { await t?.close(); });

// Unique per run in base 36 (a run of decimal digits could pass Luhn: card_number_in_text).
const run = Date.now().toString(36);
const CPF = "529.982.247-25";

async function charge(customer: Record<string, unknown>, key = m.sandboxKey) {
  const res = await post(t, key, "/v1/charges", cardCharge(CARDS.visa, { customer }));
  expectStatus(res, 201);
  return (await get(t, key, `/v1/charges/${res.json().id}`)).json() as { id: string; customerId: string };
}

const customerOf = async (id: string) => (await get(t, m.sandboxKey, `/v1/customers/${id}`)).json() as { name: string; email: string | null; phoneNumber: string | null };

/** The `customer` of the charge's charge.created event, as a webhook receiver gets it. */
async function eventCustomer(chargeId: string) {
  const events = (await get(t, m.sandboxKey, "/v1/events?type=charge.created&limit=100")).json().data as { objectId: string; data: { customer: { id: string; name: string; email: string | null } } }[];
  const created = events.find((e) => e.objectId === chargeId);
  assert.ok(created, `charge.created of ${chargeId}`);
  return created.data.customer;
}

test("a checkout buyer with a new name and e-mail and a CPF on file is a new customer; the charge shows what was typed", async () => {
  const known = await post(t, m.sandboxKey, "/v1/customers", { name: "Maria Silva", email: `maria-${run}@example.com`, documentType: "cpf", documentId: CPF });
  expectStatus(known, 201);
  const link = await post(t, m.sandboxKey, "/v1/payment-links", {
    title: "Caneca", currency: "BRL", freightMode: "pickup", products: [{ title: "Caneca azul", unitPrice: 59.9, quantity: 1, physical: false }],
  });
  expectStatus(link, 201);
  const typed = { name: "João Souza", email: `joao-${run}@example.com`, document: { type: "cpf", id: CPF } };
  const paid = await t.app.inject({ method: "POST", url: `/v1/payment-links/${link.json().id}/charge`, payload: { customer: typed, paymentMethod: { type: "pix" } } });
  expectStatus(paid, 201);
  const c = (await get(t, m.sandboxKey, `/v1/charges/${paid.json().id}`)).json();
  assert.notEqual(c.customerId, known.json().id, "a document alone does not file the buyer under another customer");
  const made = await customerOf(c.customerId);
  assert.deepEqual([made.name, made.email], [typed.name, typed.email]);
  assert.deepEqual(await customerOf(known.json().id).then((k) => [k.name, k.email]), ["Maria Silva", `maria-${run}@example.com`], "the known customer is untouched");
  const shown = await eventCustomer(c.id);
  assert.deepEqual([shown.id, shown.name, shown.email], [c.customerId, typed.name, typed.email]);
  // The API's own charge: the same rule.
  const api = await charge({ name: "Pedro Lima", email: `pedro-${run}@example.com`, document: { type: "cpf", id: CPF } });
  assert.ok(![known.json().id, c.customerId].includes(api.customerId), "a new e-mail is a new customer");
});

test("the same e-mail in another case is the same customer; a charge typed under another name shows that name", async () => {
  const first = await charge({ name: "Joana Lima", email: `Joana.Lima-${run}@Example.COM` });
  const again = await charge({ name: "Joana L. Santos", email: `joana.lima-${run}@example.com` });
  assert.equal(again.customerId, first.customerId);
  assert.equal((await customerOf(first.customerId)).name, "Joana Lima", "the customer keeps the name it was saved with");
  assert.equal((await eventCustomer(first.id)).name, "Joana Lima");
  const shown = await eventCustomer(again.id);
  assert.deepEqual([shown.id, shown.name, shown.email], [first.customerId, "Joana L. Santos", `joana.lima-${run}@example.com`]);
  const page = await panel.get(`/panel/charges/${again.id}`);
  assert.equal(page.statusCode, 200, page.body.slice(0, 500));
  assert.match(page.body, /Joana L\. Santos/, "the panel shows the name typed for this charge");
  // Tenancy: another merchant's buyer with that e-mail is its own customer.
  const other = await seedMerchant(t);
  assert.notEqual((await charge({ name: "Joana Lima", email: `joana.lima-${run}@example.com` }, other.sandboxKey)).customerId, first.customerId);
});

test("a buyer with no e-mail is found again by phone, however it is spaced; never by the document alone", async () => {
  const phone = "+55 (11) 91234-5678";
  const first = await charge({ name: "Sem Email", phone, document: { type: "cpf", id: CPF } });
  const again = await charge({ name: "Sem Email", phone: "+5511912345678" });
  assert.equal(again.customerId, first.customerId);
  assert.equal((await customerOf(first.customerId)).phoneNumber, "+5511912345678", "stored as its digits");
  const other = await charge({ name: "Outro Telefone", phone: "+55 11 91234-5679", document: { type: "cpf", id: CPF } });
  assert.notEqual(other.customerId, first.customerId, "another phone with the same CPF is another buyer");
});

test("the panel's search by e-mail lists the charges of every customer with that e-mail", async () => {
  const email = `shared-${run}@example.com`;
  const ids: string[] = [];
  for (const name of ["Ana Mãe", "Ana Filha"]) {
    const made = await post(t, m.sandboxKey, "/v1/customers", { name, email, documentType: "cpf", documentId: CPF });
    expectStatus(made, 201);
    ids.push((await charge({ id: made.json().id })).id);
  }
  const res = await panel.get(`/panel/charges?q=${encodeURIComponent(email.toUpperCase())}`);
  assert.equal(res.statusCode, 200, res.body.slice(0, 500));
  for (const id of ids) assert.ok(res.body.includes(id), `${id} is listed`);
  const csv = await panel.get(`/panel/charges.csv?q=${encodeURIComponent(email)}`);
  assert.equal(csv.body.trim().split("\r\n").length, 3, csv.body);
  const none = await panel.get(`/panel/charges?q=${encodeURIComponent(`nobody-${run}@example.com`)}`);
  assert.ok(!ids.some((id) => none.body.includes(id)));
});
