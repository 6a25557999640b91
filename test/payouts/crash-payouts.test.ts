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

// Payouts through Efí across kill -9 (FEIRA_FAULT) of the feira process, against the Efí fake:
// killed after "sending" was committed and before the PUT, then killed after Efí took the send
// and before its answer was recorded, then Efí losing an answer and answering 500 before the
// work. Every approval is retried as a client without an answer would. Then: 0 duplicate
// transfers (at most one send per payout at Efí), 0 lost (every approved payout has its send,
// with the same end-to-end id; every send pays an approved payout), 0 stuck (no payout left
// sending), and the ledger balances.

let efi: FakeEfi | undefined;
let pagarme: FakePagarme | undefined;
let store: Store | undefined;
after(async () => {
  await store?.close();
  await efi?.close();
  await pagarme?.close();
});

const PAYOUTS = 6;

/** Submerchants with live money and their payout requests, made in this process on the store's database. */
async function setUp(s: Store, env: Record<string, string>) {
  const first = await startFeira(s, { env });
  await first.stop();
  const apps = appsOn(await s.inspect());
  const t = await apps.start(testConfig({
    adminApiKey: s.adminKey, encryptionKey: s.env.ENCRYPTION_KEY, jwtSecret: s.env.JWT_SECRET,
    live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"] }, processors: { pagarme: { secretKey: pagarme!.secretKey, apiUrl: pagarme!.url } } },
  }));
  const master = await seedMaster(t, FEES);
  const payouts: { id: string; smId: string }[] = [];
  for (let i = 0; i < PAYOUTS / 2; i++) {
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
  efi = await startFakeEfi({ sendNeedsWebhook: false });
  pagarme = await startFakePagarme();
  store = await makeStore();
  const env = {
    PAYMENT_ROUTES: "credit_card=pagarme", PAGARME_SECRET_KEY: pagarme.secretKey, PAGARME_API_URL: pagarme.url, PAYOUT_PROVIDER: "efi",
    EFI_CLIENT_ID: efi.clientId, EFI_CLIENT_SECRET: efi.clientSecret, EFI_CERTIFICATE: efi.certs.client.pemFile, EFI_CA_FILE: efi.certs.caFile,
    EFI_PIX_KEY: efi.pixKey, EFI_API_URL: efi.url, PROCESSOR_TIMEOUT_MS: "2000",
  };
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
  let current = await startFeira(store, { env });
  await efi.setFault({ mode: "lost-answer", times: 1, match: "PUT /v3/gn/pix" });
  for (const p of payouts.slice(0, 3)) assert.ok([200, 202, 409].includes((await approveUntilAnswered(() => current, p.id)).status));
  await efi.setFault({ mode: "500", times: 1, match: "PUT /v3/gn/pix" });
  for (const p of payouts.slice(3)) assert.ok([200, 202, 409].includes((await approveUntilAnswered(() => current, p.id)).status));
  // And once more killed while the transfers settle.
  await current.kill();
  current = await startFeira(store, { env });

  // Efí finishes every send (auto mode); feira's worker reads them back.
  const deadline = Date.now() + 90_000;
  let open = payouts.length;
  while (open > 0 && Date.now() < deadline) {
    const res = await fetch(`${current.url}/v1/admin/payout-requests?environment=production&status=pending&size=100`, { headers: { authorization: basicAuth(store.adminKey) } });
    open = ((await res.json()) as { total: number }).total;
    if (open > 0) await sleep(250);
  }
  await current.stop();

  const db = (await store.inspect()).db;
  const rows = await queryRows<{ id: string; status: string; end_to_end_id: string | null; transfer_status: string | null; transfer_id: string | null }>(db,
    sql`select id, status, end_to_end_id, transfer_status, transfer_id from payout_requests where environment = 'production'`);
  const [ledger] = await queryRows<{ sum: number; unbalanced: number }>(db, sql`select
    (select coalesce(sum(amount), 0)::int from ledger_entries) as sum,
    (select count(*)::int from (select transaction_id from ledger_entries group by transaction_id having sum(amount) <> 0) u) as unbalanced`);
  const sends = [...efi.ctx.sends.values()];
  const sendsOf = (id: string) => sends.filter((s) => s.infoPagador === `Payout ${id}`);
  const report = {
    payouts: rows.length,
    byStatus: Object.fromEntries(["approved", "rejected", "pending"].map((st) => [st, rows.filter((r) => r.status === st).length])),
    sends: sends.length,
    duplicateTransfers: rows.reduce((n, r) => n + Math.max(0, sendsOf(r.id).length - 1), 0),
    lost: rows.filter((r) => r.status === "approved" && sendsOf(r.id)[0]?.endToEndId !== r.end_to_end_id).length
      + sends.filter((s) => !rows.some((r) => s.infoPagador === `Payout ${r.id}` && r.status === "approved")).length,
    stuck: rows.filter((r) => r.status === "pending" || r.transfer_status === "sending").length,
    ledgerSum: ledger!.sum,
    unbalanced: ledger!.unbalanced,
    faults: efi.core.requests.filter((r) => r.fault).map((r) => r.fault),
  };
  const context = JSON.stringify(report);
  assert.deepEqual([report.duplicateTransfers, report.lost, report.stuck, report.ledgerSum, report.unbalanced], [0, 0, 0, 0, 0], context);
  assert.deepEqual(report.byStatus, { approved: PAYOUTS, rejected: 0, pending: 0 }, context);
  assert.deepEqual(report.faults.sort(), ["500", "lost-answer"], context);
  console.log(`payout crash report: ${context}`);
});
