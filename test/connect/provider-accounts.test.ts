import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { expectStatus } from "../helpers/app.js";
import { startEfiPayoutsWorld, type EfiPayoutsWorld } from "../helpers/efi-payouts-world.js";
import { activate, call, createSubmerchant, seedMaster } from "./helpers.js";

// A submerchant's accounts at processors (issue 47 item 2): the simulator's at once, a Pagar.me
// recipient under code = the submerchant id, the seller's Efí account; bank data checked before
// any call and never answered beyond four digits; only an active submerchant gets one.

let w: EfiPayoutsWorld;
before(async () => { w = await startEfiPayoutsWorld(); });
after(async () => { await w.close(); });

const BANK = { holderName: "Aurora Alimentos LTDA", holderDocument: "11222333000181", bank: "341", branch: "1234", account: "123456789", accountDigit: "0", type: "checking" };
const open = (key: string, smId: string, body: unknown) => call(w.t, "POST", `/v1/submerchants/${smId}/provider-accounts`, key, body);
const accountRows = async (smId: string) => queryRows<{ processor: string }>(w.t.database.db, sql`select processor from submerchant_provider_accounts where submerchant_id = ${smId}`);
const recipientCalls = () => w.pagarme.core.requests.filter((r) => /recipients/.test(r.route)).length;

async function activeSubmerchant(key: string) {
  const sm = await createSubmerchant(w.t, key);
  await activate(w.t, key, sm.id);
  return sm.id;
}

test("sandbox: active at once, listed on the submerchant; another master's submerchant is 404; a pending submerchant gets none", async () => {
  const key = w.master.sandboxKey;
  const smId = await activeSubmerchant(key);
  const res = await open(key, smId, { processor: "sandbox" });
  expectStatus(res, 201);
  assert.equal(res.json().status, "active");
  assert.equal(res.json().processor, "sandbox");
  const sm = await call(w.t, "GET", `/v1/submerchants/${smId}`, key);
  assert.deepEqual(sm.json().providerAccounts.map((a: { processor: string; status: string }) => [a.processor, a.status]), [["sandbox", "active"]]);
  const listed = await call(w.t, "GET", `/v1/submerchants?size=100`, key);
  assert.equal(listed.json().data.find((s: { id: string }) => s.id === smId).providerAccounts.length, 1);
  // pagarme in the sandbox: its charges go to the simulator.
  expectStatus(await open(key, smId, { processor: "pagarme", bankAccount: BANK }), 422);

  const other = await seedMaster(w.t);
  expectStatus(await open(other.sandboxKey, smId, { processor: "sandbox" }), 404);
  const pending = (await createSubmerchant(w.t, key)).id;
  const refused = await open(key, pending, { processor: "sandbox" });
  expectStatus(refused, 422);
  assert.equal(refused.json().code, "submerchant_not_active");
  assert.deepEqual(await accountRows(pending), []);
});

test("pagarme: a bad bank account is a 422 naming each field, before any call and with nothing written", async () => {
  const key = w.master.productionKey;
  const smId = await activeSubmerchant(key);
  const before = recipientCalls();
  for (const [field, bankAccount] of [
    ["bankAccount.bank", { ...BANK, bank: "34" }],
    ["bankAccount.accountDigit", { ...BANK, accountDigit: "" }],
    ["bankAccount.branch", { ...BANK, branch: "12a4" }],
    ["bankAccount.holderDocument", { ...BANK, holderDocument: "11222333000180" }],
    ["bankAccount.type", { ...BANK, type: "salary" }],
    ["bankAccount.branchDigit", { ...BANK, branchDigit: "12" }],
  ] as const) {
    const res = await open(key, smId, { processor: "pagarme", bankAccount });
    expectStatus(res, 422);
    assert.match(res.json().message, new RegExp(field.replace(".", "\\.")), field);
  }
  expectStatus(await open(key, smId, { processor: "pagarme" }), 422);
  expectStatus(await open(key, smId, { processor: "efi", account: "12-34" }), 422);
  expectStatus(await open(key, smId, { processor: "nope" }), 422);
  assert.equal(recipientCalls(), before, "no call reached Pagar.me");
  assert.deepEqual(await accountRows(smId), []);
});

