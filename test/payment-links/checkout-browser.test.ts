import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium, skipWithoutChromium as skip } from "../helpers/browser.js";
import { basic, expectStatus, seedMerchant } from "../helpers/app.js";
import { screenshot } from "../helpers/screenshots.js";
import { call, checkoutLink, connectMerchant, shippingWorld, type ShippingWorld } from "../helpers/shipping.js";
// topology: skip: a browser's rendering: the same pages' HTTP tests run on the processes
// run-suite: waits: a browser

// The whole checkout in a real browser (Debian's Chromium driven by playwright-core): CEP, live
// freight from the fake Melhor Envio, card with installments, Pix with the sandbox payer, and
// the receipt. It also takes docs/checkout.png when asked (`npm run screenshots`).

let w: ShippingWorld;
let browser: Browser;
let base: string;
let key: string;
const problems: string[] = [];

before(async () => {
  if (skip) return;
  w = await shippingWorld();
  base = await w.t.app.listen({ port: 0, host: "127.0.0.1" });
  // A real-looking shop for docs/checkout.png.
  const { merchant } = await connectMerchant(w, { merchant: await seedMerchant(w.t, { name: "Cerâmica Vila Madalena" }) });
  key = basic(merchant.sandboxKey);
  browser = await launchChromium();
});
after(async () => {
  if (skip) return;
  await browser?.close();
  await w.close();
});

async function open(linkId: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, locale: "pt-BR" });
  page.on("console", (msg) => { if (msg.type() === "error") problems.push(msg.text()); });
  page.on("pageerror", (err) => problems.push(err.message));
  // Nothing leaves the origin: no third-party request is ever made.
  page.on("request", (req) => { if (!req.url().startsWith(base) && !req.url().startsWith("data:")) problems.push(`third-party request ${req.url()}`); });
  await page.goto(`${base}/pay/${linkId}`);
  return page;
}

async function fillBuyer(page: Page) {
  await page.getByLabel("Nome completo").fill("Maria Silva");
  await page.getByLabel("E-mail").fill("maria@example.com");
  await page.getByLabel("CPF").fill("529.982.247-25");
  await page.getByLabel("CEP").fill("20040-020");
  await page.getByLabel("Rua").fill("Av. Rio Branco");
  await page.getByLabel("Número", { exact: true }).fill("1");
  await page.getByLabel("Cidade").fill("Rio de Janeiro");
  await page.getByLabel("Estado").selectOption("RJ");
}

test("card: CEP, freight options, installments, receipt", { skip }, async () => {
  const link = (await call(w.t, key, "POST", "/v1/payment-links", checkoutLink({ title: "Caneca artesanal azul" }))).json();
  const page = await open(link.id);
  assert.equal(await page.title(), "Caneca artesanal azul · Cerâmica Vila Madalena");
  await fillBuyer(page);
  await page.getByRole("radio", { name: /SEDEX/ }).waitFor();
  assert.equal(await page.locator("#freight-status").textContent(), "2 opções de frete encontradas.");
  await page.getByRole("radio", { name: /SEDEX/ }).check();
  await page.waitForFunction(() => document.getElementById("total-amount")?.textContent?.includes("157,80"));
  await page.getByLabel("Número do cartão").fill("4111 1111 1111 1111");
  await page.getByLabel("Nome impresso no cartão").fill("MARIA SILVA");
  await page.getByLabel("Validade (MM/AAAA)").fill("12/2030");
  await page.getByLabel("CVV").fill("123");
  await page.getByLabel("Parcelamento").selectOption("3");
  await page.evaluate(() => { (document.activeElement as HTMLElement | null)?.blur(); window.scrollTo(0, 0); });
  await screenshot(page, "docs/checkout.png");
  await page.getByRole("button", { name: "Pagar" }).click();
  await page.locator("#receipt").waitFor({ state: "visible" });
  assert.match(await page.locator("#receipt-text").textContent() ?? "", /157,80/);
  const chargeId = (await page.locator("#receipt-id").textContent())!;
  const charge = (await call(w.t, key, "GET", `/v1/charges/${chargeId}`)).json();
  assert.equal(charge.status, "paid");
  assert.equal(charge.paymentMethod.installments, 3);
  assert.equal(charge.freight_details.serviceName, "SEDEX");
  assert.deepEqual(problems, []);
  await page.close();
});

test("Pix: QR code and copy-paste code, paid by the sandbox payer, the page sees it and shows the receipt", { skip }, async () => {
  const link = (await call(w.t, key, "POST", "/v1/payment-links", checkoutLink())).json();
  const page = await open(link.id);
  await fillBuyer(page);
  await page.getByRole("radio", { name: /PAC/ }).check();
  await page.getByRole("radio", { name: "Pix" }).check();
  assert.equal(await page.locator("#card-fields").isHidden(), true);
  await page.getByRole("button", { name: "Pagar" }).click();
  await page.locator("#pix-panel").waitFor({ state: "visible" });
  assert.match(await page.locator("#pix-qr").getAttribute("src") ?? "", /^data:image\/png;base64,/);
  const code = await page.locator("#pix-code").inputValue();
  assert.match(code, /^000201/);
  const payments = (await call(w.t, key, "GET", `/v1/payment-links/${link.id}/payments`)).json().data;
  assert.equal(payments.length, 1);
  expectStatus(await call(w.t, key, "POST", `/v1/sandbox/charges/${payments[0].id}/pay`), 200);
  await page.locator("#receipt").waitFor({ state: "visible", timeout: 60_000 });
  assert.equal(await page.locator("#receipt-id").textContent(), payments[0].id);
  assert.deepEqual(problems, []);
  await page.close();
});

