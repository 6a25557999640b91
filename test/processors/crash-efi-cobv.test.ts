import { after, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { queryRows, sql } from "../../src/db/client.js";
import { addDays, calendarDate } from "../../src/lib/calendar.js";
import { methodCharge } from "../helpers/charges.js";
import { startFakeEfi, type FakeEfi } from "../helpers/fake-efi.js";
import { START_LIMIT_MS, createMerchant, makeStore, postJson, startFeira, type Store } from "../helpers/feira-process.js";
import { efiProcessEnv, retriedPix } from "./live-efi-shared.js";
// run-suite: waits: feira as processes, killed at fault points and restarted

// A Pix with a due date through Efí across kill -9 (FEIRA_FAULT=charge.after-authorize): the
// process dies after Efí made the cobv and answered, before feira committed the charge. The
// client retries with its Idempotency-Key against a new process, which finds the cobv under the
// txid derived from the same charge id: one cobv at Efí, one charge, the cobv's BR Code.

const customer = { name: "Maria Silva", email: "maria@example.com", document: { type: "cpf", id: "529.982.247-25" } };

let efi: FakeEfi | undefined;
let store: Store | undefined;
after(async () => {
  await store?.close();
  await efi?.close();
});

test("killed between Efí's answer and feira's commit, the retry answers the one cobv", { timeout: 3 * START_LIMIT_MS }, async () => {
  efi = await startFakeEfi({ webhookRetries: 0 });
  store = await makeStore();
  const env = efiProcessEnv(efi);
  const first = await startFeira(store, { env });
  const merchant = await createMerchant(first, store);
  await first.stop();

  const due = addDays(calendarDate(new Date(), "America/Sao_Paulo"), 3);
  const body = methodCharge({ type: "pix", dueDate: due, fine: { percent: 2 }, interest: { monthlyPercent: 1 } }, { customer });
  const headers = { "idempotency-key": randomUUID() };
  const dying = await startFeira(store, { env: { ...env, FEIRA_FAULT: "charge.after-authorize" } });
  assert.equal(await postJson(`${dying.url}/v1/charges`, merchant.productionKey, body, headers), null, "the process died before answering");
  await dying.exited;
  assert.equal(dying.child.signalCode, "SIGKILL");
  assert.equal(efi.cobvs.size, 1, "Efí made the cobv before the process died");
  const [txid, cobv] = [...efi.cobvs.entries()][0]!;
  const db = (await store.inspect()).db;
  const count = async () => (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from charges where environment = 'production'`))[0]!.n;
  assert.equal(await count(), 0, "nothing was committed");
  await store.release();

  const next = await startFeira(store, { env });
  const charge = await retriedPix(next, merchant.productionKey, body, headers, txid);
  assert.equal(efi.cobvs.size, 1, "one cobv at Efí");
  assert.equal(charge.paymentDetails.qrCode, cobv.pixCopiaECola, "the payer has that cobv's BR Code");
  const rows = await queryRows<{ psp_ref_id: string }>((await store.inspect()).db, sql`select psp_ref_id from charges where environment = 'production'`);
  assert.deepEqual(rows, [{ psp_ref_id: txid }]);
});
