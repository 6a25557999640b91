import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible, launchChromium, skipWithoutChromium as skip } from "../helpers/browser.js";
import { basic, expectStatus } from "../helpers/app.js";
import { brokenWords } from "./broken-words.js";
import { freePort } from "../helpers/process.js";
import { shippingWorld, type ShippingWorld } from "../helpers/shipping.js";
import { seedDemo } from "../../src/web/panel/demo-seed.js";
import { screenshot } from "../helpers/screenshots.js";
import { tempDir } from "../helpers/temp-dirs.js";
// topology: skip: a browser's rendering: the same pages' HTTP tests run on the processes
// run-suite: waits: a browser

// The panel in a real browser (Debian's Chromium through playwright-core), for the demo merchant
// with its seeded history: sign in, refund, a webhook secret shown once, shipping connected
// through the fake Melhor Envio, a submerchant with documents, a plan and a subscription, a
// payment link, production and back, Portuguese, 390 px, sign out; axe-core on every page. It
// also takes the screenshots in docs/panel/ when asked (`npm run screenshots`).

let w: ShippingWorld;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let base: string;
let demo: { email: string; password: string; sandboxKey: string; merchantId: string };
let files: string;
const problems: string[] = [];

before(async () => {
  if (skip) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  w = await shippingWorld({}, { publicBaseUrl: base, panelUrl: `${base}/panel`, adminApiKey: undefined });
  demo = (await w.t.services.merchants.bootstrap({ demoMerchant: true })).demo!;
  await seedDemo(w.t.services, demo.merchantId, w.t.database.db);
  await w.t.app.listen({ port, host: "127.0.0.1" });
  files = tempDir("feira-panel-");
  browser = await launchChromium();
  // bypassCSP lets the test inject axe-core; the pages themselves run under their CSP.
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US", bypassCSP: true });
  page = await context.newPage();
  // A form refused answers 4xx with the page and its messages (the browser logs the status).
  page.on("console", (msg) => { if (msg.type() === "error" && !/status of 4(01|22|29)/.test(msg.text())) problems.push(msg.text()); });
  page.on("pageerror", (err) => problems.push(err.message));
  page.on("request", (req) => {
    const u = req.url();
    if (!u.startsWith(base) && !u.startsWith("data:") && !u.startsWith(w.fake.url)) problems.push(`third-party request ${u}`);
  });
});
after(async () => {
  if (skip) return;
  await browser?.close();
  await w?.close();
  if (files) rmSync(files, { recursive: true, force: true });
});

const axe = (label: string) => expectAccessible(page, label);

async function visit(url: string, shot?: string): Promise<void> {
  await page.goto(`${base}${url}`);
  await axe(url);
  if (shot) await screenshot(page, `docs/panel/${shot}.png`);
}

