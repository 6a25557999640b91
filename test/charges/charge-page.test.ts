import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { charges } from "../../src/db/schema.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, get, methodCharge, post } from "../helpers/charges.js";

// The buyer's page of a charge, GET /r/{token} (issue 48 item 8): no key, the token names one
// charge; each method and state; 404 with no detail; merchant text escaped; the hosted pages' CSP.

let t: TestApp;
let m: SeededMerchant;
let evil: SeededMerchant;
const MERCHANT = `Loja <script>alert("x")</script> & "Filhos"`;

before(async () => {
  t = await buildTestApp({ publicBaseUrl: "https://pay.example.com" });
  m = await seedMerchant(t, { name: "Cerâmica Vila Madalena" });
  evil = await seedMerchant(t, { name: MERCHANT });
});
after(async () => t.close());

const TOKEN_URL = /^https:\/\/pay\.example\.com\/r\/([A-Za-z0-9_-]{43})$/;

/** Creates a charge and answers it with the path of its page (from POST's pageUrl). */
async function charged(body: unknown, key = m.sandboxKey) {
  const res = await post(t, key, "/v1/charges", body);
  expectStatus(res, 201);
  const created = res.json() as { id: string; status: string; pageUrl: string; paymentDetails: Record<string, unknown> | null };
  const token = TOKEN_URL.exec(created.pageUrl)?.[1];
  assert.ok(token, `pageUrl ${created.pageUrl}`);
  return { ...created, path: `/r/${token}` };
}

const open = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: "GET", url: path, headers });

function expectPage(res: LightMyRequestResponse, status = 200): string {
  expectStatus(res, status);
  assert.equal(res.headers["content-type"], "text/html; charset=utf-8");
  assert.equal(res.headers["cache-control"], "no-store");
  const csp = String(res.headers["content-security-policy"]);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.ok(!csp.includes("unsafe-inline"), csp);
  assert.equal(res.headers["x-frame-options"], "DENY");
  assert.equal(res.headers["referrer-policy"], "no-referrer");
  assert.ok(!/<script>/.test(res.body), "no inline script");
  return res.body;
}

/** Nothing of the buyer (name, e-mail, document) nor of the charge's metadata is on the page. */
function expectNoBuyerData(body: string) {
  for (const secret of ["Maria Silva", "maria@example.com", "529.982.247-25", "52998224725", "internal-order-7"]) {
    assert.ok(!body.includes(secret), `the page shows ${secret}`);
  }
}

test("a Pix charge answers pageUrl on POST and GET; its page, with no key, shows the merchant, the amount due, the QR and the copy-paste code, then the receipt once paid", async () => {
  const c = await charged(methodCharge({ type: "pix" }, { metadata: { order: "internal-order-7" } }));
  const read = (await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(read.pageUrl, c.pageUrl);

  const body = expectPage(await open(c.path));
  assert.match(body, /<html lang="pt-BR">/);
  assert.ok(body.includes("Aguardando o seu pagamento"));
  assert.ok(body.includes("Valor a pagar hoje"));
  assert.match(body, /R\$\s50,50/, "the amount due in reais");
  assert.ok(body.includes(String(c.paymentDetails!.qrCode)), "the copy-paste code");
  assert.match(body, /<figure class="qr"><div role="img" aria-label="QR code do Pix"><svg /);
  assert.match(body, /<button type="button" class="secondary" data-copy="pix-code"/);
  assert.match(body, /<script src="\/pay\/assets\/charge\.js" defer><\/script>/);
  assert.match(body, /Ambiente de testes/);
  expectNoBuyerData(body);

  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`), 200);
  const paid = expectPage(await open(c.path));
  assert.ok(paid.includes("Pagamento confirmado"));
  assert.ok(paid.includes("Valor pago"));
  assert.ok(paid.includes(c.id), "the payment code");
  assert.ok(!paid.includes(String(c.paymentDetails!.qrCode)), "no payment instructions once paid");
  assert.ok(!paid.includes("data-copy"));
  expectNoBuyerData(paid);
});

test("a boleto's page shows its line with a copy button and its due date; with the boleto's Pix, its QR and code too", async () => {
  const c = await charged(methodCharge({ type: "boleto" }));
  const body = expectPage(await open(c.path));
  assert.ok(body.includes(String(c.paymentDetails!.formattedLine)), "the digitable line");
  assert.ok(body.includes("Linha digitável"));
  assert.match(body, /data-copy="boleto-line"/);
  assert.ok(body.includes("Vencimento"));

  // The boleto with Pix (CONTRACT §13): the sandbox's boleto answers its BR Code as paymentDetails.pixQrCode.
  const code = String(c.paymentDetails!.pixQrCode);
  assert.match(code, /^000201/, "the boleto's Pix BR Code");
  const withPix = body;
  assert.ok(withPix.includes("Ou pague este boleto com Pix"));
  assert.match(withPix, /data-copy="boleto-pix-code"/);
  assert.ok(withPix.includes(code));
  assert.match(withPix, /<figure class="qr"><div role="img" aria-label="QR code do Pix"><svg /);
});

test("card charges: paid shows the receipt with the card's brand and last four; refused and expired say the charge was not paid; refunded says so with the amount", async () => {
  const card = await charged(cardCharge(CARDS.visa));
  const paid = expectPage(await open(card.path));
  assert.ok(paid.includes("Pagamento confirmado"));
  assert.ok(paid.includes("Cartão Visa •••• 1111"), paid);
  assert.ok(!paid.includes("411111"), "never the first six");
  expectNoBuyerData(paid);

  const refused = await charged(cardCharge(CARDS.declined));
  const no = expectPage(await open(refused.path));
  assert.ok(no.includes("Esta cobrança não foi paga"));
  assert.ok(no.includes("Recusado"));

  const pix = await charged(methodCharge({ type: "pix" }));
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${pix.id}/expire`), 200);
  const expired = expectPage(await open(pix.path));
  assert.ok(expired.includes("Expirado"));
  assert.ok(!expired.includes("data-copy"), "no way to pay an expired charge");

  expectStatus(await post(t, m.sandboxKey, `/v1/charges/${card.id}/refund`, {}), 201);
  const refunded = expectPage(await open(card.path));
  assert.ok(refunded.includes("Pagamento reembolsado"));
  assert.ok(refunded.includes("Reembolsado"));
});

