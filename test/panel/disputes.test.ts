import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "drizzle-orm";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { get } from "../helpers/charges.js";
import { FILES } from "../connect/helpers.js";
import { closeDispute, getDispute, openDispute, paidCard, paidPix, sendEvidence } from "../disputes/helpers.js";
import { signIn, type PanelClient } from "./panel-client.js";

// The panel's disputes (issue 40 item 6): the list with those needing a response first and the
// days left, the home page's count, one dispute with its charge and evidence, the evidence form
// (multipart, CSRF-protected, judged by the API's service) and the concession. Another merchant's
// dispute is a 404 and changes nothing.

let t: TestApp;
let m: SeededMerchant;
let other: SeededMerchant;
let c: PanelClient;

before(async () => {
  t = await buildTestApp();
  [m, other] = [await seedMerchant(t), await seedMerchant(t)];
  c = await signIn(t, m.email, m.password);
});
after(async () => t?.close());

const rowOrder = (body: string) => [...body.matchAll(/<a href="\/panel\/disputes\/(dp_\w+)">/g)].map((x) => x[1]);

test("the list puts those needing a response first, nearest deadline first, with the days left; the home page counts them", async () => {
  assert.match((await c.get("/panel")).body, /No dispute needs a response\./);
  const reviewed = await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 30)).id);
  expectStatus(await sendEvidence(t, m.sandboxKey, reviewed.id, [{ field: "text", content: "Delivered." }]), 200);
  const won = await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 31)).id);
  expectStatus(await sendEvidence(t, m.sandboxKey, won.id, [{ field: "text", content: "Delivered." }]), 200);
  expectStatus(await closeDispute(t, m.sandboxKey, won.id, "won"), 200);
  const first = await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 32)).id);
  const second = await openDispute(t, m.sandboxKey, (await paidPix(t, m.sandboxKey, 33)).id);
  // The newer one is due first: the list follows the deadline, not the order of opening.
  await t.database.db.execute(sql`update disputes set evidence_due_by = evidence_due_by - interval '3 days' where id = ${second.id}`);

  const list = await c.get("/panel/disputes");
  expectStatus(list, 200);
  assert.deepEqual(rowOrder(list.body), [second.id, first.id, reviewed.id, won.id]);
  assert.match(list.body, /Disputes \(4\)/);
  assert.match(list.body, /<strong class="days-left">3 days left<\/strong>/);
  assert.match(list.body, /<strong class="days-left">6 days left<\/strong>/);
  assert.match(list.body, /Pix MED/);
  assert.match(list.body, /<a href="\/panel\/disputes" aria-current="page">Disputes<\/a>/, "the nav entry");

  const filtered = await c.get("/panel/disputes?status=under_review");
  assert.deepEqual(rowOrder(filtered.body), [reviewed.id]);
  const byKind = await c.get("/panel/disputes?kind=pix_med");
  assert.deepEqual(rowOrder(byKind.body), [second.id]);
  const bad = await c.get("/panel/disputes?status=sideways");
  assert.equal(bad.statusCode, 422, bad.body.slice(0, 300));
  assert.match(bad.body, /id="f-status-error"/);

  const home = await c.get("/panel");
  assert.match(home.body, /<a href="\/panel\/disputes\?status=needs_response">2 disputes need a response<\/a>/);
  await c.post("/panel/language", { lang: "pt-BR", back: "/panel" });
  assert.match((await c.get("/panel")).body, /2 disputas aguardam resposta/);
  assert.match((await c.get("/panel/disputes")).body, /Faltam 3 dias/);
  await c.post("/panel/language", { lang: "en", back: "/panel" });
});

test("pages of 20, open ones first across pages", async () => {
  const before = (await getList(m.sandboxKey)).meta.total;
  for (let i = before; i < 21; i++) await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 10 + i)).id);
  const page1 = await c.get("/panel/disputes");
  assert.equal(rowOrder(page1.body).length, 20);
  assert.match(page1.body, /Page 1 of 2/);
  const page2 = await c.get("/panel/disputes?page=2");
  const last = rowOrder(page2.body);
  assert.equal(last.length, 1);
  assert.ok(!rowOrder(page1.body).includes(last[0]), "no dispute on two pages");
  assert.match(page2.body, /s-won/, "the closed one is last");
});

async function getList(key: string) {
  const res = await get(t, key, "/v1/disputes?limit=1");
  expectStatus(res, 200);
  return res.json() as { meta: { total: number } };
}

