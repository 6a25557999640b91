import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import type { RequestCtx } from "../../src/core/context.js";
import { createSealer } from "../../src/lib/crypto.js";
import type { CardModule } from "../../src/modules/cards/cards.module.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";

const ENCRYPTION_KEY = randomBytes(32).toString("base64");
const PAN = "4111111111111111";

let t: TestApp;
let cards: CardModule;
let a: SeededMerchant;
let b: SeededMerchant;

before(async () => {
  t = await buildTestApp({ encryptionKey: ENCRYPTION_KEY });
  cards = t.services.cards;
  a = await seedMerchant(t);
  b = await seedMerchant(t);
});
after(async () => { await t.close(); });

const auth = (key: string) => ({ authorization: basic(key) });

async function createCustomer(key: string): Promise<string> {
  const res = await t.app.inject({
    method: "POST", url: "/v1/customers", headers: auth(key),
    payload: { name: "Maria Silva", email: `maria-${randomBytes(3).toString("hex")}@example.com`, documentId: "529.982.247-25", documentType: "cpf" },
  });
  expectStatus(res, 201);
  return res.json().id;
}

const cardBody = (over: Record<string, unknown> = {}) => ({
  number: PAN, holderName: "MARIA SILVA", expirationMonth: "7", expirationYear: "2031", ...over,
});

async function saveCard(key: string, customerId: string, over: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: "POST", url: `/v1/customers/${customerId}/cards`, headers: { ...auth(key), ...headers }, payload: cardBody(over),
  });
}

const ctxOf = (m: SeededMerchant, environment: "sandbox" | "production" = "sandbox"): RequestCtx =>
  ({ merchantId: m.id, environment, actor: { type: "api_key", id: "key_test" }, requestId: "req_test" });

test("saving a card answers 201 with the safe fields only", async () => {
  const customerId = await createCustomer(a.sandboxKey);
  const res = await saveCard(a.sandboxKey, customerId, { number: "4111 1111 1111 1111" });
  expectStatus(res, 201);
  const body = res.json();
  assert.match(body.id, /^card_[0-9a-z]{26}$/);
  assert.deepEqual({ ...body, id: undefined, createdAt: undefined }, {
    id: undefined, createdAt: undefined, customerId, brand: "visa", firstSix: "411111", lastFour: "1111",
    expirationMonth: "07", expirationYear: "2031", holderName: "MARIA SILVA",
  });
  assert.ok(!Number.isNaN(Date.parse(body.createdAt)));
  assert.ok(!res.body.includes(PAN), res.body);
  assert.ok(!("number" in body) && !("cvv" in body) && !("numberSealed" in body));
});

test("the number is stored only sealed, and appears in no row of any table", async () => {
  const customerId = await createCustomer(a.sandboxKey);
  // With an Idempotency-Key, so the saved response and request hash are checked too.
  const res = await saveCard(a.sandboxKey, customerId, { number: "5555555555554444" }, { "idempotency-key": "vault-1" });
  expectStatus(res, 201);
  const [row] = await queryRows<Record<string, unknown>>(t.database.db, sql`select * from cards where id = ${res.json().id}`);
  assert.ok(row);
  for (const [column, value] of Object.entries(row)) {
    if (column === "number_sealed") continue;
    assert.ok(!String(value).includes("5555555555554444"), `${column} holds the number`);
  }
  const sealed = String(row.number_sealed);
  assert.match(sealed, /^v1:/);
  assert.ok(!sealed.includes("5555555555554444") && !sealed.includes("555555") && !sealed.includes("4444"));
  const sealer = createSealer(ENCRYPTION_KEY);
  assert.equal(sealer.open(sealed, `card:${a.id}`), "5555555555554444");
  assert.throws(() => sealer.open(sealed, `card:${b.id}`), "sealed for one merchant only");

  const tables = await queryRows<{ tablename: string }>(t.database.db, sql`select tablename from pg_tables where schemaname = 'public'`);
  assert.ok(tables.length > 5);
  for (const { tablename } of tables) {
    const rows = await queryRows<{ j: string }>(t.database.db, sql.raw(`select row_to_json(x)::text as j from "${tablename}" x`));
    for (const { j } of rows) {
      assert.ok(!j.includes("5555555555554444"), `${tablename} holds the number: ${j.slice(0, 200)}`);
    }
  }
});

