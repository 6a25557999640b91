import { after, test } from "node:test";
import assert from "node:assert/strict";
import { queryRows, sql } from "../../src/db/client.js";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { activate, balanceOf, call, createSubmerchant, FEES, keyOf, seedMaster } from "../connect/helpers.js";
import { appsOn, expectStatus, testConfig } from "../helpers/app.js";
import { cardCharge, createCharge } from "../helpers/charges.js";
import { startFakeEfi, type FakeEfi } from "../helpers/fake-efi.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { START_LIMIT_MS, makeStore, postJson, sleep, startFeira, type FeiraProcess, type Store } from "../helpers/feira-process.js";
import { basicAuth } from "../helpers/process.js";
// run-suite: waits: feira as processes, killed at fault points and restarted

// Payouts through Efí across kill -9 (FEIRA_FAULT) of the feira process, against the Efí fake.
// First: killed after "sending" was committed and before the PUT, then after Efí took the send
// and before its answer was recorded, then Efí losing an answer and answering 500 before the
// work, sends one at a time. Then the probe's fault (issue 46): a first send that lands late,
// its process killed once its call timed out, the re-send refused by Efí (422) and that process
// killed between Efí's answer and feira's commit too. Every approval is retried as a client
// without an answer would. Then: 0 duplicate transfers (at most one send per payout at Efí), each
// payout as Efí has it (approved with the send's end-to-end id when Efí made it, never rejected
// while Efí paid it), 0 stuck, and the ledger balances.

let efi: FakeEfi | undefined;
let pagarme: FakePagarme | undefined;
let store: Store | undefined;
const worlds: { efi: FakeEfi; pagarme: FakePagarme; store: Store }[] = [];
after(async () => {
  for (const x of worlds) {
    await x.store.close();
    await x.efi.close();
    await x.pagarme.close();
  }
});

const PAYOUTS = 6;

/** A fresh Efí fake, Pagar.me fake and store, and the environment of feira processes on them. */
async function world(timeoutMs: number) {
  efi = await startFakeEfi({ sendNeedsWebhook: false });
  pagarme = await startFakePagarme();
  store = await makeStore();
  worlds.push({ efi, pagarme, store });
  const env = {
    PAYMENT_ROUTES: "credit_card=pagarme", PAGARME_SECRET_KEY: pagarme.secretKey, PAGARME_API_URL: pagarme.url, PAYOUT_PROVIDER: "efi",
    EFI_CLIENT_ID: efi.clientId, EFI_CLIENT_SECRET: efi.clientSecret, EFI_CERTIFICATE: efi.certs.client.pemFile, EFI_CA_FILE: efi.certs.caFile,
    EFI_PIX_KEY: efi.pixKey, EFI_API_URL: efi.url, PROCESSOR_TIMEOUT_MS: String(timeoutMs),
  };
  return { efi, store, env };
}

/** Submerchants with live money and their payout requests, made in this process on the store's database. */
async function setUp(s: Store, env: Record<string, string>, count = PAYOUTS) {
  const first = await startFeira(s, { env });
  await first.stop();
  const apps = appsOn(await s.inspect());
  const t = await apps.start(testConfig({
    adminApiKey: s.adminKey, encryptionKey: s.env.ENCRYPTION_KEY, jwtSecret: s.env.JWT_SECRET,
    live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"] }, processors: { pagarme: { secretKey: pagarme!.secretKey, apiUrl: pagarme!.url } } },
  }));
  const master = await seedMaster(t, FEES);
  const payouts: { id: string; smId: string }[] = [];
  for (let i = 0; i < count / 2; i++) {
    const sm = await createSubmerchant(t, master.productionKey);
    await activate(t, master.productionKey, sm.id);
    const key = await keyOf(t, master.productionKey, sm.id);
    assert.equal((await createCharge(t, key, cardCharge("4000000000000010", { amount: 300 }))).status, "paid");
    await t.services.ledger.settle({ dueBy: new Date(Date.now() + 400 * 86_400_000), environment: "production", owner: sm.id });
    assert.ok((await balanceOf(t, key)).available > 20_000);
    for (const amount of [7000, 9000]) {
      const p = await call(t, "POST", `/v1/submerchants/${sm.id}/payout-requests`, key, { amount });
      expectStatus(p, 201);
      payouts.push({ id: p.json().id, smId: sm.id });
    }
  }
  await apps.close();
  await s.release();
  return payouts;
}

