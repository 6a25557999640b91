import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pino from "pino";
import { collectTasks, drainTasks } from "../../src/jobs/runner.js";
import { addDays, calendarDate } from "../../src/lib/calendar.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
import { createCharge, get, methodCharge, post } from "../helpers/charges.js";

// The time-driven e-mails on the sandbox's test clock: a reminder `daysBefore` the boleto's due
// date and the overdue notice the day after, each once however often the clock moves and the
// task runs; none for a paid charge, none when the settings ask for none.

let t: TestApp;
let key: string;
const silent = pino({ level: "silent" });
const drain = () => drainTasks(collectTasks(Object.values(t.services.modules), silent)
  .filter((task) => ["events.react", "mail.send", "mail.remind"].includes(task.name)));
const kinds = async (chargeId: string) => {
  const res = await get(t, key, `/v1/emails?chargeId=${chargeId}`);
  expectStatus(res, 200);
  return (res.json().data as { kind: string }[]).map((e) => e.kind).sort();
};
const advance = async (days: number) => expectStatus(await post(t, key, "/v1/sandbox/clock/advance", { days }), 200);

before(async () => {
  t = await buildTestApp({}, { noWorkerProcesses: "the test runs the mail tasks by hand between clock moves" });
  key = (await seedMerchant(t)).sandboxKey;
});
after(() => t.close());

test("a reminder daysBefore the due date and the overdue notice the day after, once each, on the test clock", async () => {
  const put = await t.app.inject({
    method: "PUT", url: "/v1/settings/notifications", headers: { authorization: basic(key) },
    payload: { receipts: true, reminders: { daysBefore: 2, overdue: true }, language: "en" },
  });
  expectStatus(put, 200);
  // Brasília's day, where the reminders count (not UTC's: from 21:00 in Brasília they differ).
  const today = calendarDate(new Date(), "America/Sao_Paulo");
  const dueDate = addDays(today, 6);
  const charge = await createCharge(t, key, methodCharge({ type: "boleto", dueDate }));
  const paidOne = await createCharge(t, key, methodCharge({ type: "boleto", dueDate }));
  expectStatus(await post(t, key, `/v1/sandbox/charges/${paidOne.id}/pay`), 200);
  await drain();
  assert.deepEqual(await kinds(charge.id), ["payment_instructions"]);
  await advance(3); // due in 3 days: not yet
  await drain();
  assert.deepEqual(await kinds(charge.id), ["payment_instructions"]);
  await advance(1); // due in 2 days: the reminder, queued by the advance itself
  assert.deepEqual(await kinds(charge.id), ["payment_instructions", "reminder"]);
  await advance(1);
  await drain();
  assert.deepEqual(await kinds(charge.id), ["payment_instructions", "reminder"], "one reminder, however often it runs");
  await advance(2); // the day after the due date
  await drain();
  await drain();
  assert.deepEqual(await kinds(charge.id), ["overdue", "payment_instructions", "reminder"]);
  const res = await get(t, key, `/v1/emails?chargeId=${charge.id}`);
  const overdue = (res.json().data as { kind: string; subject: string; status: string }[]).find((e) => e.kind === "overdue")!;
  assert.equal(overdue.status, "sent");
  assert.match(overdue.subject, /is overdue$/);
  assert.deepEqual(await kinds(paidOne.id), ["payment_instructions", "receipt"], "a paid charge is neither reminded nor overdue");
});