test("an Idempotency-Key replay saves the card once", async () => {
  const customerId = await createCustomer(a.sandboxKey);
  const first = await saveCard(a.sandboxKey, customerId, {}, { "idempotency-key": "vault-2" });
  const again = await saveCard(a.sandboxKey, customerId, {}, { "idempotency-key": "vault-2" });
  expectStatus(first, 201);
  expectStatus(again, 201);
  assert.equal(again.json().id, first.json().id);
  const list = await t.app.inject({ url: `/v1/customers/${customerId}/cards`, headers: auth(a.sandboxKey) });
  assert.equal(list.json().data.length, 1);
});

test("invalid cards are 422 naming the field, never echoing the number", async () => {
  const customerId = await createCustomer(a.sandboxKey);
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ number: "4111111111111112" }, /^number is not a valid card number$/],
    [{ number: "41111111" }, /^number must have 13 to 19 digits$/],
    [{ number: 4111111111111111 }, /^number must be string$/],
    [{ expirationMonth: "13" }, /^expirationMonth /],
    [{ expirationYear: "2020" }, /^expirationYear: card has expired$/],
    [{ holderName: "   " }, /^holderName must not be blank$/],
    [{ cvv: "123" }, /^cvv is not a recognized field$/],
    [{ holderName: undefined }, /^holderName is required$/],
  ];
  for (const [over, message] of cases) {
    const res = await saveCard(a.sandboxKey, customerId, over);
    expectStatus(res, 422);
    assert.match(res.json().message, message, JSON.stringify(over));
    assert.ok(!res.body.includes("4111111111111112") && !res.body.includes("41111111"), res.body);
  }
  const list = await t.app.inject({ url: `/v1/customers/${customerId}/cards`, headers: auth(a.sandboxKey) });
  assert.deepEqual(list.json(), { data: [], hasMore: false }, "a failed request saves nothing");
});

