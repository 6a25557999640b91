import { after, test } from "node:test";
import assert from "node:assert/strict";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { queryRows, sql } from "../../src/db/client.js";
import { appsOn, testConfig } from "../helpers/app.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { START_LIMIT_MS, makeStore, postJson, sleep, startFeira, type Store } from "../helpers/feira-process.js";
import { activate, createSubmerchant, seedMaster } from "./helpers.js";
// run-suite: waits: feira as processes, killed at fault points and restarted

// A Pagar.me recipient across kill -9 (FEIRA_FAULT=account.after-open): the process dies after
// Pagar.me made the recipient and before feira recorded its answer; the client retries against
// a new process, which reads the recipient back by its code: exactly one recipient at Pagar.me.

let pagarme: FakePagarme | undefined;
let store: Store | undefined;
after(async () => {
  await store?.close();
  await pagarme?.close();
});

const BANK = { holderName: "Aurora Alimentos LTDA", holderDocument: "11222333000181", bank: "341", branch: "1234", account: "123456789", accountDigit: "0", type: "checking" };

test("killed between Pagar.me's answer and feira's commit, the retry finds the recipient: one recipient", { timeout: 3 * START_LIMIT_MS }, async () => {
  pagarme = await startFakePagarme();
  store = await makeStore();
  const env = { PAYMENT_ROUTES: "credit_card=pagarme", PAGARME_SECRET_KEY: pagarme.secretKey, PAGARME_API_URL: pagarme.url };
  const first = await startFeira(store, { env });
  await first.stop();
  // An active production submerchant, made in this process on the store's database.
  const apps = appsOn(await store.inspect());
  const t = await apps.start(testConfig({
    adminApiKey: store.adminKey, encryptionKey: store.env.ENCRYPTION_KEY, jwtSecret: store.env.JWT_SECRET,
    live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"] }, processors: { pagarme: { secretKey: pagarme.secretKey, apiUrl: pagarme.url } } },
  }));
  const master = await seedMaster(t);
  const sm = await createSubmerchant(t, master.productionKey);
  await activate(t, master.productionKey, sm.id);
  await apps.close();
  await store.release();

  const path = `/v1/submerchants/${sm.id}/provider-accounts`;
  const dying = await startFeira(store, { env: { ...env, FEIRA_FAULT: "account.after-open" } });
  assert.equal(await postJson(`${dying.url}${path}`, master.productionKey, { processor: "pagarme", bankAccount: BANK }), null);
  await dying.exited;
  assert.equal(dying.child.signalCode, "SIGKILL");
  assert.equal(pagarme.recipientsCreated(sm.id), 1, "Pagar.me made the recipient before the process died");

  const next = await startFeira(store, { env });
  let answer = null;
  for (let i = 0; i < 100 && !answer; i++) {
    answer = await postJson(`${next.url}${path}`, master.productionKey, { processor: "pagarme", bankAccount: BANK });
    if (!answer) await sleep(100);
  }
  assert.equal(answer?.status, 201, JSON.stringify(answer?.body));
  assert.equal(answer?.body.status, "active");
  await next.stop();
  assert.equal(pagarme.recipientsCreated(sm.id), 1, "the retry read it back instead of making a second");
  const db = (await store.inspect()).db;
  const rows = await queryRows<{ external_id: string; status: string }>(db, sql`select external_id, status from submerchant_provider_accounts where submerchant_id = ${sm.id}`);
  assert.deepEqual(rows, [{ external_id: [...pagarme.recipients.values()].find((r) => r.code === sm.id)!.id, status: "active" }]);
});
