import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "drizzle-orm";
import { efiIds } from "../../src/processors/efi/client.js";
import { efiNoticeSecret } from "../../src/processors/efi/notices.js";
import { expectStatus } from "../helpers/app.js";
import { post } from "../helpers/charges.js";
import { calls, efiPix, startEfiWorld, type EfiWorld } from "./live-efi-shared.js";
import { chargeRow, eventCount, runTask } from "./live-shared.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Live Pix through Efí, over HTTP and mutual TLS against the Efí fake: the notice URL registered
// through the admin route (Efí's probe answered), a cob under a txid derived from the charge,
// paid by a notice that is checked for its secret and never trusted (the cob is read back), a
// create whose answer was lost adopting the one cob made, and the expiry removing the cob.

let w: EfiWorld;
before(async () => { w = await startEfiWorld(); });
after(async () => { await w.close(); });

const notice = (path: string, body: unknown) => w.t.app.inject({ method: "POST", url: path, payload: body as never });
const hmac = () => efiNoticeSecret(w.efi.clientSecret);
/** A live Pix the payer paid at Efí, whose notice was lost. */
async function paidUnnoticed() {
  const c = await efiPix(w);
  w.efi.setWebhookFault("drop", 1);
  assert.equal(typeof w.efi.pay(c.txid), "object");
  await w.efi.flushWebhooks();
  return c;
}

test("the admin route registers feira's notice URL at Efí with its secret; Efí's probe was answered 2xx", async () => {
  const res = await post(w.t, w.t.admin, "/v1/admin/processors/efi/webhook");
  expectStatus(res, 200);
  const body = res.json() as { processor: string; webhookUrl: string };
  assert.equal(body.processor, "efi");
  assert.match(body.webhookUrl, /\/v1\/processors\/efi\/webhooks\?hmac=\*\*\*&ignorar=$/);
  assert.equal(w.efi.webhookTarget("pix"), `${w.t.config.publicBaseUrl}/v1/processors/efi/webhooks?hmac=${hmac()}&ignorar=/pix`);
  const probes = w.efi.core.webhooks.sent.filter((s) => s.label === "webhook.probe");
  assert.ok(probes.length >= 1 && probes.every((p) => p.status === 200), JSON.stringify(probes));
  assert.equal(w.efi.core.requests.filter((r) => r.route.startsWith("PUT /v2/webhook/")).at(-1)!.headers["x-skip-mtls-checking"], "true");
  // A processor that registers nothing through its API, and one no route names.
  expectStatus(await post(w.t, w.t.admin, "/v1/admin/processors/pagarme/webhook"), 404);
  expectStatus(await post(w.t, w.key, "/v1/admin/processors/efi/webhook"), 401);
});

test("a live Pix is a cob under the charge's txid: its BR Code and expiry are Efí's", async () => {
  const c = await efiPix(w, { paymentMethod: { type: "pix", expiresIn: 1800 } });
  assert.equal(c.status, "pending");
  const cob = w.efi.ctx.cobs.get(c.txid)!;
  assert.ok(cob, "one cob under the derived txid");
  assert.equal(cob.valor.original, "50.50");
  assert.equal(cob.calendario.expiracao, 1800);
  assert.equal(c.paymentDetails!.qrCode, cob.pixCopiaECola);
  assert.equal(c.paymentDetails!.expiresAt, new Date(Date.parse(cob.calendario.criacao) + 1800_000).toISOString());
  assert.equal((await chargeRow(w, c.id)).pspRefId, c.txid);
});

test("paid by Efí's notice (`/pix` in the ignorar parameter): the cob is read back, the charge paid once", async () => {
  const c = await efiPix(w);
  const reads = calls(w, `GET /v2/cob/${c.txid}`);
  w.efi.setWebhookFault("duplicate", 1);
  assert.equal(typeof w.efi.pay(c.txid), "object");
  await w.efi.flushWebhooks();
  const row = await chargeRow(w, c.id);
  assert.equal(row.status, "paid");
  assert.ok(calls(w, `GET /v2/cob/${c.txid}`) > reads, "read back before it moved");
  assert.equal(await eventCount(w, c.id, "charge.paid"), 1);
});

test("a notice with the path form `/pix` is taken too; without the right hmac it is refused and changes nothing", async () => {
  // The payer pays, but Efí's notice is lost: forged notices must not be what moves it.
  const c = await paidUnnoticed();
  const body = { pix: [{ endToEndId: "E00000000202601010000abcdefghijk", txid: c.txid, valor: "50.50" }] };
  const before = calls(w, `GET /v2/cob/${c.txid}`);
  for (const url of ["/v1/processors/efi/webhooks/pix", `/v1/processors/efi/webhooks/pix?hmac=${"0".repeat(32)}`, "/v1/processors/efi/webhooks?hmac=&ignorar=/pix"]) {
    expectStatus(await notice(url, body), 401);
  }
  assert.equal(calls(w, `GET /v2/cob/${c.txid}`), before, "nothing was read for a refused notice");
  assert.equal((await chargeRow(w, c.id)).status, "pending");
  expectStatus(await notice(`/v1/processors/efi/webhooks/pix?hmac=${hmac()}`, body), 200);
  assert.equal((await chargeRow(w, c.id)).status, "paid");
});

