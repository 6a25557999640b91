import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { queryRows } from "../../src/db/client.js";
import { drainTasks } from "../../src/jobs/runner.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { activate, admin, approveBySimulator, assertLedgerInvariants, balanceOf, call, createSubmerchant, FEES, keyOf, seedMaster } from "./helpers.js";

// Payout requests: fee arithmetic, prerequisites, the reserve that racing
// requests cannot overdraw, exactly once per Idempotency-Key, lists, and the admin's decision
// with its ledger moves, Pix transfer and event to the submerchant's endpoints.

let t: TestApp;
let master: SeededMerchant;
let receiver: Receiver;
before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t, FEES);
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});

/** An active submerchant with `reais` paid by Pix and settled (1 % fee: available = 99 % of it). */
async function fundedSubmerchant(reais: number, m: SeededMerchant = master) {
  const sm = await createSubmerchant(t, m.sandboxKey);
  await activate(t, m.sandboxKey, sm.id);
  const key = await keyOf(t, m.sandboxKey, sm.id);
  if (reais > 0) {
    const c = await call(t, "POST", "/v1/charges", key, methodCharge({ type: "pix" }, { amount: reais }));
    expectStatus(c, 201);
    expectStatus(await call(t, "POST", `/v1/sandbox/charges/${c.json().id}/pay`, key), 200);
    expectStatus(await call(t, "POST", "/v1/sandbox/settle", key), 200);
  }
  return { id: sm.id, key };
}

const requestPayout = (key: string, id: string, amount: unknown, headers: Record<string, string> = {}) =>
  call(t, "POST", `/v1/submerchants/${id}/payout-requests`, key, { amount }, headers);

test("fee = fixed + amount x percentage / 100, half-up once: 200 + 1 % of 10000 = 300, net 9700; the amount is reserved at once", async () => {
  const sm = await fundedSubmerchant(500);
  assert.deepEqual(await balanceOf(t, sm.key), { available: 49500, pending: 0 });
  const res = await requestPayout(master.sandboxKey, sm.id, 10000);
  expectStatus(res, 201);
  const p = res.json();
  assert.match(p.id, /^po_/);
  assert.deepEqual({ ...p, id: undefined, createdAt: undefined }, {
    id: undefined, createdAt: undefined, merchantId: sm.id, amount: 10000, currency: "BRL", status: "pending",
    payoutFee: 300, netAmount: 9700, processedAt: null, reason: null, endToEndId: null, returnedAmount: 0, transfer: null, source: "platform",
  });
  assert.deepEqual(await balanceOf(t, sm.key), { available: 39500, pending: 0 });
  // 1 % of 10050 = 100.5 -> 101 (half-up), + 200.
  const odd = await requestPayout(sm.key, sm.id, 10050);
  expectStatus(odd, 201);
  assert.equal(odd.json().payoutFee, 301);
  await assertLedgerInvariants(t);
});

test("invalid requests change nothing: amount not integer cents > 0 (422), beyond the balance (422), not active (422), no payout fee (422), fee eating the amount (422)", async () => {
  const sm = await fundedSubmerchant(100);
  const balance = await balanceOf(t, sm.key);
  for (const amount of [0, -5, 10.5, "1000", null]) expectStatus(await requestPayout(master.sandboxKey, sm.id, amount), 422);
  const over = await requestPayout(master.sandboxKey, sm.id, balance.available + 1);
  expectStatus(over, 422);
  assert.match(over.json().message, /exceeds the available balance/);
  const eaten = await requestPayout(master.sandboxKey, sm.id, 200);
  expectStatus(eaten, 422);
  assert.match(eaten.json().message, /payout fee/);
  expectStatus(await call(t, "POST", `/v1/submerchants/${sm.id}/payout-requests`, master.sandboxKey, { amount: 100, currency: "USD" }), 422);

  const pending = await createSubmerchant(t, master.sandboxKey);
  const notActive = await requestPayout(master.sandboxKey, pending.id, 1000);
  expectStatus(notActive, 422);
  assert.match(notActive.json().message, /not active/);

  const noFee = await fundedSubmerchant(100);
  expectStatus(await admin(t, "PUT", `/v1/admin/merchants/${noFee.id}/fees`, { fees: FEES.filter((f) => f.feeType !== "payout") }), 200);
  const missing = await requestPayout(master.sandboxKey, noFee.id, 1000);
  expectStatus(missing, 422);
  assert.match(missing.json().message, /no payout fee/);

  assert.deepEqual(await balanceOf(t, sm.key), balance);
  const [row] = await queryRows<{ n: string }>(t.database.db, sql`select count(*)::text as n from payout_requests where merchant_id in (${sm.id}, ${pending.id}, ${noFee.id})`);
  assert.equal(row!.n, "0");
});