/** An approval retried until feira answers (a client whose connection died with the process). */
async function approveUntilAnswered(p: () => FeiraProcess, id: string) {
  for (let i = 0; i < 200; i++) {
    const answer = await postJson(`${p().url}/v1/admin/payout-requests/${id}/approve`, store!.adminKey, {});
    if (answer) return answer;
    await sleep(100);
  }
  throw new Error(`no answer approving ${id}`);
}

test("payouts through Efí across kill -9 and lost or failed answers: 0 duplicate transfers, 0 lost, 0 stuck", { timeout: 5 * START_LIMIT_MS }, async () => {
  const { efi, store, env } = await world(2000);
  const payouts = await setUp(store, env);

  // 1. Killed after "sending" is committed, before the PUT: the approval gets no answer.
  const dying = await startFeira(store, { env: { ...env, FEIRA_FAULT: "payout.after-sending" } });
  assert.equal(await postJson(`${dying.url}/v1/admin/payout-requests/${payouts[0]!.id}/approve`, store.adminKey, {}), null);
  await dying.exited;
  assert.equal(dying.child.signalCode, "SIGKILL");
  assert.equal(efi.ctx.sends.size, 0, "nothing reached Efí");

  // 2. Killed after Efí took a send and before its answer is recorded: the worker's read-back of
  //    payout 0 finds nothing and sends it, or the approval of payout 1 sends; either dies there.
  //    The read-back may come before the start is over (it runs at once): it dies there.
  try {
    const second = await startFeira(store, { env: { ...env, FEIRA_FAULT: "payout.after-send" } });
    void postJson(`${second.url}/v1/admin/payout-requests/${payouts[1]!.id}/approve`, store.adminKey, {});
    await second.exited;
    assert.equal(second.child.signalCode, "SIGKILL");
  } catch (err) {
    if (!/feira exited while starting/.test(String(err))) throw err;
  }
  // The read-back of payout 0 and the approval of payout 1 may both reach Efí before the first
  // of them kills the process: one or two sends, never two of one payout.
  const taken = [...efi.ctx.sends.values()].map((s) => s.infoPagador);
  assert.ok(taken.length >= 1 && taken.length <= 2 && new Set(taken).size === taken.length, `Efí took one or two sends whose answers were never recorded: ${taken.join(", ")}`);

  // 3. No fault in feira; Efí loses one answer and breaks before the work once. Every approval is
  //    sent (again) by a client that may have had no answer (409: the read-back decided it already).
  //    One send at a time: the approvals queue, the worker sends them in turn, so each fault is set
  //    once the previous one was met.
  let current = await startFeira(store, { env });
  await efi.setFault({ mode: "lost-answer", times: 1, match: "PUT /v3/gn/pix" });
  for (const p of payouts) assert.ok([200, 202, 409].includes((await approveUntilAnswered(() => current, p.id)).status));
  await until(() => efi.core.requests.some((r) => r.fault === "lost-answer"), "the lost answer");
  await efi.setFault({ mode: "500", times: 1, match: "PUT /v3/gn/pix" });
  await until(() => efi.core.requests.some((r) => r.fault === "500"), "the 500");
  // And once more killed while the transfers settle.
  await current.kill();
  current = await startFeira(store, { env });

  // Efí finishes every send (auto mode); feira's worker reads them back.
  await settled(current, payouts.length);
  await current.stop();
  const report = await reportOf(store, efi);
  const context = JSON.stringify(report);
  assert.deepEqual([report.duplicateTransfers, report.unlikeEfi, report.stuck, report.ledgerSum, report.unbalanced], [0, 0, 0, 0, 0], context);
  assert.deepEqual(report.byStatus, { approved: PAYOUTS, rejected: 0, pending: 0 }, context);
  assert.deepEqual(report.faults.sort(), ["500", "lost-answer"], context);
  console.log(`payout crash report: ${context}`);
});

