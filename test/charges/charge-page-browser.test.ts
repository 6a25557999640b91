import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { cardCharge, CARDS, methodCharge, post } from "../helpers/charges.js";
import { expectAccessible as axe, launchChromium, skipWithoutChromium as skip } from "../helpers/browser.js";
import { freePort } from "../helpers/process.js";
// topology: skip: a browser's rendering: the same pages' HTTP tests run on the processes
// run-suite: waits: a browser

// The buyer's page of a charge in a real browser (Debian's Chromium through playwright-core):
// the Pix and boleto pages with their copy buttons, the receipt, English, the 404 page; axe-core
// on each, under the page's own CSP (only axe itself is let in), with no third-party request.

let t: TestApp;
let m: SeededMerchant;
let browser: Browser;
let context: BrowserContext;
let base: string;
const problems: string[] = [];

before(async () => {
  if (skip) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await buildTestApp({ publicBaseUrl: base });
  m = await seedMerchant(t, { name: "Cerâmica <Vila> Madalena" });
  // Under the 2x2 topology the API answers elsewhere: the pages are opened where it listens.
  base = await t.app.listen({ port, host: "127.0.0.1" });
  browser = await launchChromium();
  // bypassCSP lets the test inject axe-core; the pages themselves run under their CSP.
  context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: "pt-BR", bypassCSP: true });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
});
after(async () => {
  if (skip) return;
  await browser?.close();
  await t?.close();
});

async function pageUrlOf(body: unknown): Promise<{ id: string; pageUrl: string }> {
  const res = await post(t, m.sandboxKey, "/v1/charges", body);
  expectStatus(res, 201);
  return res.json();
}

async function open(url: string, extra: { locale?: string } = {}): Promise<Page> {
  const page = extra.locale
    ? await (await browser.newContext({ locale: extra.locale, bypassCSP: true })).newPage()
    : await context.newPage();
  page.on("console", (msg) => { if (msg.type() === "error" && !/status of 404/.test(msg.text())) problems.push(msg.text()); });
  page.on("pageerror", (err) => problems.push(err.message));
  page.on("request", (req) => { if (!req.url().startsWith(base) && !req.url().startsWith("data:")) problems.push(`third-party request ${req.url()}`); });
  const at = new URL(url);
  await page.goto(`${base}${at.pathname}${at.search}`);
  return page;
}

test("Pix: the QR code shows, the copy button copies the code and says so; paid, the page is the receipt", { skip }, async () => {
  const c = await pageUrlOf(methodCharge({ type: "pix" }));
  const page = await open(c.pageUrl);
  assert.equal(await page.title(), "Pagamento para Cerâmica <Vila> Madalena");
  assert.equal(await page.locator(".merchant").textContent(), "Cerâmica <Vila> Madalena");
  await page.getByRole("img", { name: "QR code do Pix" }).waitFor();
  const qr = await page.locator(".qr svg").boundingBox();
  assert.ok(qr && qr.width >= 200 && Math.abs(qr.width - qr.height) < 1, `the QR is drawn square and large enough to scan: ${JSON.stringify(qr)}`);
  const code = await page.getByLabel("Pix copia e cola").inputValue();
  assert.match(code, /^000201/);
  await axe(page, "Pix page");
  await page.getByRole("button", { name: "Copiar código" }).click();
  await page.locator("#pix-code-copied").getByText("Copiado.").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code);

  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`), 200);
  await page.reload();
  await page.getByRole("heading", { name: "Pagamento confirmado" }).waitFor();
  assert.match(await page.locator("#receipt-title + dl").innerText(), new RegExp(c.id));
  await axe(page, "receipt");
  assert.deepEqual(problems, []);
  await page.close();
});

test("boleto: the digitable line and its copy button; in English when the browser prefers it", { skip }, async () => {
  const c = await pageUrlOf(methodCharge({ type: "boleto" }));
  const page = await open(c.pageUrl);
  const line = await page.getByLabel("Linha digitável").inputValue();
  assert.match(line, /^\d{5}\.\d{5} /);
  await page.getByRole("button", { name: "Copiar linha" }).click();
  await page.locator("#boleto-line-copied").getByText("Copiado.").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), line);
  await axe(page, "boleto page");
  await page.close();

  const en = await open(c.pageUrl, { locale: "en-US" });
  await en.getByRole("heading", { name: "Waiting for your payment" }).waitFor();
  assert.equal(await en.locator("html").getAttribute("lang"), "en");
  await axe(en, "boleto page in English");
  await en.close();
  assert.deepEqual(problems, []);
});

test("a declined card's page and a wrong token's 404 page pass axe too", { skip }, async () => {
  const c = await pageUrlOf(cardCharge(CARDS.declined));
  const page = await open(c.pageUrl);
  await page.getByRole("heading", { name: "Esta cobrança não foi paga" }).waitFor();
  await axe(page, "declined card");
  const missing = await open(`${base}/r/${"x".repeat(43)}`);
  await missing.getByRole("heading", { name: "Página de pagamento indisponível" }).waitFor();
  await axe(missing, "404");
  assert.deepEqual(problems, []);
  await page.close();
  await missing.close();
});
