import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { isValidBoleto } from "@brazilian-utils/brazilian-utils/is-valid-boleto";
import { events } from "../../src/db/schema.js";
import { parseBrCode } from "../../src/lib/pix.js";
import { isValidClabe } from "../../src/processors/sandbox/references.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, get, methodCharge, post } from "../helpers/charges.js";

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t, { pixKey: "pix@loja.example", city: "Curitiba" });
});
after(async () => { await t.close(); });

test("Pix: pending with a valid BR Code for the amount, a PNG QR image and an expiry; paid in sandbox", async () => {
  const c = await createCharge(t, m.sandboxKey, methodCharge({ type: "pix", expiresIn: 600 }, { amount: 50.5 }));
  assert.equal(c.status, "pending");
  const code = String(c.paymentDetails!.qrCode);
  const parsed = parseBrCode(code);
  assert.equal(parsed.crcValid, true);
  assert.equal(parsed.fields.get("54"), "50.50");
  assert.equal(parsed.fields.get("53"), "986");
  assert.equal(parsed.merchantAccount.get("01"), "pix@loja.example");
  assert.equal(parsed.additional.get("05"), c.paymentDetails!.txid);
  const png = Buffer.from(String(c.paymentDetails!.qrCodeImage).replace("data:image/png;base64,", ""), "base64");
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const expires = new Date(String(c.paymentDetails!.expiresAt)).getTime();
  assert.ok(Math.abs(expires - Date.now() - 600_000) < 60_000);

  const evs = await t.database.db.select().from(events).where(eq(events.objectId, c.id)).orderBy(events.id);
  assert.deepEqual(evs.map((e) => e.type), ["charge.created", "charge.pending"]);
  assert.equal(evs[0]!.data.psp_ref_id, null);
  assert.ok(evs[1]!.data.psp_ref_id);
  assert.deepEqual(evs[1]!.data.payment_method, { type: "pix" });
  assert.ok(!JSON.stringify(evs[1]!.data).includes("base64"), "no QR image in events");

  const paid = await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`);
  expectStatus(paid, 200);
  assert.equal(paid.json().status, "paid");
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`), 409);
  const after = await t.database.db.select().from(events).where(eq(events.objectId, c.id)).orderBy(events.id);
  assert.equal(after.at(-1)!.type, "charge.paid");
  assert.ok(after.at(-1)!.data.paid_at);
});

test("every other method answers pending with realistic instructions", async () => {
  const boleto = await createCharge(t, m.sandboxKey, methodCharge({ type: "boleto" }, { amount: 1026.56 }));
  assert.equal(String(boleto.paymentDetails!.digitableLine).length, 47);
  assert.equal(String(boleto.paymentDetails!.barcode).length, 44);
  assert.ok(isValidBoleto(String(boleto.paymentDetails!.digitableLine)));
  assert.equal(String(boleto.paymentDetails!.barcode).slice(9, 19), "0000102656");

  const of = await createCharge(t, m.sandboxKey, methodCharge({ type: "open_finance" }));
  assert.match(String(of.paymentDetails!.authorizationUrl), /^http/);
  const qr = await createCharge(t, m.sandboxKey, methodCharge({ type: "qr_code" }));
  assert.equal(parseBrCode(String(qr.paymentDetails!.qrCode)).crcValid, true);
  const transfer = await createCharge(t, m.sandboxKey, methodCharge({ type: "bank_transfer" }));
  assert.ok(transfer.paymentDetails!.reference);
  const oxxo = await createCharge(t, m.sandboxKey, methodCharge({ type: "oxxo" }, { currency: "MXN" }));
  assert.ok(oxxo.paymentDetails!.reference);
  const spei = await createCharge(t, m.sandboxKey, methodCharge({ type: "spei" }, { currency: "MXN" }));
  assert.ok(isValidClabe(String(spei.paymentDetails!.clabe)));
  const pse = await createCharge(t, m.sandboxKey, methodCharge(
    { type: "pse", bankCode: "1007", personType: "natural", documentType: "CC", documentNumber: "1020304050" }, { currency: "COP", amount: 50000 }));
  assert.match(String(pse.paymentDetails!.redirectUrl), /pse/);
  for (const c of [boleto, of, qr, transfer, oxxo, spei, pse]) assert.equal(c.status, "pending");
});

test("methods refuse currencies and inputs they cannot take", async () => {
  const cases: [Record<string, unknown>, Record<string, unknown>, RegExp][] = [
    [{ type: "pix" }, { currency: "USD" }, /needs currency BRL/],
    [{ type: "oxxo" }, { currency: "BRL" }, /needs currency MXN/],
    [{ type: "pse" }, { currency: "COP", amount: 1000 }, /bankCode is required/],
    [{ type: "boleto", dueDate: "2020-01-01" }, {}, /dueDate/],
    [{ type: "pix", expiresIn: 10 }, {}, /expiresIn/],
  ];
  for (const [pm, extra, message] of cases) {
    const res = await post(t, m.sandboxKey, "/v1/charges", methodCharge(pm, extra));
    expectStatus(res, 422);
    assert.match(res.json().message, message);
  }
});