test("pagarme: a recipient under code = the submerchant id, its status read back, a refusal shows Pagar.me's reason, bank data masked", async () => {
  const key = w.master.productionKey;
  const smId = await activeSubmerchant(key);
  const res = await open(key, smId, { processor: "pagarme", bankAccount: BANK });
  expectStatus(res, 201);
  const account = res.json();
  assert.equal(account.status, "active");
  assert.match(account.id, /^rp_/);
  assert.equal(w.pagarme.recipientsCreated(smId), 1);
  const recipient = w.pagarme.recipients.get(account.id)!;
  assert.equal(recipient.code, smId);
  assert.equal((recipient.default_bank_account as { account_number: string }).account_number, "123456789");
  assert.deepEqual(account.details, { bankAccount: "****6789", bank: "341", providerStatus: "active" });
  assert.ok(!JSON.stringify((await call(w.t, "GET", `/v1/submerchants/${smId}`, key)).json()).includes("123456789"), "the account number is never answered");
  // Again: the same recipient, read back.
  expectStatus(await open(key, smId, { processor: "pagarme", bankAccount: BANK }), 201);
  assert.equal(w.pagarme.recipientsCreated(smId), 1);
  // KYC refuses it at Pagar.me: GET reads the state back, with Pagar.me's reason.
  w.pagarme.setRecipientStatus(account.id, "refused", "Documento do titular divergente");
  const read = await call(w.t, "GET", `/v1/submerchants/${smId}/provider-accounts/pagarme`, key);
  expectStatus(read, 200);
  assert.equal(read.json().status, "refused");
  assert.equal(read.json().reason, "Documento do titular divergente");
  // A recipient still in Pagar.me's registration is pending until it is active.
  const second = await activeSubmerchant(key);
  w.pagarme.setInitialRecipientStatus("registration");
  const pending = await open(key, second, { processor: "pagarme", bankAccount: BANK });
  w.pagarme.setInitialRecipientStatus("active");
  assert.equal(pending.json().status, "pending");
  w.pagarme.setRecipientStatus(pending.json().id, "active");
  assert.equal((await call(w.t, "GET", `/v1/submerchants/${second}/provider-accounts/pagarme`, key)).json().status, "active");
  const listed = await call(w.t, "GET", `/v1/submerchants/${second}/provider-accounts`, key);
  assert.deepEqual(listed.json().data.map((a: { status: string }) => a.status), ["active"]);
});

test("pagarme: an answer lost after Pagar.me made the recipient is read back by code on the retry: one recipient", async () => {
  const key = w.master.productionKey;
  const smId = await activeSubmerchant(key);
  await w.pagarme.setFault({ mode: "lost-answer", times: 1, match: "POST /recipients" });
  const lost = await open(key, smId, { processor: "pagarme", bankAccount: BANK });
  assert.ok([503].includes(lost.statusCode), lost.body);
  assert.equal(w.pagarme.recipientsCreated(smId), 1, "Pagar.me made it");
  const retry = await open(key, smId, { processor: "pagarme", bankAccount: BANK });
  expectStatus(retry, 201);
  assert.equal(retry.json().status, "active");
  assert.equal(w.pagarme.recipientsCreated(smId), 1, "the retry found it instead of making a second");
});

test("efi: the seller's Efí account number, active once given, shown by its last four digits", async () => {
  const key = w.master.productionKey;
  const smId = await activeSubmerchant(key);
  const res = await open(key, smId, { processor: "efi", account: "87654321" });
  expectStatus(res, 201);
  assert.deepEqual([res.json().status, res.json().id], ["active", "****4321"]);
  const [row] = await queryRows<{ external_id: string }>(w.t.database.db, sql`select external_id from submerchant_provider_accounts where submerchant_id = ${smId}`);
  assert.equal(row!.external_id, "87654321", "the split needs the whole number");
});
