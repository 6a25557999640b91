import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { expectAccessible, launchChromium, skipWithoutChromium as skip } from "../helpers/browser.js";
import { buildTestApp, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakeAccounts } from "../processors/live-shared.js";
import { activate, createSubmerchant, FEES, seedMaster } from "../connect/helpers.js";
// topology: skip: a browser's rendering: the same pages' HTTP tests run on the processes
// run-suite: waits: a browser

// The submerchant page's accounts at processors, in Debian's Chromium through playwright-core (bypassCSP
// lets the test inject axe-core; the pages run under their CSP):
// in production against the fake Pagar.me, a bad bank account is refused next to its field with
// nothing sent; a good one opens the recipient, shown with the bank's last four digits only; a
// recipient Pagar.me refused shows Pagar.me's reason; the last reconciliation is shown.

let pagarme: FakePagarme;
let mercadopago: FakeMercadoPago;
let t: TestApp;
let m: SeededMerchant;
let browser: Browser;
let page: Page;
let base: string;
let smId: string;

before(async () => {
  if (skip) return;
  [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  const accounts = fakeAccounts(pagarme, mercadopago);
  t = await buildTestApp({ live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"] }, processors: accounts, timeoutMs: 5_000 } });
  m = await seedMaster(t, FEES);
  smId = (await createSubmerchant(t, m.productionKey)).id;
  await activate(t, m.productionKey, smId);
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US", bypassCSP: true })).newPage();
  await page.goto(`${base}/panel/login`);
  await page.getByLabel("E-mail").fill(m.email);
  await page.getByLabel("Password").fill(m.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Home" }).waitFor();
  await page.getByRole("button", { name: "Switch to production" }).click();
  await page.getByText("You are now looking at production data.").waitFor();
});
after(async () => {
  await browser?.close();
  await t?.close();
  await Promise.all([pagarme?.close(), mercadopago?.close()]);
});

async function fillBank(bank: string) {
  await page.getByLabel("Account holder").fill("Aurora Alimentos LTDA");
  await page.getByLabel("Holder's CPF or CNPJ").fill("11222333000181");
  await page.getByLabel("Bank code (3 digits)").fill(bank);
  await page.getByLabel("Branch", { exact: true }).fill("1234");
  await page.getByLabel("Account number").fill("123456789");
  await page.getByLabel("Account digit").fill("0");
}

test("a bad bank account is refused at its field, nothing sent; a good one opens the recipient, shown masked; a refusal shows Pagar.me's reason; the reconciliation shows", { skip }, async () => {
  await page.goto(`${base}/panel/connect/${smId}`);
  await page.getByRole("heading", { name: "Accounts at processors" }).waitFor();
  await page.getByText("No account at a processor yet.").waitFor();
  await expectAccessible(page, "submerchant with no account");

  await fillBank("34");
  await page.getByRole("button", { name: "Open account" }).click();
  await page.getByText(/bankAccount\.bank must be a 3-digit bank code/).waitFor();
  assert.equal(pagarme.recipientsCreated(smId), 0, "Pagar.me never called");
  assert.equal(await page.getByLabel("Account number").inputValue(), "", "the account number is never written back");
  assert.equal(await page.getByLabel("Bank code (3 digits)").getAttribute("aria-invalid"), "true", "the error is at the bank field");

  await fillBank("341");
  await page.getByRole("button", { name: "Open account" }).click();
  await page.getByText("Account at pagarme: Active.").waitFor();
  assert.equal(pagarme.recipientsCreated(smId), 1);
  const html = await page.content();
  assert.ok(html.includes("****6789"), "the last four digits");
  assert.ok(!html.includes("123456789"), "never the whole account number");
  await page.getByText("Not yet reconciled").waitFor();

  const recipient = [...pagarme.recipients.values()].find((r) => r.code === smId)!;
  pagarme.setRecipientStatus(recipient.id, "refused", "Documento do titular divergente");
  await t.services.connect.reconciliations.runDue();
  // The page reads the recipient back from Pagar.me through the API's GET (the list shows the last state read).
  await t.app.inject({ method: "GET", url: `/v1/submerchants/${smId}/provider-accounts/pagarme`, headers: { authorization: `Basic ${Buffer.from(`${m.productionKey}:`).toString("base64")}` } });
  await page.goto(`${base}/panel/connect/${smId}`);
  await page.getByText("Documento do titular divergente").waitFor();
  await page.getByText("Refused", { exact: true }).waitFor();
  await page.getByText(/Matched on \d{4}-\d{2}-\d{2}/).waitFor();
  await expectAccessible(page, "submerchant with a refused recipient");
});