test("list, get and delete", async () => {
  const customerId = await createCustomer(a.sandboxKey);
  const visa = (await saveCard(a.sandboxKey, customerId)).json();
  const amex = (await saveCard(a.sandboxKey, customerId, { number: "378282246310005", holderName: "JOAO" })).json();
  assert.equal(amex.brand, "amex");

  const list = await t.app.inject({ url: `/v1/customers/${customerId}/cards`, headers: auth(a.sandboxKey) });
  expectStatus(list, 200);
  assert.deepEqual(list.json().data.map((c: { id: string }) => c.id), [amex.id, visa.id], "newest first");
  assert.equal(list.json().hasMore, false);
  assert.ok(!list.body.includes(PAN) && !list.body.includes("378282246310005"));

  const got = await t.app.inject({ url: `/v1/customers/${customerId}/cards/${visa.id}`, headers: auth(a.sandboxKey) });
  expectStatus(got, 200);
  assert.deepEqual(got.json(), visa);

  const del = await t.app.inject({ method: "DELETE", url: `/v1/customers/${customerId}/cards/${visa.id}`, headers: auth(a.sandboxKey) });
  expectStatus(del, 204);
  assert.equal(del.body, "");
  const gone = await t.app.inject({ url: `/v1/customers/${customerId}/cards/${visa.id}`, headers: auth(a.sandboxKey) });
  expectStatus(gone, 404);
  assert.equal(gone.json().message, `Card ${visa.id} not found`);
  const again = await t.app.inject({ method: "DELETE", url: `/v1/customers/${customerId}/cards/${visa.id}`, headers: auth(a.sandboxKey) });
  expectStatus(again, 404);
  const [{ n }] = (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from cards where id = ${visa.id}`)) as [{ n: number }];
  assert.equal(n, 0, "the sealed number is deleted with the card");

  // A card is reached only under its own customer.
  const otherCustomer = await createCustomer(a.sandboxKey);
  const wrongOwner = await t.app.inject({ url: `/v1/customers/${otherCustomer}/cards/${amex.id}`, headers: auth(a.sandboxKey) });
  expectStatus(wrongOwner, 404);
});

test("another merchant, or the production key, gets 404 for the customer and its cards", async () => {
  const customerId = await createCustomer(a.sandboxKey);
  const card = (await saveCard(a.sandboxKey, customerId)).json();
  const bCustomer = await createCustomer(b.sandboxKey);

  for (const key of [b.sandboxKey, a.productionKey]) {
    const create = await saveCard(key, customerId);
    expectStatus(create, 404);
    assert.equal(create.json().message, `Customer ${customerId} not found`);
    for (const url of [`/v1/customers/${customerId}/cards`, `/v1/customers/${customerId}/cards/${card.id}`]) {
      const res = await t.app.inject({ url, headers: auth(key) });
      expectStatus(res, 404);
      assert.ok(!res.body.includes("411111") && !res.body.includes("MARIA"), res.body);
    }
    const del = await t.app.inject({ method: "DELETE", url: `/v1/customers/${customerId}/cards/${card.id}`, headers: auth(key) });
    expectStatus(del, 404);
  }
  // Merchant B's own customer with merchant A's card id.
  const cross = await t.app.inject({ url: `/v1/customers/${bCustomer}/cards/${card.id}`, headers: auth(b.sandboxKey) });
  expectStatus(cross, 404);
  const crossDelete = await t.app.inject({ method: "DELETE", url: `/v1/customers/${bCustomer}/cards/${card.id}`, headers: auth(b.sandboxKey) });
  expectStatus(crossDelete, 404);

  const still = await t.app.inject({ url: `/v1/customers/${customerId}/cards/${card.id}`, headers: auth(a.sandboxKey) });
  expectStatus(still, 200);
});

test("every route needs a key", async () => {
  const customerId = await createCustomer(a.sandboxKey);
  const card = (await saveCard(a.sandboxKey, customerId)).json();
  for (const [method, url] of [
    ["POST", `/v1/customers/${customerId}/cards`],
    ["GET", `/v1/customers/${customerId}/cards`],
    ["GET", `/v1/customers/${customerId}/cards/${card.id}`],
    ["DELETE", `/v1/customers/${customerId}/cards/${card.id}`],
  ] as const) {
    const res = await t.app.inject({ method, url, payload: method === "POST" ? cardBody() : undefined });
    expectStatus(res, 401);
  }
});

test("cardForCharge opens the number for its own merchant and customer only", async () => {
  const customerId = await createCustomer(a.sandboxKey);
  const card = (await saveCard(a.sandboxKey, customerId, { number: "4000000000000002" })).json();
  const opened = await cards.service.cardForCharge(ctxOf(a), card.id);
  assert.deepEqual(opened, {
    id: card.id, customerId, number: "4000000000000002", brand: "visa", firstSix: "400000", lastFour: "0002",
    holderName: "MARIA SILVA", expirationMonth: "07", expirationYear: "2031",
  });
  assert.equal((await cards.service.cardForCharge(ctxOf(a), card.id, customerId)).number, "4000000000000002");
  const notFound = { statusCode: 404, message: `Card ${card.id} not found` };
  await assert.rejects(cards.service.cardForCharge(ctxOf(b), card.id), notFound);
  await assert.rejects(cards.service.cardForCharge(ctxOf(a, "production"), card.id), notFound);
  await assert.rejects(cards.service.cardForCharge(ctxOf(a), card.id, "cus_someoneelse"), notFound);
});

test("the OpenAPI document has the cards routes, tagged, without a number in any response", async () => {
  const res = await t.app.inject({ url: "/openapi.json" });
  expectStatus(res, 200);
  const doc = res.json();
  const ops = [
    doc.paths["/v1/customers/{id}/cards"].post, doc.paths["/v1/customers/{id}/cards"].get,
    doc.paths["/v1/customers/{id}/cards/{cardId}"].get, doc.paths["/v1/customers/{id}/cards/{cardId}"].delete,
  ];
  assert.deepEqual(ops.map((o) => o.operationId), ["createCard", "listCards", "getCard", "deleteCard"]);
  for (const op of ops) {
    assert.deepEqual(op.tags, ["cards"]);
    assert.ok(op.summary);
    const responses = JSON.stringify(op.responses);
    assert.ok(!/"(number|cvv|numberSealed)"/.test(responses), responses);
  }
});
