import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { activate, admin, call, createSubmerchant, FEES, keyOf, newCnpj, seedMaster, submerchantBody } from "./helpers.js";

// Submerchants: creation, inheritance, lists and reads, keys, fees-info.

let t: TestApp;
let master: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t, FEES);
});
after(async () => { await t.close(); });

test("a master with Connect creates a pending submerchant with the 2.5 fields; the CNPJ may be formatted", async () => {
  const cnpj = newCnpj(true);
  const res = await call(t, "POST", "/v1/submerchants", master.sandboxKey, submerchantBody({ companyTaxId: cnpj, softDescriptor: "AURORA" }));
  expectStatus(res, 201);
  const sm = res.json();
  assert.match(sm.id, /^sm_/);
  assert.equal(sm.status, "pending");
  assert.equal(sm.companyTaxId, cnpj.replace(/\D/g, ""));
  assert.equal(sm.gatewayId, master.id);
  assert.equal(sm.totalSales, 0);
  assert.equal(sm.averageOrderValue, 35.5);
  for (const field of ["id", "tradeName", "legalName", "companyTaxId", "productType", "status", "createdAt", "totalSales", "approvedAt", "inactivatedAt", "softDescriptor", "website", "contactEmail", "productDescription", "averageMonthlyRevenue"]) {
    assert.ok(field in sm, field);
  }
  const got = await call(t, "GET", `/v1/submerchants/${sm.id}`, master.sandboxKey);
  expectStatus(got, 200);
  assert.deepEqual(got.json(), sm);
});

test("an invalid CNPJ, a bad field or an unknown field is a 422 naming the field; nothing is created", async () => {
  const before = (await call(t, "GET", "/v1/submerchants?size=100", master.sandboxKey)).json().total;
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ companyTaxId: "11.222.333/0001-82" }, /companyTaxId/],
    [{ companyTaxId: "11111111111111" }, /companyTaxId/],
    [{ productType: "services" }, /productType/],
    [{ contactEmail: "nope" }, /contactEmail/],
    [{ website: "ftp://x.example.com" }, /website/],
    [{ averageOrderValue: 1.234 }, /averageOrderValue/],
    [{ averageMonthlyRevenue: -1 }, /averageMonthlyRevenue/],
    [{ postbackUrl: "http://169.254.169.254/latest" }, /postbackUrl/],
    [{ parentId: "mer_x" }, /parentId is not a recognized field/],
  ];
  for (const [extra, message] of cases) {
    const res = await call(t, "POST", "/v1/submerchants", master.sandboxKey, submerchantBody(extra));
    expectStatus(res, 422);
    assert.match(res.json().message, message);
  }
  const { tradeName: _omit, ...missing } = submerchantBody();
  const res = await call(t, "POST", "/v1/submerchants", master.sandboxKey, missing);
  expectStatus(res, 422);
  assert.match(res.json().message, /tradeName is required/);
  assert.equal((await call(t, "GET", "/v1/submerchants?size=100", master.sandboxKey)).json().total, before);
});

test("a CNPJ registered twice in one Connect is a 409; an Idempotency-Key replays the first answer", async () => {
  const body = submerchantBody();
  const first = await call(t, "POST", "/v1/submerchants", master.sandboxKey, body, { "idempotency-key": "sm-1" });
  expectStatus(first, 201);
  const replay = await call(t, "POST", "/v1/submerchants", master.sandboxKey, body, { "idempotency-key": "sm-1" });
  expectStatus(replay, 201);
  assert.equal(replay.json().id, first.json().id);
  expectStatus(await call(t, "POST", "/v1/submerchants", master.sandboxKey, body), 409);
  // Another master may register the same company.
  const other = await seedMaster(t);
  expectStatus(await call(t, "POST", "/v1/submerchants", other.sandboxKey, body), 201);
});

test("the submerchant inherits copies of the master's fees: later changes to the master do not alter it; fees-info returns them as stored", async () => {
  const m = await seedMaster(t, FEES);
  const sm = await createSubmerchant(t, m.sandboxKey);
  expectStatus(await admin(t, "PUT", `/v1/admin/merchants/${m.id}/fees`, { fees: [FEES[0]] }), 200);
  const info = await call(t, "GET", `/v1/connect/sub-accounts/${sm.id}/fees-info`, m.sandboxKey);
  expectStatus(info, 200);
  assert.deepEqual(info.json().merchant, { id: sm.id, legalName: "Aurora Alimentos LTDA", companyTaxId: sm.companyTaxId });
  // As stored: the brand override is its own row, the payout fee is not a 2.8 fee type.
  assert.deepEqual(info.json().fees, FEES.filter((f) => f.feeType !== "payout"));
  // A master whose fees change later: new submerchants get the new ones.
  const later = await createSubmerchant(t, m.sandboxKey);
  const laterInfo = await call(t, "GET", `/v1/connect/sub-accounts/${later.id}/fees-info`, m.sandboxKey);
  assert.deepEqual(laterInfo.json().fees, [FEES[0]]);
  // A submerchant without fees: an empty array.
  const bare = await seedMaster(t);
  const none = await createSubmerchant(t, bare.sandboxKey);
  assert.deepEqual((await call(t, "GET", `/v1/connect/sub-accounts/${none.id}/fees-info`, bare.sandboxKey)).json().fees, []);
});

