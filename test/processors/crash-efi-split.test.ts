import { after, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { queryRows, sql } from "../../src/db/client.js";
import { efiIds } from "../../src/processors/efi/client.js";
import { appsOn, expectStatus, testConfig } from "../helpers/app.js";
import { startFakeEfi, type FakeEfi } from "../helpers/fake-efi.js";
import { START_LIMIT_MS, makeStore, postJson, startFeira, type Store } from "../helpers/feira-process.js";
import { activate, call, createSubmerchant, FEES, seedMaster } from "../connect/helpers.js";
import { efiAccount, efiProcessEnv, retriedPix } from "./live-efi-shared.js";
import { pixCustomer } from "./live-shared.js";
// run-suite: waits: feira as processes, killed at fault points and restarted

// A provider-settled split Pix through Efí across kill -9 between the cob and its vínculo
// (FEIRA_FAULT=charge.before-split-link): the process dies after Efí made the split configuration
// and the cob, before the cob was linked to it. The client retries with its Idempotency-Key
// against a new process, whose router finds the cob under the txid derived from the same charge
// id and adopts it only once it is linked: one cob at Efí, linked to the charge's configuration,
// never one that would pay the whole amount into the operator's account.

let efi: FakeEfi | undefined;
let store: Store | undefined;
after(async () => {
  await store?.close();
  await efi?.close();
});

const ACCOUNT = "7700123";

test("killed between the cob and its vínculo, the retry links the one cob before answering its BR Code", { timeout: 3 * START_LIMIT_MS }, async () => {
  efi = await startFakeEfi({ webhookRetries: 0 });
  store = await makeStore();
  const env = efiProcessEnv(efi);
  const first = await startFeira(store, { env });
  await first.stop();
  // A master in provider settlement with a seller whose Efí account Efí knows, made in this
  // process on the store's database.
  const apps = appsOn(await store.inspect());
  const t = await apps.start(testConfig({
    adminApiKey: store.adminKey, encryptionKey: store.env.ENCRYPTION_KEY, jwtSecret: store.env.JWT_SECRET,
    live: { ...NO_LIVE_PROCESSORS, routes: { pix: ["efi"] }, processors: { efi: efiAccount(efi) } },
  }));
  const master = await seedMaster(t, FEES);
  const sm = await createSubmerchant(t, master.productionKey);
  await activate(t, master.productionKey, sm.id);
  expectStatus(await call(t, "POST", `/v1/submerchants/${sm.id}/provider-accounts`, master.productionKey, { processor: "efi", account: ACCOUNT }), 201);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.productionKey, { settlement: "provider" }), 200);
  await apps.close();
  await store.release();
  efi.addSplitAccount(ACCOUNT, sm.companyTaxId);

  const body = { amount: 100, currency: "BRL", customer: pixCustomer, paymentMethod: { type: "pix" }, split: [{ merchantId: sm.id, percentage: 30 }] };
  const headers = { "idempotency-key": randomUUID() };
  const dying = await startFeira(store, { env: { ...env, FEIRA_FAULT: "charge.before-split-link" } });
  assert.equal(await postJson(`${dying.url}/v1/charges`, master.productionKey, body, headers), null, "the process died before answering");
  await dying.exited;
  assert.equal(dying.child.signalCode, "SIGKILL");
  assert.equal(efi.ctx.cobs.size, 1, "Efí made the cob before the process died");
  const [txid, cob] = [...efi.ctx.cobs.entries()][0]!;
  assert.equal(efi.splitOf(txid), undefined, "and the cob is not linked yet");

  const next = await startFeira(store, { env });
  const charge = await retriedPix(next, master.productionKey, body, headers, txid);
  assert.equal(efi.ctx.cobs.size, 1, "one cob at Efí");
  assert.equal(efi.splitOf(txid)?.id, efiIds.splitConfig(charge.id), "linked to the charge's split configuration");
  assert.deepEqual(efi.splitOf(txid)?.split.repasses.map((r) => [r.favorecido.conta, r.valor]), [[ACCOUNT, "29.70"]]);
  const configPuts = efi.core.requests.filter((r) => r.route === `PUT /v2/gn/split/config/${efiIds.splitConfig(charge.id)}`).length;
  assert.equal(configPuts, 1, "the configuration was read back, not made again");
  assert.equal(charge.paymentDetails.qrCode, cob.pixCopiaECola, "the payer has that cob's BR Code");
  const rows = await queryRows<{ psp_ref_id: string; settlement: string }>((await store.inspect()).db, sql`select psp_ref_id, settlement from charges where environment = 'production'`);
  assert.deepEqual(rows, [{ psp_ref_id: txid, settlement: "provider" }]);
});
