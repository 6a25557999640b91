import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pino from "pino";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { collectTasks, drainTasks, type Task } from "../../src/jobs/runner.js";
import { buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, get, methodCharge, post } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { until } from "../helpers/wait.js";
import { fakeAccounts } from "../processors/live-shared.js";
import { htmlPartOf, startSmtpCatcher, type SmtpCatcher } from "./smtp-catcher.js";

// E-mails to buyers over HTTP: the sandbox's outbox, the settings, and a production merchant's
// e-mails through a real SMTP exchange (STARTTLS, AUTH) with a local server.

let smtp: SmtpCatcher;
let pagarme: FakePagarme;
let mercadopago: FakeMercadoPago;
let t: TestApp;
let sandboxKey: string;
let liveKey: string;
let merchantName: string;

const silent = pino({ level: "silent" });
const mailTasks = (app: TestApp): Task[] =>
  collectTasks(Object.values(app.services.modules), silent).filter((task) => task.name === "events.react" || task.name === "mail.send");
const drain = (app: TestApp = t) => drainTasks(mailTasks(app));
const emailsOf = async (key: string, chargeId: string) => {
  const res = await get(t, key, `/v1/emails?chargeId=${chargeId}`);
  expectStatus(res, 200);
  return res.json().data as { id: string; kind: string; to: string; subject: string; status: string; sentAt: string | null }[];
};

before(async () => {
  [smtp, pagarme, mercadopago] = await Promise.all([startSmtpCatcher(), startFakePagarme(), startFakeMercadoPago()]);
  t = await buildTestApp({
    smtpUrl: smtp.url, mailFrom: "cobranca@feira.example", smtpCa: smtp.ca,
    live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"], boleto: ["pagarme"] }, timeoutMs: 5_000, processors: fakeAccounts(pagarme, mercadopago) },
  }, { noWorkerProcesses: "the test runs the mail tasks by hand and counts what each run sent" });
  // Merchant-typed text with markup and a line break: it must reach neither HTML nor a header.
  merchantName = "Loja <b>Boa</b>\r\nBcc: victim@evil.example";
  const m = await seedMerchant(t, { name: merchantName });
  sandboxKey = m.sandboxKey;
  liveKey = m.productionKey;
});
after(async () => {
  await t.close();
  await Promise.all([smtp.close(), pagarme.close(), mercadopago.close()]);
});

test("settings: defaults, a full replace, 422 out of range, and whether e-mails leave the machine", async () => {
  const first = await get(t, sandboxKey, "/v1/settings/notifications");
  expectStatus(first, 200);
  assert.deepEqual(first.json(), { receipts: true, reminders: { daysBefore: null, overdue: false }, language: "pt-BR", sending: false });
  const live = await get(t, liveKey, "/v1/settings/notifications");
  assert.equal(live.json().sending, true, "production with SMTP_URL and MAIL_FROM sends");
  const bad = await t.app.inject({ method: "PUT", url: "/v1/settings/notifications", headers: { authorization: `Basic ${Buffer.from(`${sandboxKey}:`).toString("base64")}` }, payload: { receipts: true, reminders: { daysBefore: 11, overdue: false }, language: "pt-BR" } });
  expectStatus(bad, 422);
  assert.match(bad.json().message, /daysBefore/);
  const noAuth = await t.app.inject({ method: "GET", url: "/v1/settings/notifications" });
  expectStatus(noAuth, 401);
});

test("sandbox: a boleto's payment instructions and its receipt are in the outbox, once each, and nothing reaches the SMTP server", async () => {
  const before = smtp.mails.length;
  const charge = await createCharge(t, sandboxKey, methodCharge({ type: "boleto" }));
  await drain();
  const paid = await post(t, sandboxKey, `/v1/sandbox/charges/${charge.id}/pay`);
  expectStatus(paid, 200);
  await drain();
  await drain();
  const list = await emailsOf(sandboxKey, charge.id);
  assert.deepEqual(list.map((e) => [e.kind, e.status, e.to]).sort(), [["payment_instructions", "sent", "maria@example.com"], ["receipt", "sent", "maria@example.com"]]);
  assert.ok(list.every((e) => e.sentAt && !/[\r\n]/.test(e.subject)), JSON.stringify(list));
  assert.equal(smtp.mails.length, before, "the sandbox sends nothing off the machine");
  // Another merchant's key sees none of them.
  const other = await seedMerchant(t);
  const theirs = await get(t, other.sandboxKey, `/v1/emails?chargeId=${charge.id}`);
  assert.deepEqual(theirs.json().data, []);
});

