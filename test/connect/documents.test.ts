import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { drainTasks } from "../../src/jobs/runner.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { admin, call, createSubmerchant, FILES, keyOf, multipart, REQUIRED_FILES, seedMaster, upload } from "./helpers.js";

// KYC documents (checked by content, sealed, listed by metadata) and accreditation (the guarded
// transition table, the 6.3 notification, what a submerchant that is not active may not do).

let t: TestApp;
let master: SeededMerchant;
let receiver: Receiver;
before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t);
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});

const setStatus = (id: string, status: string, reason?: string) => admin(t, "POST", `/v1/admin/submerchants/${id}/status`, { status, reason });

test("uploads are checked by content, stored sealed, listed by metadata only, and downloadable by the master", async () => {
  const sm = await createSubmerchant(t, master.sandboxKey);
  const res = await upload(t, master.sandboxKey, sm.id, [REQUIRED_FILES[0]!, { field: "responsible_document_back", filename: "x.bin", contentType: "application/octet-stream", content: FILES.jpeg }]);
  expectStatus(res, 201);
  const body = res.json();
  assert.deepEqual(body.documents.map((d: { kind: string; contentType: string }) => [d.kind, d.contentType]).sort(), [["cnpj_card", "application/pdf"], ["responsible_document_back", "image/jpeg"]]);
  assert.deepEqual(body.missing, ["social_contract", "responsible_document_front", "selfie_with_document"]);
  assert.equal(body.complete, false);
  // The plural path reaches the same upload; a new file replaces the kind's earlier one.
  expectStatus(await upload(t, master.sandboxKey, sm.id, [{ field: "cnpj_card", filename: "c.png", contentType: "image/png", content: FILES.png }], "documents"), 201);
  const listed = await call(t, "GET", `/v1/submerchants/${sm.id}/documents`, master.sandboxKey);
  expectStatus(listed, 200);
  const card = listed.json().documents.find((d: { kind: string }) => d.kind === "cnpj_card");
  assert.equal(card.contentType, "image/png");
  assert.equal(listed.json().documents.length, 2);
  assert.doesNotMatch(listed.body, /content"/);
  // At rest: sealed, never the bytes.
  const rows = await queryRows<{ content_sealed: string }>(t.database.db, sql`select content_sealed from submerchant_documents where submerchant_id = ${sm.id}`);
  for (const r of rows) {
    assert.match(r.content_sealed, /^v1:/);
    assert.ok(!r.content_sealed.includes(FILES.png.toString("base64")));
  }
  const download = await call(t, "GET", `/v1/submerchants/${sm.id}/documents/${card.id}/content`, master.sandboxKey);
  expectStatus(download, 200);
  assert.equal(download.headers["content-type"], "image/png");
  assert.deepEqual(download.rawPayload, FILES.png);
  const other = await seedMaster(t);
  expectStatus(await call(t, "GET", `/v1/submerchants/${sm.id}/documents/${card.id}/content`, other.sandboxKey), 404);
});

test("refused uploads store nothing: unknown or text fields 422, content that is not PDF/JPEG/PNG 422, over 10 MB 413, not multipart 415", async () => {
  const sm = await createSubmerchant(t, master.sandboxKey);
  const count = async () => Number((await queryRows<{ n: string }>(t.database.db, sql`select count(*)::text as n from submerchant_documents where submerchant_id = ${sm.id}`))[0]!.n);
  const unknown = await upload(t, master.sandboxKey, sm.id, [REQUIRED_FILES[0]!, { field: "passport", filename: "p.pdf", content: FILES.pdf }]);
  expectStatus(unknown, 422);
  assert.match(unknown.json().message, /passport is not a recognized field/);
  const field = await upload(t, master.sandboxKey, sm.id, [{ field: "note", content: "hello" }]);
  expectStatus(field, 422);
  assert.match(field.json().message, /note is not a recognized field/);
  // A text file named and declared as a PDF is judged by its bytes.
  const disguised = await upload(t, master.sandboxKey, sm.id, [REQUIRED_FILES[0]!, { field: "social_contract", filename: "contract.pdf", contentType: "application/pdf", content: FILES.text }]);
  expectStatus(disguised, 422);
  assert.match(disguised.json().message, /social_contract must be a PDF, JPEG or PNG/);
  const twice = await upload(t, master.sandboxKey, sm.id, [REQUIRED_FILES[0]!, REQUIRED_FILES[0]!]);
  expectStatus(twice, 422);
  expectStatus(await upload(t, master.sandboxKey, sm.id, []), 422);
  const big = Buffer.concat([FILES.pdf, Buffer.alloc(10 * 1024 * 1024 + 1, 0x20)]);
  const tooLarge = await upload(t, master.sandboxKey, sm.id, [{ field: "cnpj_card", filename: "big.pdf", contentType: "application/pdf", content: big }]);
  expectStatus(tooLarge, 413);
  assert.match(tooLarge.json().message, /10 MB/);
  const json = await call(t, "POST", `/v1/submerchants/${sm.id}/document`, master.sandboxKey, { cnpj_card: "x" });
  expectStatus(json, 415);
  const broken = await t.app.inject({
    method: "POST", url: `/v1/submerchants/${sm.id}/document`, payload: "--x\r\ngarbage",
    headers: { authorization: `Basic ${Buffer.from(`${master.sandboxKey}:`).toString("base64")}`, "content-type": "multipart/form-data; boundary=x" },
  });
  assert.ok([400, 422].includes(broken.statusCode), broken.body);
  assert.equal(await count(), 0);
  // Auth and tenancy come first.
  expectStatus(await upload(t, null, sm.id, REQUIRED_FILES), 401);
  const other = await seedMaster(t);
  expectStatus(await upload(t, other.sandboxKey, sm.id, REQUIRED_FILES), 404);
  const smKey = await keyOf(t, master.sandboxKey, sm.id);
  expectStatus(await upload(t, smKey, sm.id, REQUIRED_FILES), 403);
  assert.equal(await count(), 0);
  // A multipart body elsewhere is still refused as before.
  const elsewhere = multipart([{ field: "name", content: "x" }]);
  const res = await t.app.inject({ method: "POST", url: "/v1/customers", payload: elsewhere.payload, headers: { ...elsewhere.headers, authorization: `Basic ${Buffer.from(`${master.sandboxKey}:`).toString("base64")}` } });
  expectStatus(res, 415);
});

test("accreditation follows the table (invalid moves 409), needs the required documents, records its dates and notifies the postbackUrl", async () => {
  const sm = await createSubmerchant(t, master.sandboxKey, { postbackUrl: `${receiver.url}/notify` });
  const early = await setStatus(sm.id, "active");
  expectStatus(early, 409);
  assert.match(early.json().message, /documents missing: cnpj_card, social_contract, responsible_document_front, selfie_with_document/);
  expectStatus(await upload(t, master.sandboxKey, sm.id, REQUIRED_FILES), 201);
  expectStatus(await setStatus(sm.id, "blocked"), 409);
  const pre = await setStatus(sm.id, "pre_approved");
  expectStatus(pre, 200);
  assert.equal(pre.json().status, "pending");
  assert.equal(pre.json().accreditationStatus, "pre_approved");
  const active = await setStatus(sm.id, "active");
  expectStatus(active, 200);
  assert.equal(active.json().status, "active");
  assert.ok(active.json().approvedAt);
  const blocked = await setStatus(sm.id, "blocked", "chargebacks");
  expectStatus(blocked, 200);
  assert.equal(blocked.json().statusReason, "chargebacks");
  assert.ok(blocked.json().blockedAt);
  expectStatus(await setStatus(sm.id, "pre_approved"), 409);
  const inactive = await setStatus(sm.id, "inactive");
  expectStatus(inactive, 200);
  assert.ok(inactive.json().inactivatedAt);
  expectStatus(await setStatus(sm.id, "bogus"), 422);
  expectStatus(await setStatus("sm_missing", "active"), 404);
  expectStatus(await call(t, "POST", `/v1/admin/submerchants/${sm.id}/status`, master.sandboxKey, { status: "active" }), 401);

  // pre_approved, active and blocked were announced; inactive is not a notification value.
  await drainTasks(t.services.webhooks.tasks);
  const got = await receiver.waitFor(3, 5_000);
  const bodies = got.map((r) => JSON.parse(r.body) as { merchantId: string; status: string; date: string });
  // The worker sends deliveries concurrently, so they may arrive in any order; their dates keep it.
  const byDate = [...bodies].sort((a, b) => String(a.date).localeCompare(String(b.date)));
  assert.deepEqual(byDate.map((b) => b.status), ["pre_approved", "active", "blocked"]);
  for (const b of bodies) {
    assert.deepEqual(Object.keys(b).sort(), ["date", "merchantId", "status"]);
    assert.equal(b.merchantId, sm.id);
    assert.match(b.date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(got[0]!.headers["webhook-signature"]);
  }
  await sleep(50);
  await drainTasks(t.services.webhooks.tasks);
  assert.equal(receiver.requests.length, 3);

  // Rejection is final.
  const other = await createSubmerchant(t, master.sandboxKey);
  expectStatus(await setStatus(other.id, "rejected", "CNPJ card unreadable"), 200);
  expectStatus(await setStatus(other.id, "active"), 409);
});

test("a submerchant that is not active: resend-webhook 422 saying it is inactive, no production charges; once active both work", async () => {
  const sm = await createSubmerchant(t, master.sandboxKey);
  const liveSm = await createSubmerchant(t, master.productionKey);
  const keys = { sandbox: await keyOf(t, master.sandboxKey, sm.id), production: await keyOf(t, master.productionKey, liveSm.id) };
  // Sandbox charges are allowed while pending (that is how it tests).
  const charge = await call(t, "POST", "/v1/charges", keys.sandbox, cardCharge(CARDS.visa));
  expectStatus(charge, 201);
  const resend = await call(t, "POST", `/v1/charges/${charge.json().id}/resend-webhook`, keys.sandbox, { status: "paid" });
  expectStatus(resend, 422);
  assert.match(resend.json().message, /inactive/);
  const live = await call(t, "POST", "/v1/charges", keys.production, cardCharge(CARDS.visa));
  expectStatus(live, 422);
  assert.match(live.json().message, /not active/);
  expectStatus(await upload(t, master.sandboxKey, sm.id, REQUIRED_FILES), 201);
  expectStatus(await setStatus(sm.id, "active"), 200);
  expectStatus(await call(t, "POST", `/v1/charges/${charge.json().id}/resend-webhook`, keys.sandbox, { status: "paid" }), 202);
  // Accredited in sandbox is simulated: the production registration is still not active.
  const stillPending = await call(t, "POST", "/v1/charges", keys.production, cardCharge(CARDS.visa));
  expectStatus(stillPending, 422);
  assert.match(stillPending.json().message, /not active/);
  expectStatus(await upload(t, master.productionKey, liveSm.id, REQUIRED_FILES), 201);
  expectStatus(await setStatus(liveSm.id, "active"), 200);
  // Past the Connect check, a production charge meets the missing production processor.
  const liveAgain = await call(t, "POST", "/v1/charges", keys.production, cardCharge(CARDS.visa));
  expectStatus(liveAgain, 422);
  assert.match(liveAgain.json().message, /PAYMENT_PROCESSOR/);
  // The charge has the submerchant as originator.
  const got = await call(t, "GET", `/v1/charges/${charge.json().id}`, keys.sandbox);
  expectStatus(got, 200);
  expectStatus(await call(t, "GET", `/v1/charges/${charge.json().id}`, master.sandboxKey), 404);
  const after = await call(t, "GET", `/v1/submerchants/${sm.id}`, master.sandboxKey);
  assert.equal(after.json().totalSales, 1);
});