test("killed between Efí's answer and feira's commit while the first send lands late and its re-send is refused: one transfer, the payout as Efí has it", { timeout: 5 * START_LIMIT_MS }, async () => {
  const { efi, store, env } = await world(1000);
  const [late, next] = await setUp(store, env, 2);
  const idEnvio = late!.id.replace("_", "");
  const putsOf = () => efi.core.requests.filter((r) => r.route === `PUT /v3/gn/pix/${idEnvio}`).length;
  // The first send is held at Efí (it lands when the test says), so its call times out at 1 s.
  efi.setModes({ sendLandingMs: 600_000 });

  // 1. Killed once the send's call ended without an answer, before anything is recorded.
  const first = await startFeira(store, { env: { ...env, FEIRA_FAULT: "payout.after-send" } });
  assert.equal(await postJson(`${first.url}/v1/admin/payout-requests/${late!.id}/approve`, store.adminKey, {}), null);
  await first.exited;
  assert.equal(first.child.signalCode, "SIGKILL");
  // 2. Once its lease is over the worker finds no send (it has not landed) and sends again under
  //    the same idEnvio; Efí refuses it (422) and the process is killed between that answer and
  //    feira's commit.
  try {
    const second = await startFeira(store, { env: { ...env, FEIRA_FAULT: "payout.after-send" } });
    await second.exited;
    assert.equal(second.child.signalCode, "SIGKILL");
  } catch (err) {
    if (!/feira exited while starting/.test(String(err))) throw err;
  }
  assert.deepEqual([putsOf(), efi.ctx.sends.size], [2, 0], "the late send and its refused re-send; nothing made yet");
  // 3. Restarted without a fault, feira sends again once the lease is over and is refused again;
  //    only then does the first send land (REALIZADO). The payout must end as Efí has it: paid.
  const current = await startFeira(store, { env });
  await until(() => putsOf() === 3, "a third send, refused");
  assert.equal(typeof efi.landSend(idEnvio), "object");
  assert.ok([200, 202].includes((await approveUntilAnswered(() => current, next!.id)).status));
  await settled(current, 2);
  await current.stop();
  const report = await reportOf(store, efi);
  const context = JSON.stringify(report);
  assert.deepEqual([report.duplicateTransfers, report.unlikeEfi, report.stuck, report.ledgerSum, report.unbalanced], [0, 0, 0, 0, 0], context);
  assert.deepEqual([report.byStatus, report.sends, putsOf()], [{ approved: 2, rejected: 0, pending: 0 }, 2, 3], context);
  console.log(`payout late-landing crash report: ${context}`);
});

/** Waits for a condition of the fakes (the worker moves at its own pace). */
async function until(done: () => boolean, what: string) {
  const deadline = Date.now() + 120_000;
  while (!done()) {
    assert.ok(Date.now() < deadline, `never happened: ${what}`);
    await sleep(100);
  }
}

/** Waits until none of the store's `count` production payouts is pending. */
async function settled(p: FeiraProcess, count: number) {
  const deadline = Date.now() + 150_000;
  let open = count;
  while (open > 0 && Date.now() < deadline) {
    const res = await fetch(`${p.url}/v1/admin/payout-requests?environment=production&status=pending&size=100`, { headers: { authorization: basicAuth(store!.adminKey) } });
    open = ((await res.json()) as { total: number }).total;
    if (open > 0) await sleep(250);
  }
}

/** Each payout against Efí's sends, and the ledger, read once no process holds the store. */
async function reportOf(store: Store, efi: FakeEfi) {
  const db = (await store.inspect()).db;
  const rows = await queryRows<{ id: string; status: string; end_to_end_id: string | null; transfer_status: string | null; transfer_id: string | null }>(db,
    sql`select id, status, end_to_end_id, transfer_status, transfer_id from payout_requests where environment = 'production'`);
  const [ledger] = await queryRows<{ sum: number; unbalanced: number }>(db, sql`select
    (select coalesce(sum(amount), 0)::int from ledger_entries) as sum,
    (select count(*)::int from (select transaction_id from ledger_entries group by transaction_id having sum(amount) <> 0) u) as unbalanced`);
  const sends = [...efi.ctx.sends.values()];
  const sendOf = (id: string) => sends.filter((s) => s.infoPagador === `Payout ${id}`);
  // As Efí has it: approved with the send's end-to-end id when Efí made it (REALIZADO), rejected
  // when Efí did not (NAO_REALIZADO, or no send at all).
  const asEfi = (r: (typeof rows)[number]) => {
    const [send] = sendOf(r.id);
    return send?.status === "REALIZADO" ? r.status === "approved" && r.end_to_end_id === send.endToEndId : r.status === "rejected";
  };
  return {
    payouts: rows.length,
    byStatus: Object.fromEntries(["approved", "rejected", "pending"].map((st) => [st, rows.filter((r) => r.status === st).length])),
    sends: sends.length,
    duplicateTransfers: rows.reduce((n, r) => n + Math.max(0, sendOf(r.id).length - 1), 0),
    unlikeEfi: rows.filter((r) => !asEfi(r)).length + sends.filter((s) => !rows.some((r) => s.infoPagador === `Payout ${r.id}`)).length,
    stuck: rows.filter((r) => r.status === "pending" || r.transfer_status === "sending").length,
    ledgerSum: ledger!.sum,
    unbalanced: ledger!.unbalanced,
    faults: efi.core.requests.filter((r) => r.fault).map((r) => r.fault),
  };
}
