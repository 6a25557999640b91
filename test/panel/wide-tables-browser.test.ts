import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium, skipWithoutChromium as skip } from "../helpers/browser.js";
import { basic, buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { admin, decidedTransfer, FEES, sandboxPayout, seedMaster } from "../connect/helpers.js";
// topology: skip: a browser's rendering: the same pages' HTTP tests run on the processes
// run-suite: waits: a browser

// The desktop tables that held the most (disputes with two ids, payouts with an id, a
// submerchant id and an end-to-end id) fit their card at 1280 px in both languages: the card's
// table wrapper does not scroll sideways. Debian's Chromium through playwright-core.

let t: TestApp;
let m: SeededMerchant;
let browser: Browser;
let page: Page;
let base: string;
let smId: string;

const call = (method: "GET" | "POST", url: string, payload?: object) =>
  t.app.inject({ method, url, headers: { authorization: basic(m.sandboxKey), ...(method === "POST" ? { "idempotency-key": `k-${Math.random()}` } : {}) }, payload });

before(async () => {
  if (skip) return;
  t = await buildTestApp();
  m = await seedMaster(t, FEES);
  // Two payouts of one submerchant: one paid by a Pix transfer (its end-to-end id shown), one rejected.
  const paid = await sandboxPayout(t, m.sandboxKey, 5000);
  smId = paid.smId;
  expectStatus(await admin(t, "POST", `/v1/admin/payout-requests/${paid.id}/approve`), 202);
  await decidedTransfer(t, paid.id, smId);
  const second = await t.app.inject({ method: "POST", url: `/v1/submerchants/${smId}/payout-requests`, headers: { authorization: basic(paid.key), "idempotency-key": "second" }, payload: { amount: 1000 } });
  expectStatus(second, 201);
  expectStatus(await admin(t, "POST", `/v1/admin/payout-requests/${second.json().id}/reject`, { reason: "balance_reversed" }), 200);
  // Disputes of card charges of a buyer with a long name and e-mail.
  for (const reason of ["product_not_received", "fraudulent", "duplicate"]) {
    const charge = await call("POST", "/v1/charges", {
      amount: 1234.56, currency: "BRL", customer: { name: "Maria Aparecida dos Santos Oliveira", email: "maria.aparecida.santos.oliveira@example.com.br", document: { type: "cpf", id: "529.982.247-25" } },
      paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "MARIA A S OLIVEIRA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
    });
    expectStatus(charge, 201);
    expectStatus(await call("POST", `/v1/sandbox/charges/${charge.json().id}/dispute`, { reason }), 201);
  }
  base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US" })).newPage();
  await page.goto(`${base}/panel/login`);
  await page.getByLabel("E-mail").fill(m.email);
  await page.getByLabel("Password").fill(m.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Home" }).waitFor();
});
after(async () => {
  await browser?.close();
  await t?.close();
});

test("at 1280 px the disputes, payouts and submerchant tables fit their cards, in English and Portuguese", { skip }, async () => {
  for (const lang of ["English", "Português"]) {
    await page.goto(`${base}/panel`);
    if (await page.getByRole("button", { name: lang }).count()) await page.getByRole("button", { name: lang }).click();
    for (const url of ["/panel/disputes", "/panel/connect/payouts", `/panel/connect/${smId}`, "/panel/charges"]) {
      await page.goto(`${base}${url}`);
      const tables = await page.evaluate(() => [...document.querySelectorAll(".table-wrap")].map((w) => ({ scroll: w.scrollWidth, client: w.clientWidth })));
      assert.ok(tables.length > 0, `${url} (${lang}) has a table`);
      for (const [i, size] of tables.entries()) assert.ok(size.scroll <= size.client, `${url} (${lang}): table ${i + 1} is ${size.scroll - size.client}px wider than its card (${JSON.stringify(size)})`);
    }
  }
});