test("100 concurrent requests never take the available balance below zero", async () => {
  const sm = await fundedSubmerchant(250); // available 24750
  const results = await Promise.all(Array.from({ length: 100 }, (_, i) => requestPayout(i % 2 ? sm.key : master.sandboxKey, sm.id, 1000)));
  const statuses = results.map((r) => r.statusCode);
  assert.ok(statuses.every((s) => s === 201 || s === 422), statuses.join(","));
  assert.equal(statuses.filter((s) => s === 201).length, 24);
  assert.deepEqual(await balanceOf(t, sm.key), { available: 750, pending: 0 });
  const [reserved] = await queryRows<{ n: string }>(t.database.db, sql`
    select coalesce(sum(amount), 0)::text as n from ledger_entries where owner = ${sm.id} and account = 'payout_reserved'`);
  assert.equal(Number(reserved!.n), 24000);
  await assertLedgerInvariants(t);
});

test("exactly once per Idempotency-Key: a retry answers with the first request and reserves nothing more", async () => {
  const sm = await fundedSubmerchant(100);
  const first = await requestPayout(master.sandboxKey, sm.id, 1000, { "idempotency-key": "payout-1" });
  expectStatus(first, 201);
  const again = await requestPayout(master.sandboxKey, sm.id, 1000, { "idempotency-key": "payout-1" });
  expectStatus(again, 201);
  assert.equal(again.json().id, first.json().id);
  expectStatus(await requestPayout(master.sandboxKey, sm.id, 2000, { "idempotency-key": "payout-1" }), 422);
  // Concurrent duplicates: one request.
  const racing = await Promise.all(Array.from({ length: 5 }, () => requestPayout(sm.key, sm.id, 500, { "idempotency-key": "payout-2" })));
  assert.equal(new Set(racing.map((r) => r.json().id)).size, 1);
  assert.equal((await balanceOf(t, sm.key)).available, 9900 - 1000 - 500);
});

test("lists and reads: a master sees its submerchants' requests, a submerchant its own, with the 4.2 filters; others get 404", async () => {
  const m = await seedMaster(t, FEES);
  const one = await fundedSubmerchant(100, m);
  const two = await fundedSubmerchant(100, m);
  const p1 = (await requestPayout(m.sandboxKey, one.id, 1000)).json();
  const p2 = (await requestPayout(m.sandboxKey, two.id, 2000)).json();
  const p3 = (await requestPayout(m.sandboxKey, two.id, 3000)).json();
  expectStatus(await admin(t, "POST", `/v1/admin/payout-requests/${p3.id}/reject`, { reason: "test" }), 200);
  const list = async (key: string, query = "") => {
    const res = await call(t, "GET", `/v1/payout-requests${query}`, key);
    expectStatus(res, 200);
    return res.json() as { data: { id: string }[]; total: number; page: number; pages: number; size: number };
  };
  const ids = (l: { data: { id: string }[] }) => l.data.map((d) => d.id).sort();
  assert.deepEqual(ids(await list(m.sandboxKey)), [p1.id, p2.id, p3.id].sort());
  assert.deepEqual(ids(await list(m.sandboxKey, `?merchantId=${two.id}`)), [p2.id, p3.id].sort());
  assert.deepEqual(ids(await list(m.sandboxKey, "?status=rejected")), [p3.id]);
  assert.deepEqual(ids(await list(m.sandboxKey, "?status=pending&currency=brl")), [p1.id, p2.id].sort());
  const today = new Date().toISOString().slice(0, 10);
  assert.equal((await list(m.sandboxKey, `?createdAt=${today}`)).total, 3);
  assert.deepEqual(ids(await list(m.sandboxKey, `?processedAt=${today}`)), [p3.id]);
  assert.equal((await list(m.sandboxKey, "?createdAt=2001-01-01")).total, 0);
  const paged = await list(m.sandboxKey, "?size=2&page=2");
  assert.deepEqual({ total: paged.total, page: paged.page, pages: paged.pages, size: paged.size, n: paged.data.length }, { total: 3, page: 2, pages: 2, size: 2, n: 1 });
  for (const bad of ["?status=paid", "?size=101", "?page=0", "?processedAt=today"]) expectStatus(await call(t, "GET", `/v1/payout-requests${bad}`, m.sandboxKey), 422);
  assert.deepEqual(ids(await list(one.key)), [p1.id]);
  assert.deepEqual(ids(await list(one.key, `?merchantId=${two.id}`)), []);
  const got = await call(t, "GET", `/v1/payout-requests/${p2.id}`, m.sandboxKey);
  expectStatus(got, 200);
  assert.deepEqual(got.json(), p2);
  expectStatus(await call(t, "GET", `/v1/payout-requests/${p2.id}`, one.key), 404);
  expectStatus(await call(t, "GET", `/v1/payout-requests/${p2.id}`, master.sandboxKey), 404);
  expectStatus(await call(t, "GET", `/v1/payout-requests/${p2.id}`, m.productionKey), 404);
  assert.equal((await list(m.productionKey)).total, 0);
  // A submerchant cannot request for its sibling; another master cannot request for either.
  expectStatus(await requestPayout(one.key, two.id, 100), 404);
  expectStatus(await requestPayout(master.sandboxKey, one.id, 1000), 404);
  expectStatus(await requestPayout((await seedMerchant(t)).sandboxKey, one.id, 1000), 403);
});