test("production: the receipt and the refund go over SMTP with STARTTLS, in the merchant's name, with no header injected and the typed text escaped", async () => {
  const put = await t.app.inject({
    method: "PUT", url: "/v1/settings/notifications", headers: { authorization: `Basic ${Buffer.from(`${liveKey}:`).toString("base64")}` },
    payload: { receipts: true, reminders: { daysBefore: null, overdue: false }, language: "en" },
  });
  expectStatus(put, 200);
  const charge = await createCharge(t, liveKey, cardCharge(CARDS.visa, { customer: { name: "Ana <script>x</script>", email: "ana@example.com", document: { type: "cpf", id: "529.982.247-25" } } }));
  assert.equal(charge.status, "paid");
  await drain();
  await until("the receipt reached the SMTP server", () => smtp.mails.some((m) => m.to.includes("ana@example.com")));
  const refund = await post(t, liveKey, `/v1/charges/${charge.id}/refund`, {});
  assert.ok(refund.statusCode < 300, refund.body);
  await drain();
  await until("the refund reached the SMTP server", () => smtp.mails.filter((m) => m.to.includes("ana@example.com")).length === 2);
  const mails = smtp.mails.filter((m) => m.to.includes("ana@example.com"));
  for (const m of mails) {
    assert.equal(m.secure, true, "STARTTLS was used");
    assert.deepEqual(m.to, ["ana@example.com"], "no recipient was added");
    assert.equal(m.from, "cobranca@feira.example");
    assert.ok(!m.headers.has("bcc"), "no Bcc header was injected");
    assert.match(m.headers.get("from")!, /Loja/);
    assert.match(m.headers.get("message-id")!, new RegExp(`^<${charge.id}\\.(receipt|refund)@feira\\.example>$`));
    const htmlPart = htmlPartOf(m.raw);
    assert.match(htmlPart, /Ana &lt;script&gt;x&lt;\/script&gt;/, "the buyer's name is escaped in the HTML");
    assert.ok(!htmlPart.includes("<script>") && !htmlPart.includes("<b>Boa</b>"), htmlPart);
    assert.match(htmlPart, /Loja &lt;b&gt;Boa&lt;\/b&gt;/, "the merchant's name is escaped in the HTML");
  }
  const ids = mails.map((m) => m.headers.get("message-id")).sort();
  assert.deepEqual(ids, [`<${charge.id}.receipt@feira.example>`, `<${charge.id}.refund@feira.example>`]);
  assert.match(mails.find((m) => m.headers.get("message-id")!.includes("receipt"))!.headers.get("subject")!, /^Receipt for your payment to/);
  const list = await emailsOf(liveKey, charge.id);
  assert.deepEqual(list.map((e) => [e.kind, e.status]).sort(), [["receipt", "sent"], ["refund", "sent"]]);
});

test("an SMTP failure never blocks a charge: the e-mail waits queued and is sent by a retry, once", async () => {
  smtp.failNext(2);
  const charge = await createCharge(t, liveKey, cardCharge(CARDS.visa, { customer: { name: "Bia", email: "bia@example.com", document: { type: "cpf", id: "529.982.247-25" } } }));
  assert.equal(charge.status, "paid", "the charge was paid whatever the SMTP server says");
  await drain();
  await until("the receipt was sent after the retries", async () => {
    await drain();
    return (await emailsOf(liveKey, charge.id)).some((e) => e.status === "sent");
  });
  assert.equal(smtp.mails.filter((m) => m.to.includes("bia@example.com")).length, 1);
});

test("an address that could carry a header is never written to one; Portuguese is the default language", async () => {
  const bad = await post(t, sandboxKey, "/v1/charges", methodCharge({ type: "boleto" }, { customer: { name: "Eve", email: "eve@example.com\r\nBcc: x@evil.example", document: { type: "cpf", id: "529.982.247-25" } } }));
  if (bad.statusCode === 201) {
    await drain();
    assert.deepEqual(await emailsOf(sandboxKey, bad.json().id), [], "no e-mail to an address with a line break");
  } else {
    expectStatus(bad, 422);
  }
  const charge = await createCharge(t, sandboxKey, methodCharge({ type: "boleto" }));
  await drain();
  const [e] = await emailsOf(sandboxKey, charge.id);
  assert.match(e!.subject, /^Como pagar sua cobrança de Loja <b>Boa<\/b> Bcc: victim@evil\.example$/);
});
