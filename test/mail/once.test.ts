import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pino from "pino";
import { sql } from "drizzle-orm";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { collectTasks, drainTasks, type Task } from "../../src/jobs/runner.js";
import { appsOn, buildTestApp, seedMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakeAccounts } from "../processors/live-shared.js";
import { startSmtpCatcher, type SmtpCatcher } from "./smtp-catcher.js";
// topology: skip: its one app stays in-process: two sets of services on one database in this process

// Each e-mail once per charge and kind across two workers running at the same time, a restart
// (a third set of services on the same database) and every reaction retried (as after a crash
// before a reaction was marked done): the emails' unique (charge, kind) decides, not the worker.

let smtp: SmtpCatcher;
let pagarme: FakePagarme;
let mercadopago: FakeMercadoPago;
let t: TestApp;
const silent = pino({ level: "silent" });
const mailTasks = (app: TestApp): Task[] =>
  collectTasks(Object.values(app.services.modules), silent).filter((task) => task.name === "events.react" || task.name === "mail.send");

before(async () => {
  [smtp, pagarme, mercadopago] = await Promise.all([startSmtpCatcher(), startFakePagarme(), startFakeMercadoPago()]);
  t = await buildTestApp({
    smtpUrl: smtp.url, mailFrom: "cobranca@feira.example", smtpCa: smtp.ca,
    live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"] }, timeoutMs: 5_000, processors: fakeAccounts(pagarme, mercadopago) },
  }, { noWorkerProcesses: "the test runs two workers' mail tasks itself", inProcessOnly: "two sets of services on one database in this process" });
});
after(async () => {
  await t.close();
  await Promise.all([smtp.close(), pagarme.close(), mercadopago.close()]);
});

test("each receipt once across two workers, a restart and retried reactions", { timeout: 120_000 }, async () => {
  const { productionKey } = await seedMerchant(t);
  const charges: string[] = [];
  for (let i = 0; i < 8; i++) {
    const c = await createCharge(t, productionKey, cardCharge(CARDS.visa, { customer: { name: `Buyer ${i}`, email: `buyer${i}@example.com`, document: { type: "cpf", id: "529.982.247-25" } } }));
    charges.push(c.id);
  }
  const others = appsOn(t.database);
  try {
    const second = await others.start(t.config);
    await Promise.all([drainTasks(mailTasks(t)), drainTasks(mailTasks(second)), drainTasks(mailTasks(t)), drainTasks(mailTasks(second))]);
    assert.equal(smtp.mails.length, 8, smtp.mails.map((m) => m.headers.get("message-id")).join(", "));
    // A restart, and every reaction run again as if no worker had recorded it done.
    const restarted = await others.start(t.config);
    await t.database.db.execute(sql`update event_reactions set status = 'pending', next_attempt_at = now()`);
    await Promise.all([drainTasks(mailTasks(restarted)), drainTasks(mailTasks(second))]);
  } finally {
    await others.close();
  }
  const ids = smtp.mails.map((m) => m.headers.get("message-id")).sort();
  assert.deepEqual(ids, charges.map((id) => `<${id}.receipt@feira.example>`).sort(), "one receipt per charge, no more");
});