test("a notice is never trusted: one that names a cob Efí has not seen paid changes nothing", async () => {
  const c = await efiPix(w);
  const forged = { pix: [{ endToEndId: "E00000000202601010000abcdefghijk", txid: c.txid, valor: "50.50" }] };
  expectStatus(await notice(`/v1/processors/efi/webhooks?hmac=${hmac()}&ignorar=/pix`, forged), 200);
  assert.equal((await chargeRow(w, c.id)).status, "pending");
});

test("Efí's probe (the right hmac, no pix) is answered 200 and reads nothing", async () => {
  const before = w.efi.core.requests.length;
  const res = await notice(`/v1/processors/efi/webhooks?hmac=${hmac()}&ignorar=`, { evento: "teste_webhook" });
  expectStatus(res, 200);
  assert.equal(w.efi.core.requests.length, before);
  expectStatus(await notice(`/v1/processors/efi/webhooks?hmac=${hmac()}`, { pix: "nope" }), 422);
});

test("a create answered 500 after Efí made the cob: the cob is read back and adopted, never a second one", async () => {
  await w.efi.setFault("500-after-work", { times: 1, match: "PUT /v2/cob/" });
  const c = await efiPix(w);
  assert.equal(c.status, "pending");
  assert.equal(calls(w, `PUT /v2/cob/${c.txid}`), 1);
  assert.equal(c.paymentDetails!.qrCode, w.efi.ctx.cobs.get(c.txid)!.pixCopiaECola, "the payer has the BR Code of the one cob");
  assert.equal((await chargeRow(w, c.id)).pspRefId, c.txid);
});

test("a create whose answer was lost and whose read-back failed too: the charge waits, and Efí's notice finds it by its id", async () => {
  await w.efi.setFault("lost-answer", { times: 2, match: "" });
  const c = await efiPix(w);
  assert.equal(c.status, "pending");
  assert.equal((await chargeRow(w, c.id)).pspRefId, null);
  assert.equal(w.efi.ctx.cobs.size > 0 && w.efi.ctx.cobs.has(c.txid), true, "the cob was made");
  w.efi.pay(c.txid);
  await w.efi.flushWebhooks();
  assert.equal((await chargeRow(w, c.id)).status, "paid");
});

test("a second create of the same charge (a resumed attempt) is answered 409 by Efí and adopts the first cob", async () => {
  const c = await efiPix(w);
  const adapter = w.t.services.processors.adapter("production", "efi")!;
  const again = await adapter.authorize({
    chargeId: c.id, amountMinor: 5050, currency: "BRL", instrument: { kind: "pix", expiresIn: 3600, options: {} },
    merchant: { id: w.merchantId, name: "Loja", city: "SAO PAULO", pixKey: "" }, customer: null, now: new Date(), publicBaseUrl: w.t.config.publicBaseUrl,
  });
  assert.equal(again.outcome, "pending");
  assert.equal(again.outcome === "pending" && again.details.qrCode, c.paymentDetails!.qrCode);
  assert.equal(w.efi.core.requests.filter((r) => r.route === `PUT /v2/cob/${c.txid}`).length, 2);
  assert.equal(efiIds.feiraId(c.txid), c.id);
});

test("an expired live Pix: the cob is removed at Efí (REMOVIDA_PELO_USUARIO_RECEBEDOR) and the charge fails as expired", async () => {
  const c = await efiPix(w);
  await w.t.database.db.execute(sql`update charges set expires_at = now() - interval '1 minute' where id = ${c.id}`);
  assert.equal(await runTask(w, "charges.expire-live"), 1);
  const row = await chargeRow(w, c.id);
  assert.equal(row.status, "failed");
  assert.equal(row.reason, "expired");
  assert.equal(w.efi.ctx.cobs.get(c.txid)!.status, "REMOVIDA_PELO_USUARIO_RECEBEDOR");
  assert.equal(typeof w.efi.pay(c.txid), "string", "the payer's bank can no longer pay it");
  assert.equal(await eventCount(w, c.id, "charge.failed"), 1);
});

test("an expired live Pix that Efí says was paid (its notice lost) becomes paid, and nothing is removed", async () => {
  const c = await paidUnnoticed();
  await w.t.database.db.execute(sql`update charges set expires_at = now() - interval '1 minute' where id = ${c.id}`);
  assert.equal(await runTask(w, "charges.expire-live"), 1);
  assert.equal((await chargeRow(w, c.id)).status, "paid");
  assert.equal(calls(w, `PATCH /v2/cob/${c.txid}`), 0);
});
