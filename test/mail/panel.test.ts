import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pino from "pino";
import { collectTasks, drainTasks } from "../../src/jobs/runner.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { createCharge, methodCharge } from "../helpers/charges.js";
import { signIn, type PanelClient } from "../panel/panel-client.js";

// The panel's Settings page: the buyer e-mail settings (the same as GET/PUT
// /v1/settings/notifications), whether e-mails leave the machine, and the sandbox's outbox.

let t: TestApp;
let m: SeededMerchant;
let c: PanelClient;
before(async () => {
  t = await buildTestApp({}, { noWorkerProcesses: "the test runs the mail tasks by hand" });
  m = await seedMerchant(t);
  c = await signIn(t, m.email, m.password);
});
after(async () => t?.close());

test("the panel shows the sandbox's outbox and saves the e-mail settings the API then reads; production says nothing is sent without SMTP", async () => {
  expectStatus(await c.post("/panel/environment", { environment: "sandbox", back: "/panel/settings" }), 303);
  const charge = await createCharge(t, m.sandboxKey, methodCharge({ type: "boleto" }));
  await drainTasks(collectTasks(Object.values(t.services.modules), pino({ level: "silent" })).filter((task) => task.name === "events.react" || task.name === "mail.send"));
  const page = await c.get("/panel/settings");
  expectStatus(page, 200);
  assert.match(page.body, /Sandbox: e-mails are never sent/);
  assert.match(page.body, new RegExp(`${charge.id}[\\s\\S]*Payment instructions[\\s\\S]*maria@example\\.com[\\s\\S]*Sent`));

  const saved = await c.post("/panel/settings/notifications", { receipts: "on", daysBefore: "3", overdue: "on", language: "en" });
  assert.equal(saved.statusCode, 303, saved.body);
  const api = await t.app.inject({ url: "/v1/settings/notifications", headers: { authorization: basic(m.sandboxKey) } });
  assert.deepEqual(api.json(), { receipts: true, reminders: { daysBefore: 3, overdue: true }, language: "en", sending: false });
  const refused = await c.post("/panel/settings/notifications", { daysBefore: "11", language: "pt-BR" });
  assert.equal(refused.statusCode, 422, refused.body);
  const unchanged = await t.app.inject({ url: "/v1/settings/notifications", headers: { authorization: basic(m.sandboxKey) } });
  assert.equal(unchanged.json().reminders.daysBefore, 3, "a refused form changes nothing");

  expectStatus(await c.post("/panel/environment", { environment: "production", back: "/panel/settings" }), 303);
  const live = await c.get("/panel/settings");
  assert.match(live.body, /No e-mail is sent: the operator has not set SMTP_URL and MAIL_FROM\./);
});