test("fees-info by caller: master -> linked submerchant; own id, unknown or another master's -> 404; no Connect -> 403; submerchant -> always its own; JWT accepted", async () => {
  const sm = await createSubmerchant(t, master.sandboxKey);
  const sibling = await createSubmerchant(t, master.sandboxKey, { legalName: "Sibling LTDA" });
  const other = await seedMaster(t, FEES);
  const foreign = await createSubmerchant(t, other.sandboxKey);
  const url = (id: string) => `/v1/connect/sub-accounts/${id}/fees-info`;
  expectStatus(await call(t, "GET", url(master.id), master.sandboxKey), 404);
  expectStatus(await call(t, "GET", url("sm_unknown"), master.sandboxKey), 404);
  expectStatus(await call(t, "GET", url(foreign.id), master.sandboxKey), 404);
  const plain = await seedMerchant(t);
  expectStatus(await call(t, "GET", url(sm.id), plain.sandboxKey), 403);
  const smKey = await keyOf(t, master.sandboxKey, sm.id);
  for (const path of [sm.id, sibling.id, master.id, foreign.id, "anything"]) {
    const res = await call(t, "GET", url(path), smKey);
    expectStatus(res, 200);
    assert.equal(res.json().merchant.id, sm.id, path);
  }
  // Bearer JWT of the master.
  const login = await t.app.inject({ method: "POST", url: "/v1/auth/login", payload: { email: master.email, password: master.password } });
  expectStatus(login, 200);
  const jwt = await t.app.inject({ method: "GET", url: url(sm.id), headers: { authorization: `Bearer ${login.json().accessToken}` } });
  expectStatus(jwt, 200);
  assert.equal(jwt.json().merchant.id, sm.id);
  expectStatus(await call(t, "GET", url(sm.id), null), 401);
});

test("merchants without Connect get 403 on every Connect route; a submerchant gets 403 on the master's routes", async () => {
  const plain = await seedMerchant(t);
  const sm = await createSubmerchant(t, master.sandboxKey);
  const smKey = await keyOf(t, master.sandboxKey, sm.id);
  const routes: ["GET" | "POST" | "PUT", string, unknown?][] = [
    ["POST", "/v1/submerchants", submerchantBody()],
    ["GET", "/v1/submerchants"],
    ["GET", `/v1/submerchants/${sm.id}`],
    ["GET", `/v1/submerchants/${sm.id}/api-keys`],
    ["GET", `/v1/submerchants/${sm.id}/documents`],
  ];
  for (const [method, url, body] of routes) {
    expectStatus(await call(t, method, url, plain.sandboxKey, body), 403);
    expectStatus(await call(t, method, url, smKey, body), 403);
  }
  for (const [method, url, body] of [["GET", "/v1/payout-requests"], ["GET", "/v1/connect/settings"], ["PUT", "/v1/connect/settings", { defaultSplit: [] }], ["POST", `/v1/submerchants/${sm.id}/payout-requests`, { amount: 100 }]] as const) {
    expectStatus(await call(t, method, url, plain.sandboxKey, body), 403);
  }
  // Connect switched off by the admin: the master is refused too.
  const m = await seedMaster(t);
  expectStatus(await admin(t, "PATCH", `/v1/admin/merchants/${m.id}`, { connectEnabled: false }), 200);
  expectStatus(await call(t, "GET", "/v1/submerchants", m.sandboxKey), 403);
});

test("api-keys shows the submerchant's key of the caller's environment in full to its master; it acts as the submerchant; it has no login", async () => {
  const sm = await createSubmerchant(t, master.sandboxKey);
  const res = await call(t, "GET", `/v1/submerchants/${sm.id}/api-keys`, master.sandboxKey);
  expectStatus(res, 200);
  assert.doesNotMatch(res.body, /sk_live_/);
  const smKey = await keyOf(t, master.sandboxKey, sm.id);
  const balance = await call(t, "GET", "/v1/balance", smKey);
  expectStatus(balance, 200);
  const login = await t.app.inject({ method: "POST", url: "/v1/auth/login", payload: { email: `${sm.id}@submerchants.invalid`, password: "anything-at-all" } });
  expectStatus(login, 401);
  // Nothing else shows a key.
  for (const url of [`/v1/submerchants/${sm.id}`, "/v1/submerchants"]) {
    assert.doesNotMatch((await call(t, "GET", url, master.sandboxKey)).body, /sk_(test|live)_/);
  }
});