test("sign in with e-mail and password", { skip }, async () => {
  await page.goto(`${base}/`);
  assert.equal(new URL(page.url()).pathname, "/panel/login");
  await axe("login");
  await page.getByLabel("E-mail").fill(demo.email);
  await page.getByLabel("Password").fill("wrong password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("The e-mail or the password is wrong.").waitFor();
  await page.getByLabel("Password").fill(demo.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Home" }).waitFor();
  await page.getByText("Sandbox: test data").waitFor();
  await axe("home");
  await screenshot(page, "docs/panel/home.png");
});

test("refund a charge", { skip }, async () => {
  await visit("/panel/charges", "charges");
  await page.goto(`${base}/panel/charges?status=paid`);
  await page.locator("table a[href^='/panel/charges/ch_']").first().click();
  await page.getByRole("heading", { name: "Refund" }).waitFor();
  await axe("charge detail");
  await screenshot(page, "docs/panel/charge.png");
  await page.getByLabel(/Everything left/).check();
  await page.getByRole("button", { name: "Refund", exact: true }).click();
  await page.getByText(/^Refunded /).waitFor();
  assert.match(await page.locator(".facts").innerText(), /Refunded/);
});

test("create a webhook endpoint: its secret is shown once, not after a reload", { skip }, async () => {
  await visit("/panel/developers", "developers");
  await visit("/panel/developers/webhooks");
  await page.getByLabel("URL").fill("http://127.0.0.1:9/hooks");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  const secret = await page.locator(".secret-value").innerText();
  assert.match(secret, /^whsec_/);
  await axe("endpoint with secret");
  await page.reload();
  await page.getByRole("heading", { name: "Deliveries" }).waitFor();
  assert.equal(await page.locator(".secret-value").count(), 0);
  assert.ok(!(await page.content()).includes(secret));
  await visit("/panel/developers/events");
});

test("connect shipping through the fake Melhor Envio and land back on the panel", { skip }, async () => {
  const clientId = "panel-demo-app";
  w.fake.registerApp({ clientId, clientSecret: "panel-demo-secret", redirectUri: `${base}/v1/shipping-provider/oauth/callback` });
  await visit("/panel/shipping");
  await page.getByLabel("Client ID").fill(clientId);
  await page.getByLabel("Client secret").fill("panel-demo-secret");
  await page.getByRole("button", { name: "Save credentials" }).click();
  await page.getByRole("button", { name: "Connect Melhor Envio" }).click();
  await page.getByRole("link", { name: "Continue to Melhor Envio" }).click();
  await page.getByText("Melhor Envio is connected.").waitFor();
  assert.equal(new URL(page.url()).pathname, "/panel/shipping");
  await page.getByLabel("Origin CEP").fill("01310-100");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Shipping settings saved.").waitFor();
  await axe("shipping connected");
  await screenshot(page, "docs/panel/shipping.png");
});

test("register a submerchant and upload its documents", { skip }, async () => {
  await visit("/panel/connect", "connect");
  await page.getByLabel("Trade name").last().fill("Café Serra Azul");
  await page.getByLabel("Legal name").last().fill("Serra Azul Cafés LTDA");
  await page.getByLabel("CNPJ").last().fill("45.723.174/0001-10");
  await page.getByLabel("Contact e-mail").fill("contato@serra-azul.example.com");
  await page.getByLabel("Website").fill("https://serra-azul.example.com");
  await page.getByLabel("Average monthly revenue (BRL)").fill("30000");
  await page.getByLabel("Average order value (BRL)").fill("80");
  await page.getByLabel("What it sells").fill("Cafés especiais");
  await page.getByRole("button", { name: "Register", exact: true }).click();
  await page.getByText("Submerchant registered").waitFor();
  const pdf = path.join(files, "doc.pdf");
  writeFileSync(pdf, "%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n");
  for (const label of ["CNPJ card", "Articles of association", "Responsible's ID (front)", "Selfie with the ID"]) await page.getByLabel(label, { exact: true }).setInputFiles(pdf);
  await page.getByRole("button", { name: "Upload documents" }).click();
  await page.getByText("4 documents uploaded.").waitFor();
  await page.getByText("Every required document is on file.").waitFor();
  await axe("submerchant");
});

test("create a plan and see a subscription", { skip }, async () => {
  await visit("/panel/subscriptions", "subscriptions");
  await page.getByLabel("Name", { exact: true }).fill("Plano anual");
  await page.getByLabel("Price per period").fill("299,00");
  await page.getByLabel("Billed every").selectOption("year");
  await page.getByRole("button", { name: "Create plan" }).click();
  await page.getByText("Plan Plano anual created.").waitFor();
  const plans = await w.t.app.inject({ method: "GET", url: "/v1/plans", headers: { authorization: basic(demo.sandboxKey) } });
  const planId = plans.json().data.find((p: { name: string }) => p.name === "Plano anual").id;
  const sub = await w.t.app.inject({
    method: "POST", url: "/v1/subscriptions", headers: { authorization: basic(demo.sandboxKey), "idempotency-key": "panel-browser-sub" },
    payload: { planId, customer: { name: "Rafael Souza", email: "rafael@example.com", document: { type: "passport", id: "FS1234567" } }, paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "RAFAEL SOUZA", expirationMonth: "12", expirationYear: "2030", cvv: "123" } },
  });
  expectStatus(sub, 201);
  await page.goto(`${base}/panel/subscriptions?search=rafael`);
  await page.getByRole("link", { name: "Rafael Souza" }).click();
  await page.getByRole("heading", { name: "Invoices and attempts" }).waitFor();
  await axe("subscription");
});

test("create a payment link", { skip }, async () => {
  await visit("/panel/links", "links");
  await page.getByLabel("Title", { exact: true }).fill("Café em grãos 1 kg");
  await page.getByLabel("Product name").first().fill("Café em grãos 1 kg");
  await page.getByLabel("Unit price").first().fill("79,90");
  await page.getByLabel("Quantity").first().fill("1");
  await page.getByRole("button", { name: "Create link" }).click();
  await page.getByText("Payment link created.").waitFor();
  assert.match(await page.getByLabel("Link URL").inputValue(), /\/pay\/pl_/);
  await page.locator(".qr svg").waitFor();
  await axe("link");
});

test("switch to production and back", { skip }, async () => {
  await page.goto(`${base}/panel/charges`);
  await page.getByRole("button", { name: "Switch to production" }).click();
  await page.getByText("You are now looking at production data.").waitFor();
  assert.equal(await page.locator(".sandbox-banner").count(), 0);
  await page.getByText("No charges match.").waitFor();
  await axe("production");
  await page.getByRole("button", { name: "Switch to sandbox" }).click();
  await page.getByText("Sandbox: test data").waitFor();
});

test("Portuguese", { skip }, async () => {
  await page.goto(`${base}/panel`);
  await page.getByRole("button", { name: "Português" }).click();
  await page.getByRole("heading", { name: "Início" }).waitFor();
  assert.equal(await page.getAttribute("html", "lang"), "pt-BR");
  await page.getByRole("link", { name: "Cobranças" }).first().click();
  await axe("pt-BR charges");
  assert.match(await page.locator("table").innerText(), /R\$\s?\d/);
  await page.getByRole("button", { name: "English" }).click();
  await page.getByRole("heading", { name: "Charges" }).waitFor();
});

test("every page at 390 px, in English and Portuguese: no horizontal scroll, no word or amount broken in a table, and axe finds nothing serious", { skip }, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  const urls = ["/panel", "/panel/charges", "/panel/customers", "/panel/subscriptions", "/panel/links", "/panel/connect", "/panel/connect/payouts", "/panel/shipping", "/panel/developers", "/panel/developers/webhooks", "/panel/developers/events", "/panel/settings"];
  const list = async (path: string) => (await w.t.app.inject({ method: "GET", url: path, headers: { authorization: basic(demo.sandboxKey) } })).json().data as { id: string }[];
  const [customer] = await list("/v1/customers");
  const [refunded] = await list("/v1/charges?status=refunded");
  const [submerchant] = await list("/v1/submerchants");
  const [paid] = await list("/v1/charges?status=paid&paymentMethod=credit_card");
  const dispute = await w.t.app.inject({ method: "POST", url: `/v1/sandbox/charges/${paid!.id}/dispute`, headers: { authorization: basic(demo.sandboxKey) }, payload: {} });
  assert.equal(dispute.statusCode, 201, dispute.body);
  urls.push(`/panel/customers/${customer!.id}`, `/panel/charges/${refunded!.id}`, `/panel/connect/${submerchant!.id}`, "/panel/disputes", `/panel/disputes/${dispute.json().id}`);
  for (const lang of ["English", "Português"]) {
    await page.goto(`${base}/panel`);
    if (await page.getByRole("button", { name: lang }).count()) await page.getByRole("button", { name: lang }).click();
    for (const url of urls) {
      await visit(url, url === "/panel" && lang === "English" ? "home-390" : undefined);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${url} (${lang}) scrolls sideways by ${overflow}px at 390 px`);
      assert.deepEqual(await brokenWords(page), [], `${url} (${lang}): words broken across lines in a table cell`);
    }
  }
  await page.getByRole("button", { name: "English" }).click();
  await page.setViewportSize({ width: 1280, height: 900 });
});

test("keyboard: the skip link and the navigation are reachable with Tab", { skip }, async () => {
  await page.goto(`${base}/panel`);
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Skip to content");
  await page.keyboard.press("Enter");
  // Following the link is a navigation the page finishes after the key press returns: wait for it.
  await page.waitForURL(/#main$/);
  assert.match(page.url(), /#main$/);
});

test("sign out", { skip }, async () => {
  await page.goto(`${base}/panel`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByText("You are signed out.").waitFor();
  await page.goto(`${base}/panel/charges`);
  assert.equal(new URL(page.url()).pathname, "/panel/login");
  assert.deepEqual(problems, []);
});