test("an unknown link is a friendly 404 page; a validation error is announced, not sent", { skip }, async () => {
  const page = await open("pl_unknown");
  assert.match(await page.locator("h1").textContent() ?? "", /indisponível/);
  problems.length = 0; // the 404 document itself is logged by Chromium as a failed resource
  const link = (await call(w.t, key, "POST", "/v1/payment-links", checkoutLink({ freightMode: "free" }))).json();
  const form = await open(link.id);
  await form.getByLabel("CPF").fill("111.111.111-11");
  await form.getByRole("button", { name: "Pagar" }).click();
  assert.match(await form.locator("#cpf-error").textContent() ?? "", /CPF inválido/);
  assert.equal(await form.getByLabel("CPF").getAttribute("aria-invalid"), "true");
  assert.equal((await call(w.t, key, "GET", `/v1/payment-links/${link.id}/payments`)).json().data.length, 0);
  assert.deepEqual(problems, []);
  await form.close();
  await page.close();
});

test("field errors clear once fixed, in correct Portuguese; the card note hides for Pix; merchant text is escaped; JPY keeps its decimals", { skip }, async () => {
  const link = (await call(w.t, key, "POST", "/v1/payment-links", checkoutLink({ title: "Caneca artesanal <azul>" }))).json();
  const page = await open(link.id);
  assert.equal(await page.title(), "Caneca artesanal <azul> · Cerâmica Vila Madalena");
  await page.getByRole("button", { name: "Pagar" }).click();
  assert.equal(await page.locator("#street-error").textContent(), "Rua é obrigatória.");
  assert.equal(await page.locator("#city-error").textContent(), "Cidade é obrigatória.");
  await page.getByLabel("Rua").fill("Av. Paulista");
  assert.equal(await page.locator("#street-error").textContent(), "", "the error clears as soon as the field is fixed");
  assert.equal(await page.getByLabel("Rua").getAttribute("aria-invalid"), null);
  assert.ok(await page.locator("#card-note").isVisible());
  await page.getByRole("radio", { name: "Pix" }).check();
  assert.ok(!(await page.locator("#card-note").isVisible()), "the card reassurance hides for Pix");
  await page.close();

  const jpy = (await call(w.t, key, "POST", "/v1/payment-links", { title: "Chá verde", currency: "JPY", freightMode: "free", products: [{ title: "Chá verde", unitPrice: 1500, quantity: 1, physical: false }] })).json();
  const jp = await open(jpy.id);
  assert.match(await jp.locator("#total-amount").textContent() ?? "", /1\.500/);
  await jp.close();
});

test("installments the buyer pays: each plan shows its installment and total before paying, and the charge is of that total", { skip }, async () => {
  const own = await seedMerchant(w.t, { name: "Vidraria Aurora" });
  const ownKey = basic(own.sandboxKey);
  expectStatus(await call(w.t, ownKey, "PUT", "/v1/settings/installments", { maxInstallments: 6, interestFreeInstallments: 2, monthlyInterestPercent: 2.5 }), 200);
  const created = await call(w.t, ownKey, "POST", "/v1/payment-links", { title: "Vaso soprado", currency: "BRL", freightMode: "free", products: [{ title: "Vaso soprado", unitPrice: 200, quantity: 1, physical: false }] });
  expectStatus(created, 201);
  const page = await open(created.json().id);
  // R$ 200,00 at 2.5 % a month in 6: PMT 36.3099..., total 217.859... (computed apart).
  const option = (n: number) => page.locator(`#installments option[value="${n}"]`);
  await option(6).waitFor({ state: "attached" });
  assert.match(await option(1).textContent() ?? "", /^À vista: R\$\s200,00$/);
  assert.match(await option(2).textContent() ?? "", /^2x de R\$\s100,00 sem juros \(total R\$\s200,00\)$/);
  assert.match(await option(6).textContent() ?? "", /^6x de R\$\s36,31 com juros \(total R\$\s217,86\)$/);
  assert.equal(await page.locator("#installments option").count(), 6, "no more than the merchant's maximum");
  await page.getByLabel("Nome completo").fill("Maria Silva");
  await page.getByLabel("E-mail").fill("maria@example.com");
  await page.getByLabel("CPF").fill("529.982.247-25");
  await page.getByLabel("Número do cartão").fill("4111 1111 1111 1111");
  await page.getByLabel("Nome impresso no cartão").fill("MARIA SILVA");
  await page.getByLabel("Validade (MM/AAAA)").fill("12/2030");
  await page.getByLabel("CVV").fill("123");
  await page.getByLabel("Parcelamento").selectOption("6");
  await page.getByRole("button", { name: "Pagar" }).click();
  await page.locator("#receipt").waitFor({ state: "visible" });
  const charge = (await call(w.t, ownKey, "GET", `/v1/charges/${(await page.locator("#receipt-id").textContent())!}`)).json();
  assert.deepEqual([charge.status, charge.amount, charge.totalAmount, charge.installmentAmount, charge.paymentMethod.installments], ["paid", 200, 217.86, 36.31, 6]);
  assert.deepEqual(problems, []);
  await page.close();
});