test("saved cards: the vault card charges the same table; another customer's card is refused", async () => {
  const cus = await post(t, m.sandboxKey, "/v1/customers", { name: "Ana", email: "ana@example.com", documentId: "123.456.789-09", documentType: "cpf" });
  expectStatus(cus, 201);
  const card = await post(t, m.sandboxKey, `/v1/customers/${cus.json().id}/cards`, {
    number: CARDS.declined, holderName: "ANA", expirationMonth: "11", expirationYear: "2031",
  });
  expectStatus(card, 201);
  const c = await createCharge(t, m.sandboxKey, {
    amount: 10, currency: "BRL", customer: { id: cus.json().id }, paymentMethod: { type: "credit_card", cardId: card.json().id },
  });
  assert.equal(c.status, "refused");
  assert.equal(c.reason, "card_declined");
  assert.equal(c.paymentDetails!.lastFour, "0002");
  const other = await post(t, m.sandboxKey, "/v1/customers", { name: "Bia", email: "bia@example.com", documentId: "52998224725", documentType: "cpf" });
  const wrong = await post(t, m.sandboxKey, "/v1/charges", {
    amount: 10, currency: "BRL", customer: { id: other.json().id }, paymentMethod: { type: "credit_card", cardId: card.json().id },
  });
  expectStatus(wrong, 422);
});

test("wallet tokens (Apple Pay / Google Pay) charge through the card table", async () => {
  const ok = await createCharge(t, m.sandboxKey, methodCharge({ type: "credit_card", wallet: { type: "apple_pay", token: `tok_sandbox_${CARDS.visa}` } }));
  assert.equal(ok.status, "paid");
  const got = await get(t, m.sandboxKey, `/v1/charges/${ok.id}`);
  assert.equal(got.json().paymentMethod.walletType, "apple_pay");
  const declined = await createCharge(t, m.sandboxKey, methodCharge({ type: "credit_card", wallet: { type: "google_pay", token: `tok_sandbox_${CARDS.declined}` } }));
  assert.equal(declined.status, "refused");
  const bad = await post(t, m.sandboxKey, "/v1/charges", methodCharge({ type: "credit_card", wallet: { type: "google_pay", token: "not-a-token" } }));
  expectStatus(bad, 422);
});

test("an inline customer is found again by e-mail instead of duplicated", async () => {
  const a = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { customer: { name: "Caio", email: "caio@example.com" } }));
  const b = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { customer: { name: "Caio S.", email: "CAIO@example.com" } }));
  const ca = (await get(t, m.sandboxKey, `/v1/charges/${a.id}`)).json().customerId;
  const cb = (await get(t, m.sandboxKey, `/v1/charges/${b.id}`)).json().customerId;
  assert.equal(ca, cb);
  const phone = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { customer: { name: "Sem Email", phone: "+5511912345678" } }));
  assert.equal(phone.status, "paid");
  const cp = (await get(t, m.sandboxKey, `/v1/charges/${phone.id}`)).json().customerId;
  assert.notEqual(cp, ca, "a phone-only customer is a new customer, not matched to another by nothing");
});

test("the sandbox bank pages behind Open Finance and PSE URLs let the payer approve or reject", async () => {
  const of = await createCharge(t, m.sandboxKey, methodCharge({ type: "open_finance" }));
  const url = new URL(String(of.paymentDetails!.authorizationUrl));
  const pageRes = await t.app.inject({ method: "GET", url: url.pathname });
  expectStatus(pageRes, 200);
  assert.match(pageRes.headers["content-type"] as string, /text\/html/);
  assert.match(pageRes.body, /50.5 BRL/);
  const approve = await t.app.inject({ method: "POST", url: url.pathname, payload: "decision=approve", headers: { "content-type": "application/x-www-form-urlencoded" } });
  expectStatus(approve, 200);
  assert.equal((await get(t, m.sandboxKey, `/v1/charges/${of.id}`)).json().status, "paid");
  const again = await t.app.inject({ method: "POST", url: url.pathname, payload: "decision=approve", headers: { "content-type": "application/x-www-form-urlencoded" } });
  expectStatus(again, 409);

  const pse = await createCharge(t, m.sandboxKey, methodCharge(
    { type: "pse", bankCode: "1007", personType: "natural", documentType: "CC", documentNumber: "1020304050" }, { currency: "COP", amount: 50000 }));
  const psePath = new URL(String(pse.paymentDetails!.redirectUrl)).pathname;
  const reject = await t.app.inject({ method: "POST", url: psePath, payload: "decision=reject", headers: { "content-type": "application/x-www-form-urlencoded" } });
  expectStatus(reject, 200);
  assert.equal((await get(t, m.sandboxKey, `/v1/charges/${pse.id}`)).json().status, "refused");
  // A card charge's id does not open a bank page.
  const card = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  expectStatus(await t.app.inject({ method: "GET", url: `/v1/sandbox/pse/${card.id}` }), 404);
});
