import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { eq } from "drizzle-orm";
import { buildApp, createServices } from "../../src/app.js";
import { queryRows, sql } from "../../src/db/client.js";
import { charges, events } from "../../src/db/schema.js";
import { basic, expectStatus, testConfig, type TestApp } from "../helpers/app.js";
import { freshDatabase } from "../helpers/db.js";
import { seedMerchant } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, get, post } from "../helpers/charges.js";

// Built by hand to capture every log line at the most verbose level.
let t: TestApp;
const logs: string[] = [];
before(async () => {
  const database = await freshDatabase();
  const config = testConfig({ logLevel: "trace" });
  const services = createServices({ config, db: database.db });
  const stream = new Writable({ write(chunk, _enc, cb) { logs.push(String(chunk)); cb(); } });
  const app = await buildApp({ config, db: database.db, logger: { level: "trace", stream } }, services);
  await app.ready();
  t = { app, database, services, config, admin: config.adminApiKey!, close: async () => { await app.close(); await database.close(); } };
});
after(async () => { await t.close(); });

test("card numbers and CVVs never reach a stored row, an event, a response or a log line", async () => {
  const m = await seedMerchant(t);
  const pans = [CARDS.visa, CARDS.declined, CARDS.blocked, CARDS.threeDS, "4111111111111112"];
  const responses: string[] = [];
  for (const pan of pans) {
    const res = await post(t, m.sandboxKey, "/v1/charges", cardCharge(pan, { postbackUrl: "http://127.0.0.1:9/p" }, { cvv: "987", threeDSMode: "managed" }));
    responses.push(res.body);
  }
  const cus = await post(t, m.sandboxKey, "/v1/customers", { name: "Vault", email: "v@example.com", documentId: "52998224725", documentType: "cpf" });
  const card = await post(t, m.sandboxKey, `/v1/customers/${cus.json().id}/cards`, { number: CARDS.mastercard, holderName: "V", expirationMonth: "10", expirationYear: "2032" });
  responses.push(card.body);
  const charge = await post(t, m.sandboxKey, "/v1/charges", { amount: 5, currency: "BRL", customer: { id: cus.json().id }, paymentMethod: { type: "credit_card", cardId: card.json().id, cvv: "987" } });
  responses.push(charge.body);
  for (const c of (await get(t, m.sandboxKey, "/v1/charges?limit=100")).json().data) responses.push(JSON.stringify(c));

  const tables = await queryRows<{ tablename: string }>(t.database.db, sql`select tablename from pg_tables where schemaname = 'public'`);
  let dump = "";
  for (const { tablename } of tables) {
    const rows = await queryRows<Record<string, unknown>>(t.database.db, sql.raw(`select * from "${tablename}"`));
    dump += JSON.stringify(rows);
  }
  const everything = [dump, ...responses, logs.join("")].join("\n");
  assert.ok(logs.length > 20, "the logs were captured");
  for (const pan of [...pans, CARDS.mastercard]) assert.ok(!everything.includes(pan), `${pan} leaked`);
  assert.ok(!/"cvv"|"987"/.test(dump), "no CVV stored (as a field or a value)");
  assert.ok(!logs.join("").includes(m.sandboxKey), "no API key in logs");
});

test("10 concurrent POST /v1/charges with one Idempotency-Key create one charge and answer alike", async () => {
  const m = await seedMerchant(t);
  const send = () => post(t, m.sandboxKey, "/v1/charges", cardCharge(CARDS.visa), { "idempotency-key": "order-42" });
  const results = await Promise.all(Array.from({ length: 10 }, send));
  for (const r of results) expectStatus(r, 201);
  assert.equal(new Set(results.map((r) => r.body)).size, 1);
  const rows = await t.database.db.select().from(charges).where(eq(charges.merchantId, m.id));
  assert.equal(rows.length, 1);
  const evs = await t.database.db.select().from(events).where(eq(events.objectId, rows[0]!.id));
  assert.equal(evs.filter((e) => e.type === "charge.paid").length, 1);
  const changed = await post(t, m.sandboxKey, "/v1/charges", cardCharge(CARDS.visa, { amount: 2 }), { "idempotency-key": "order-42" });
  expectStatus(changed, 422);
});

test("resend-webhook records an event with the simulated status and changes nothing; production charges 422", async () => {
  const m = await seedMerchant(t);
  const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { postbackUrl: "http://127.0.0.1:9/p" }));
  const before = (await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).body;
  const res = await post(t, m.sandboxKey, `/v1/charges/${c.id}/resend-webhook`, { status: "refunded" });
  expectStatus(res, 202);
  assert.equal(res.json().event, "charge.refunded");
  const ev = await t.database.db.select().from(events).where(eq(events.id, res.json().eventId));
  assert.equal(ev[0]!.data.status, "refunded");
  const legacy = await post(t, m.sandboxKey, `/v1/charges/${c.id}/resend-webhook`, { status: "failed" });
  assert.equal(legacy.json().event, "charge.updated");
  assert.equal((await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).body, before, "the charge is unchanged");
  expectStatus(await post(t, m.sandboxKey, `/v1/charges/${c.id}/resend-webhook`, { status: "bogus" }), 422);
  const other = await seedMerchant(t);
  expectStatus(await post(t, other.sandboxKey, `/v1/charges/${c.id}/resend-webhook`, { status: "paid" }), 404);
  // A production charge cannot exist without a processor; store one to check the rule itself.
  const [row] = await t.database.db.select().from(charges).where(eq(charges.id, c.id));
  const { pageToken: _ownToken, ...copy } = row!; // a page token names one charge: the copy gets its own
  await t.database.db.insert(charges).values({ ...copy, id: "ch_live_test", environment: "production" });
  const live = await t.app.inject({
    method: "POST", url: "/v1/charges/ch_live_test/resend-webhook", payload: { status: "paid" },
    headers: { authorization: basic(m.productionKey) },
  });
  expectStatus(live, 422);
  assert.match(live.json().message, /test-mode/);
});