test("merchant-typed text is escaped: the merchant's name in the page and its title", async () => {
  const c = await charged(methodCharge({ type: "pix" }), evil.sandboxKey);
  const body = expectPage(await open(c.path));
  assert.ok(!body.includes(MERCHANT), "the raw name never reaches the page");
  assert.ok(body.includes("Loja &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;Filhos&quot;"));
  assert.match(body, /<title>Pagamento para Loja &lt;script&gt;/);
});

test("the language: Portuguese by default, English when the browser prefers it or ?lang=en says so", async () => {
  const c = await charged(methodCharge({ type: "pix" }));
  const en = expectPage(await open(c.path, { "accept-language": "en-US,en;q=0.9" }));
  assert.match(en, /<html lang="en">/);
  assert.ok(en.includes("Waiting for your payment"));
  assert.ok(en.includes("Amount due today"));
  assert.ok(en.includes("R$50.50"), "money in the English format");
  assert.match(expectPage(await open(`${c.path}?lang=en`, { "accept-language": "pt-BR" })), /<html lang="en">/);
  assert.match(expectPage(await open(c.path, { "accept-language": "fr-FR" })), /<html lang="pt-BR">/);
  assert.match(expectPage(await open(`${c.path}?lang=pt-BR`, { "accept-language": "en" })), /Aguardando o seu pagamento/);
});

test("a wrong token is a 404 page that says nothing of why, the same for every wrong token; tokens are distinct and never the charge id", async () => {
  const c = await charged(methodCharge({ type: "pix" }));
  const token = c.path.slice(3);
  const flipped = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
  const wrong = [`/r/${flipped}`, `/r/${c.id}`, "/r/short", `/r/${"A".repeat(43)}`, `/r/${token}x`, "/r/%3Cscript%3E"];
  const bodies = new Set<string>();
  for (const path of wrong) {
    const body = expectPage(await open(path), 404);
    assert.ok(body.includes("Página de pagamento indisponível"), path);
    assert.ok(!body.includes(c.id) && !body.includes("Cerâmica"), "nothing of any charge");
    bodies.add(body);
  }
  assert.equal(bodies.size, 1, "one 404 page for every wrong token");
  // The path of another route under /r is no page either.
  expectStatus(await open(`${c.path}/receipt`), 404);

  const other = await charged(methodCharge({ type: "pix" }));
  assert.notEqual(other.path, c.path);
  assert.ok(!c.path.includes(c.id.slice(3)));
});

test("another merchant's charge has its own page: a token shows its own charge only, never one of the merchant opening it", async () => {
  const other = await seedMerchant(t, { name: "Outra Loja" });
  const theirs = await charged(methodCharge({ type: "pix" }, { amount: 77.7 }), other.sandboxKey);
  const body = expectPage(await open(theirs.path, { authorization: `Basic ${Buffer.from(`${m.sandboxKey}:`).toString("base64")}` }));
  assert.ok(body.includes("Outra Loja"));
  assert.ok(body.includes("77,70"));
  assert.ok(!body.includes("Cerâmica"));
});

test("charges made before the page existed have a token too: the column's default fills every row", async () => {
  const rows = await t.database.db.select({ id: charges.id, token: charges.pageToken }).from(charges);
  assert.ok(rows.length > 0);
  for (const r of rows) assert.match(r.token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(new Set(rows.map((r) => r.token)).size, rows.length);
});