test("a dispute's page: its charge, reason, kind, amount and deadline; evidence as multipart through the API's rules", async () => {
  const charge = await paidCard(t, m.sandboxKey, 45.5);
  const d = await openDispute(t, m.sandboxKey, charge.id, { reason: "product_not_received" });
  const page = await c.get(`/panel/disputes/${d.id}`);
  expectStatus(page, 200);
  for (const shown of [`<a href="/panel/charges/${charge.id}">`, "Product not received", "Chargeback", "R$45.50", "Needs response", "6 days left", 'enctype="multipart/form-data"']) {
    assert.ok(page.body.includes(shown), `${shown} on the page`);
  }

  // Judged by content, as the API judges it: a text file named .pdf is refused, nothing changes.
  const refused = await c.postMultipart(`/panel/disputes/${d.id}/evidence`, [
    { field: "text", content: "Shipped with tracking." }, { field: "files", filename: "fake.pdf", contentType: "application/pdf", content: "not a pdf" },
  ]);
  assert.equal(refused.statusCode, 422, refused.body.slice(0, 300));
  assert.match(refused.body, /must be a PDF, PNG or JPEG file/);
  assert.match(refused.body, /Shipped with tracking\./, "the text typed is kept");
  const empty = await c.postMultipart(`/panel/disputes/${d.id}/evidence`, [{ field: "text", content: "   " }]);
  assert.equal(empty.statusCode, 422);
  assert.match(empty.body, /id="ev-text-error"/);
  // The panel's multipart parser takes the KYC upload's 10 MB; the evidence rule (5 MB) is the service's.
  const big = Buffer.concat([FILES.pdf, Buffer.alloc(5 * 1024 * 1024)]);
  const tooBig = await c.postMultipart(`/panel/disputes/${d.id}/evidence`, [{ field: "text", content: "Big." }, { field: "files", filename: "big.pdf", contentType: "application/pdf", content: big }]);
  assert.equal(tooBig.statusCode, 422, tooBig.body.slice(0, 300));
  assert.match(tooBig.body, /big\.pdf\) must be at most 5 MB/);
  assert.equal((await getDispute(t, m.sandboxKey, d.id)).status, "needs_response");

  // Without the page's token (a cross-site form): 403, nothing sent.
  const forged = await c.postMultipart(`/panel/disputes/${d.id}/evidence`, [{ field: "text", content: "forged" }, { field: "_csrf", content: "x" }], { origin: "https://evil.example" });
  assert.equal(forged.statusCode, 403);
  assert.equal((await getDispute(t, m.sandboxKey, d.id)).evidence, null);

  const sent = await c.postMultipart(`/panel/disputes/${d.id}/evidence`, [
    { field: "text", content: "Shipped with tracking BR123." },
    { field: "files", filename: "receipt.pdf", contentType: "application/pdf", content: FILES.pdf },
    { field: "files", filename: "photo.png", contentType: "image/png", content: FILES.png },
  ]);
  assert.equal(sent.statusCode, 303, sent.body.slice(0, 300));
  const after = await getDispute(t, m.sandboxKey, d.id);
  assert.equal(after.status, "under_review");
  assert.deepEqual(after.evidence?.files.map((f) => [f.name, f.contentType]), [["receipt.pdf", "application/pdf"], ["photo.png", "image/png"]]);
  const shown = await c.get(String(sent.headers.location));
  assert.match(shown.body, /Evidence submitted: the dispute is under review\./);
  assert.match(shown.body, /Shipped with tracking BR123\./);
  assert.match(shown.body, /receipt\.pdf/);
  assert.doesNotMatch(shown.body, /enctype="multipart\/form-data"/, "evidence is taken once");

  // The sandbox decides it as the issuer would.
  const won = await c.post(`/panel/disputes/${d.id}/sandbox/won`, {});
  assert.equal(won.statusCode, 303);
  assert.equal((await getDispute(t, m.sandboxKey, d.id)).status, "won");
});

