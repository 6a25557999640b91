import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

const sandbox = (merchant = m) => ({ authorization: basic(merchant.sandboxKey) });
const valid = { name: "Maria Silva", email: "maria@example.com", documentId: "529.982.247-25", documentType: "cpf", phoneNumber: "+5511912345678" };

async function create(merchant: SeededMerchant, body: Record<string, unknown>, key = merchant.sandboxKey): Promise<string> {
  const res = await t.app.inject({ method: "POST", url: "/v1/customers", headers: { authorization: basic(key) }, payload: body });
  expectStatus(res, 201);
  return res.json().id;
}

async function list(merchant: SeededMerchant, query = "") {
  const res = await t.app.inject({ url: `/v1/customers${query}`, headers: sandbox(merchant) });
  expectStatus(res, 200);
  return res.json() as { data: { id: string; email: string; documentId: string }[]; hasMore: boolean };
}

test("create answers 201 with the stored customer; GET returns the same, normalized", async () => {
  const res = await t.app.inject({ method: "POST", url: "/v1/customers", headers: sandbox(), payload: { ...valid, email: "Maria@Example.COM" } });
  expectStatus(res, 201);
  const id = res.json().id as string;
  assert.match(id, /^cus_[0-9a-z]{26}$/);

  const got = await t.app.inject({ url: `/v1/customers/${id}`, headers: sandbox() });
  expectStatus(got, 200);
  const c = got.json();
  assert.equal(c.id, id);
  assert.equal(c.name, "Maria Silva");
  assert.equal(c.email, "maria@example.com", "lower-cased");
  assert.equal(c.documentType, "cpf");
  assert.equal(c.documentId, "52998224725", "stored without punctuation");
  assert.equal(c.phoneNumber, "+5511912345678");
  assert.ok(!Number.isNaN(Date.parse(c.createdAt)));
  assert.ok(!Number.isNaN(Date.parse(c.updatedAt)));
  assert.deepEqual(Object.keys(c).sort(), ["createdAt", "documentId", "documentType", "email", "id", "name", "phoneNumber", "updatedAt"]);
  // Issue 46 item 22: the create answered {id} alone, and a client had to read the customer back.
  assert.deepEqual(res.json(), c, "the create's answer is the customer as GET shows it");
});

test("CNPJ (masked or not, numeric or alphanumeric), passport and RG are accepted and normalized", async () => {
  const cases = [
    { documentType: "cnpj", documentId: "11.222.333/0001-81", stored: "11222333000181" },
    { documentType: "cnpj", documentId: "12ABC34501DE35", stored: "12ABC34501DE35" },
    { documentType: "passport", documentId: "ab123456", stored: "AB123456" },
    { documentType: "rg", documentId: "12.345.678-x", stored: "12345678X" },
  ];
  for (const c of cases) {
    const id = await create(m, { ...valid, documentType: c.documentType, documentId: c.documentId });
    const got = await t.app.inject({ url: `/v1/customers/${id}`, headers: sandbox() });
    expectStatus(got, 200);
    assert.equal(got.json().documentId, c.stored, c.documentId);
  }
});

test("validation failures are 422 and name the field", async () => {
  const { name: _name, ...noName } = valid;
  const cases: [Record<string, unknown>, RegExp][] = [
    [noName, /^name is required$/],
    [{ ...valid, name: 42 }, /^name must be string$/],
    [{ ...valid, name: "" }, /^name /],
    [{ ...valid, email: "not-an-email" }, /^email must match format "email"$/],
    [{ ...valid, email: undefined }, /^email is required$/],
    [{ ...valid, documentId: "529.982.247-24" }, /^documentId is not a valid CPF$/],
    [{ ...valid, documentId: "111.111.111-11" }, /^documentId is not a valid CPF$/],
    [{ ...valid, documentType: "cnpj", documentId: "11.222.333/0001-80" }, /^documentId is not a valid CNPJ$/],
    [{ ...valid, documentType: "cnpj", documentId: "52998224725" }, /^documentId is not a valid CNPJ$/],
    [{ ...valid, documentType: "ssn" }, /^documentType /],
    [{ ...valid, phoneNumber: "call me" }, /^phoneNumber /],
    [{ ...valid, nickname: "Mari" }, /^nickname is not a recognized field$/],
    [{ ...valid, documentId: 52998224725 }, /^documentId must be string$/],
  ];
  for (const [payload, message] of cases) {
    const res = await t.app.inject({ method: "POST", url: "/v1/customers", headers: sandbox(), payload });
    expectStatus(res, 422);
    assert.equal(res.json().code, "validation_failed");
    assert.match(res.json().message, message, JSON.stringify(payload));
  }
});

test("GET of an unknown id is 404; an over-long id is 422", async () => {
  const res = await t.app.inject({ url: "/v1/customers/cus_00000000000000000000000000", headers: sandbox() });
  expectStatus(res, 404);
  assert.match(res.json().message, /Customer cus_0+ not found/);
  const long = await t.app.inject({ url: `/v1/customers/cus_${"x".repeat(80)}`, headers: sandbox() });
  expectStatus(long, 422);
  assert.match(long.json().message, /^params\.id /);
});