test("list: filters, substring search safe against LIKE wildcards, dates, ordering, pagination; 422 on bad values", async () => {
  const m = await seedMaster(t);
  const names = ["Alpha Foods", "beta_bakery", "Gamma 100% Natural", "Delta Shop", "alphabet soup"];
  const created = [];
  for (const name of names) created.push(await createSubmerchant(t, m.sandboxKey, { tradeName: name, legalName: `${name} LTDA` }));
  const list = async (query: string) => {
    const res = await call(t, "GET", `/v1/submerchants?${query}`, m.sandboxKey);
    expectStatus(res, 200);
    return res.json() as { data: { id: string; tradeName: string; status: string }[]; page: number; pages: number; total: number; size: number };
  };
  const all = await list("");
  assert.equal(all.total, 5);
  assert.equal(all.size, 10);
  assert.equal(all.page, 1);
  assert.deepEqual(all.data.map((d) => d.tradeName), [...names].reverse(), "newest first by default");
  assert.deepEqual((await list("tradeName=ALPHA")).data.map((d) => d.tradeName).sort(), ["Alpha Foods", "alphabet soup"]);
  assert.deepEqual((await list("tradeName=%25")).data.map((d) => d.tradeName), ["Gamma 100% Natural"], "% is a character, not a wildcard");
  assert.deepEqual((await list("tradeName=_")).data.map((d) => d.tradeName), ["beta_bakery"], "_ is a character, not a wildcard");
  assert.deepEqual((await list("legalName=shop%20ltda")).data.map((d) => d.tradeName), ["Delta Shop"]);
  assert.equal((await list(`companyTaxId=${created[2]!.companyTaxId}`)).data[0]!.id, created[2]!.id);
  assert.deepEqual((await list("orderBy=tradeName")).data.map((d) => d.tradeName), ["Alpha Foods", "alphabet soup", "beta_bakery", "Delta Shop", "Gamma 100% Natural"], "case-insensitive");
  assert.deepEqual((await list("orderBy=-tradeName,createdAt")).data.map((d) => d.tradeName)[0], "Gamma 100% Natural");
  const page2 = await list("size=2&page=2&orderBy=createdAt");
  assert.deepEqual({ page: page2.page, pages: page2.pages, total: page2.total, size: page2.size }, { page: 2, pages: 3, total: 5, size: 2 });
  assert.deepEqual(page2.data.map((d) => d.tradeName), [names[2], names[3]]);
  assert.equal((await list("page=9")).data.length, 0);
  const today = new Date().toISOString().slice(0, 10);
  assert.equal((await list(`createdAt=${today}`)).total, 5);
  assert.equal((await list("createdAt=2001-01-01")).total, 0);
  assert.equal((await list("currency=BRL")).total, 5);
  assert.equal((await list("currency=USD")).total, 0);
  // Status and the dates the accreditation records.
  await activate(t, m.sandboxKey, created[0]!.id);
  expectStatus(await admin(t, "POST", `/v1/admin/submerchants/${created[1]!.id}/status`, { status: "rejected", reason: "bad documents" }), 200);
  assert.deepEqual((await list("status=active")).data.map((d) => d.id), [created[0]!.id]);
  assert.deepEqual((await list("status=rejected")).data.map((d) => d.id), [created[1]!.id]);
  assert.equal((await list("status=pending")).total, 3);
  assert.deepEqual((await list(`approvedAt=${today}`)).data.map((d) => d.id), [created[0]!.id]);
  assert.deepEqual((await list(`rejectedAt=${today}`)).data.map((d) => d.id), [created[1]!.id]);
  for (const bad of ["status=pre_approved", "status=deleted", "size=101", "size=0", "page=0", "createdAt=2026-13-01", "createdAt=yesterday", "orderBy=password", "orderBy=-createdAt,-createdAt", "unknown=1"]) {
    const res = await call(t, "GET", `/v1/submerchants?${bad}`, m.sandboxKey);
    expectStatus(res, 422);
  }
});

test("a master never sees another master's submerchants: 404 on read, absent from lists", async () => {
  const other = await seedMaster(t);
  const foreign = await createSubmerchant(t, other.sandboxKey);
  for (const url of [`/v1/submerchants/${foreign.id}`, `/v1/submerchants/${foreign.id}/api-keys`, `/v1/submerchants/${foreign.id}/documents`]) {
    const res = await call(t, "GET", url, master.sandboxKey);
    expectStatus(res, 404);
    assert.doesNotMatch(res.body, /sk_/);
  }
  const list = (await call(t, "GET", "/v1/submerchants?size=100", master.sandboxKey)).json();
  assert.ok(!list.data.some((d: { id: string }) => d.id === foreign.id));
  expectStatus(await call(t, "GET", `/v1/submerchants/${master.id}`, master.sandboxKey), 404);
});