test("a paid charge's page opens a sandbox dispute and lists the charge's disputes", async () => {
  const charge = await paidPix(t, m.sandboxKey, 25);
  const page = await c.get(`/panel/charges/${charge.id}`);
  assert.match(page.body, new RegExp(`action="/panel/charges/${charge.id}/sandbox/dispute"`));
  const opened = await c.post(`/panel/charges/${charge.id}/sandbox/dispute`, {});
  assert.equal(opened.statusCode, 303, opened.body.slice(0, 300));
  const id = /\/panel\/disputes\/(dp_\w+)$/.exec(String(opened.headers.location))?.[1];
  assert.ok(id, String(opened.headers.location));
  const d = await getDispute(t, m.sandboxKey, id);
  assert.deepEqual([d.chargeId, d.kind, d.status], [charge.id, "pix_med", "needs_response"]);
  const shown = await c.get(`/panel/charges/${charge.id}`);
  assert.match(shown.body, new RegExp(`<a href="/panel/disputes/${id}">${id}</a>`));
  // A second one on the same charge is refused as the API refuses it; nothing more is opened.
  const again = await c.post(`/panel/charges/${charge.id}/sandbox/dispute`, {});
  assert.equal(again.statusCode, 303);
  assert.match((await c.get(String(again.headers.location))).body, /already has an open dispute/);
  assert.equal((await get(t, m.sandboxKey, `/v1/disputes?chargeId=${charge.id}`)).json().meta.total, 1);
});

test("accepting asks for a confirmation, then loses the dispute and charges the charge back", async () => {
  const charge = await paidCard(t, m.sandboxKey, 20);
  const d = await openDispute(t, m.sandboxKey, charge.id);
  await c.get(`/panel/disputes/${d.id}`);
  const unconfirmed = await c.post(`/panel/disputes/${d.id}/accept`, {});
  assert.equal(unconfirmed.statusCode, 303);
  assert.match((await c.get(`/panel/disputes/${d.id}`)).body, /Tick the confirmation/);
  assert.equal((await getDispute(t, m.sandboxKey, d.id)).status, "needs_response");
  const accepted = await c.post(`/panel/disputes/${d.id}/accept`, { confirm: "on" });
  assert.equal(accepted.statusCode, 303);
  assert.equal((await getDispute(t, m.sandboxKey, d.id)).status, "lost");
  const ch = await get(t, m.sandboxKey, `/v1/charges/${charge.id}`);
  assert.equal(ch.json().status, "charged_back");
  const again = await c.post(`/panel/disputes/${d.id}/accept`, { confirm: "on" });
  assert.equal(again.statusCode, 303);
  assert.match((await c.get(`/panel/disputes/${d.id}`)).body, /cannot become lost/);
});

test("another merchant's dispute is a 404 on every page and form, and nothing of it changes", async () => {
  const theirs = await openDispute(t, other.sandboxKey, (await paidCard(t, other.sandboxKey, 50)).id);
  const mine = await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 51)).id);
  // The same pages answer the merchant's own dispute: the 404 is about whose it is.
  assert.equal((await c.get(`/panel/disputes/${mine.id}`)).statusCode, 200);
  assert.equal((await c.get(`/panel/disputes/${theirs.id}`)).statusCode, 404);
  assert.equal((await c.postMultipart(`/panel/disputes/${theirs.id}/evidence`, [{ field: "text", content: "mine now" }])).statusCode, 404);
  assert.equal((await c.post(`/panel/disputes/${theirs.id}/accept`, { confirm: "on" })).statusCode, 404);
  assert.equal((await c.post(`/panel/disputes/${theirs.id}/sandbox/lost`, {})).statusCode, 404);
  assert.ok(!rowOrder((await c.get("/panel/disputes")).body).includes(theirs.id));
  const still = await getDispute(t, other.sandboxKey, theirs.id);
  assert.equal(still.status, "needs_response");
  assert.equal(still.evidence, null);
});

test("production shows production's disputes only: none of sandbox's", async () => {
  await c.post("/panel/environment", { environment: "production", back: "/panel/disputes" });
  const list = await c.get("/panel/disputes");
  expectStatus(list, 200);
  assert.deepEqual(rowOrder(list.body), []);
  assert.match(list.body, /No disputes match\./);
  assert.match((await c.get("/panel")).body, /No dispute needs a response\./);
  const someSandbox = (await t.app.inject({ method: "GET", url: "/v1/disputes?limit=1", headers: { authorization: basic(m.sandboxKey) } })).json().data[0].id;
  assert.equal((await c.get(`/panel/disputes/${someSandbox}`)).statusCode, 404);
  await c.post("/panel/environment", { environment: "sandbox", back: "/panel" });
});