test("tenancy: another merchant's or the production environment's customer is 404 and never listed", async () => {
  const owner = await seedMerchant(t);
  const stranger = await seedMerchant(t);
  const id = await create(owner, { ...valid, email: "tenant@example.com" });

  for (const key of [stranger.sandboxKey, stranger.productionKey, owner.productionKey]) {
    const res = await t.app.inject({ url: `/v1/customers/${id}`, headers: { authorization: basic(key) } });
    expectStatus(res, 404);
    assert.doesNotMatch(res.body, /tenant@example\.com/);
    const listed = await t.app.inject({ url: "/v1/customers?email=tenant@example.com", headers: { authorization: basic(key) } });
    expectStatus(listed, 200);
    assert.deepEqual(listed.json().data, []);
  }
  expectStatus(await t.app.inject({ url: `/v1/customers/${id}`, headers: sandbox(owner) }), 200);

  // A production customer is likewise invisible to the sandbox key.
  const live = await create(owner, { ...valid, email: "live@example.com" }, owner.productionKey);
  expectStatus(await t.app.inject({ url: `/v1/customers/${live}`, headers: sandbox(owner) }), 404);
  expectStatus(await t.app.inject({ url: `/v1/customers/${live}`, headers: { authorization: basic(owner.productionKey) } }), 200);
  assert.deepEqual((await list(owner)).data.map((c) => c.id), [id]);
});

test("list: newest first, limit, startingAfter, endingBefore, hasMore", async () => {
  const owner = await seedMerchant(t);
  const created: string[] = [];
  for (let i = 0; i < 7; i++) created.push(await create(owner, { ...valid, email: `page${i}@example.com` }));

  const all = await list(owner, "?limit=100");
  assert.equal(all.hasMore, false);
  const ids = all.data.map((c) => c.id);
  assert.deepEqual([...ids].sort(), [...created].sort(), "every customer, once");
  assert.deepEqual(ids, [...ids].sort().reverse(), "ordered by id, newest first");

  assert.equal((await list(owner)).data.length, 7, "default limit 10");

  const p1 = await list(owner, "?limit=3");
  assert.deepEqual(p1.data.map((c) => c.id), ids.slice(0, 3));
  assert.equal(p1.hasMore, true);
  const p2 = await list(owner, `?limit=3&startingAfter=${ids[2]}`);
  assert.deepEqual(p2.data.map((c) => c.id), ids.slice(3, 6));
  assert.equal(p2.hasMore, true);
  const p3 = await list(owner, `?limit=3&startingAfter=${ids[5]}`);
  assert.deepEqual(p3.data.map((c) => c.id), ids.slice(6));
  assert.equal(p3.hasMore, false);

  // Backwards: the page just newer than the cursor, still newest first.
  const back = await list(owner, `?limit=2&endingBefore=${ids[5]}`);
  assert.deepEqual(back.data.map((c) => c.id), ids.slice(3, 5));
  assert.equal(back.hasMore, true, "newer ones remain");
  const first = await list(owner, `?limit=3&endingBefore=${ids[3]}`);
  assert.deepEqual(first.data.map((c) => c.id), ids.slice(0, 3));
  assert.equal(first.hasMore, false);

  const exact = await list(owner, "?limit=7");
  assert.equal(exact.data.length, 7);
  assert.equal(exact.hasMore, false, "no phantom page when the count equals the limit");
});

test("list: filters by email (case-insensitive), documentId and creation time", async () => {
  const owner = await seedMerchant(t);
  const a = await create(owner, { ...valid, email: "filter-a@example.com", documentId: "529.982.247-25" });
  const b = await create(owner, { ...valid, email: "filter-b@example.com", documentType: "cnpj", documentId: "11.222.333/0001-81" });

  assert.deepEqual((await list(owner, "?email=FILTER-A@example.com")).data.map((c) => c.id), [a]);
  assert.deepEqual((await list(owner, "?documentId=11222333000181")).data.map((c) => c.id), [b]);
  assert.deepEqual((await list(owner, "?documentId=52998224725&email=filter-a@example.com")).data.map((c) => c.id), [a]);
  assert.deepEqual((await list(owner, "?email=nobody@example.com")).data, []);

  const future = new Date(Date.now() + 3_600_000).toISOString();
  const past = new Date(Date.now() - 3_600_000).toISOString();
  assert.deepEqual((await list(owner, `?createdGte=${encodeURIComponent(future)}`)).data, []);
  assert.equal((await list(owner, `?createdGte=${encodeURIComponent(past)}`)).data.length, 2);
  assert.deepEqual((await list(owner, `?createdLte=${encodeURIComponent(past)}`)).data, []);
});

test("list: bad query parameters are 422 naming the parameter", async () => {
  const cases: [string, RegExp][] = [
    ["?limit=0", /^querystring\.limit must be >= 1$/],
    ["?limit=101", /^querystring\.limit must be <= 100$/],
    ["?limit=ten", /^querystring\.limit must be integer$/],
    ["?createdGte=yesterday", /^querystring\.createdGte must match format "date-time"$/],
    ["?color=blue", /^querystring\.color is not a recognized field$/],
  ];
  for (const [query, message] of cases) {
    const res = await t.app.inject({ url: `/v1/customers${query}`, headers: sandbox() });
    expectStatus(res, 422);
    assert.match(res.json().message, message, query);
  }
});

test("a trailing slash reaches the same route", async () => {
  const m = await seedMerchant(t);
  const res = await t.app.inject({ url: "/v1/customers/", headers: { authorization: basic(m.sandboxKey) } });
  expectStatus(res, 200);
  assert.ok(Array.isArray(res.json().data));
});