test("approval pays by Pix (202 sending, then approved by the simulator's transfer), leaves the ledger and sends payout.approved to the submerchant's endpoints; rejection releases the reserve", async () => {
  const sm = await fundedSubmerchant(500);
  const endpoint = await call(t, "POST", "/v1/webhook-endpoints", sm.key, { url: `${receiver.url}/sub`, events: ["payout.approved", "payout.rejected"] });
  expectStatus(endpoint, 201);
  const masterEndpoint = await call(t, "POST", "/v1/webhook-endpoints", master.sandboxKey, { url: `${receiver.url}/master` });
  expectStatus(masterEndpoint, 201);
  const p = (await requestPayout(master.sandboxKey, sm.id, 10000)).json();
  expectStatus(await call(t, "POST", `/v1/admin/payout-requests/${p.id}/approve`, master.sandboxKey), 401);
  const approved = await approveBySimulator(t, p.id, sm.id);
  assert.equal(approved.status, "approved");
  assert.deepEqual(approved.transfer, { status: "sent" });
  assert.ok(approved.processedAt);
  // The simulator's transfer has an end-to-end id of the Pix shape, from its own ISPB, dated at the approval (UTC, to the minute).
  const e2e = /^E99999999(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)[A-Za-z0-9]{11}$/.exec(String(approved.endToEndId));
  assert.ok(e2e, `a Pix end-to-end id: ${JSON.stringify(approved)}`);
  const dated = Date.UTC(+e2e[1]!, +e2e[2]! - 1, +e2e[3]!, +e2e[4]!, +e2e[5]!);
  assert.ok(Math.abs(Date.parse(String(approved.processedAt)) - dated) < 120_000, `dated at the approval: ${JSON.stringify(approved)}`);
  expectStatus(await admin(t, "POST", `/v1/admin/payout-requests/${p.id}/approve`), 409);
  expectStatus(await admin(t, "POST", `/v1/admin/payout-requests/${p.id}/reject`), 409);
  expectStatus(await admin(t, "POST", "/v1/admin/payout-requests/po_missing/approve"), 404);

  const [record] = await queryRows<{ result: { endToEndId: string } }>(t.database.db, sql`select result from sandbox_processor_records where operation = 'payout' and key = ${`payout:${p.id.replace("_", "")}`}`);
  assert.equal(record!.result.endToEndId, approved.endToEndId, "the simulator's record of the transfer");
  const [row] = await queryRows<{ pix_key: string }>(t.database.db, sql`select pix_key from payout_requests where id = ${p.id}`);
  const sub = (await call(t, "GET", `/v1/submerchants/${sm.id}`, master.sandboxKey)).json();
  assert.equal(row!.pix_key, sub.companyTaxId, "paid to the CNPJ as the Pix key");
  const moves = await queryRows<{ owner: string; account: string; n: string }>(t.database.db, sql`
    select owner, account, sum(amount)::text as n from ledger_entries where source_id = ${p.id} group by owner, account order by owner, account`);
  assert.deepEqual(moves.map((m) => [m.owner, m.account, Number(m.n)]), [
    ["platform", "fee_revenue", 300], ["platform", "paid_out", 9700], [sm.id, "available", -10000], [sm.id, "payout_reserved", 0],
  ]);

  const r = (await requestPayout(sm.key, sm.id, 5000)).json();
  assert.equal((await balanceOf(t, sm.key)).available, 49500 - 10000 - 5000);
  const rejected = await admin(t, "POST", `/v1/admin/payout-requests/${r.id}/reject`, { reason: "bank details under review" });
  expectStatus(rejected, 200);
  assert.equal(rejected.json().reason, "bank details under review");
  assert.equal((await balanceOf(t, sm.key)).available, 49500 - 10000);
  await assertLedgerInvariants(t);

  await drainTasks(t.services.webhooks.tasks);
  const got = await receiver.waitFor(2, 5_000);
  assert.ok(got.every((g) => g.path === "/sub"), "only the submerchant's endpoints");
  const secret = endpoint.json().secret as string;
  const bodies = got.map((g) => new Webhook(secret).verify(g.body, g.headers as Record<string, string>) as { id: string; event: string; data: Record<string, unknown> });
  const byEvent = new Map(bodies.map((b) => [b.event, b]));
  const ok = byEvent.get("payout.approved")!;
  assert.deepEqual(Object.keys(ok).sort(), ["data", "event", "id"]);
  assert.deepEqual(ok.data, {
    id: p.id, merchantId: sm.id, amount: 10000, currency: "BRL", status: "approved", payoutFee: 300, netAmount: 9700,
    processedAt: approved.processedAt, endToEndId: approved.endToEndId, reason: null,
  });
  assert.equal(byEvent.get("payout.rejected")!.data.status, "rejected");
  assert.equal(byEvent.get("payout.rejected")!.data.endToEndId, null);
  assert.equal(byEvent.get("payout.rejected")!.data.reason, "bank details under review");
});
