import assert from "node:assert/strict";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { activate, balanceOf, call, createSubmerchant, FEES, keyOf, seedMaster } from "../connect/helpers.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "./app.js";
import { cardCharge, createCharge } from "./charges.js";
import { startFakeEfi, type FakeEfi, type FakeEfiOptions } from "./fake-efi.js";
import { startFakePagarme, type FakePagarme } from "./fake-pagarme.js";

// Production payouts through Efí's Pix send against the Efí fake (mutual TLS, OAuth), with the
// submerchants funded by live card charges at the Pagar.me fake (no charge route names Efí:
// PAYOUT_PROVIDER alone makes its adapter).

export interface EfiPayoutsWorld {
  t: TestApp;
  efi: FakeEfi;
  pagarme: FakePagarme;
  master: SeededMerchant;
  close(): Promise<void>;
}

export const efiOptions = (efi: FakeEfi) => ({
  clientId: efi.clientId, clientSecret: efi.clientSecret, certificate: efi.certs.client.pemFile, pixKey: efi.pixKey, apiUrl: efi.url, caFile: efi.certs.caFile,
});

export async function startEfiPayoutsWorld(opts: { autoApprove?: boolean; fake?: FakeEfiOptions } = {}): Promise<EfiPayoutsWorld> {
  const efi = await startFakeEfi({ sendNeedsWebhook: false, sendMode: "manual", ...opts.fake });
  const pagarme = await startFakePagarme();
  const t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"] }, timeoutMs: 3_000,
      processors: { pagarme: { secretKey: pagarme.secretKey, apiUrl: pagarme.url }, efi: efiOptions(efi) },
      payoutProvider: "efi", payoutAutoApprove: opts.autoApprove === true,
    },
  });
  const master = await seedMaster(t, FEES);
  return {
    t, efi, pagarme, master,
    async close() {
      await t.close();
      await efi.close();
      await pagarme.close();
    },
  };
}

/** An active production submerchant funded by a paid, settled live card charge of `reais`. */
export async function liveSubmerchant(w: EfiPayoutsWorld, reais = 300) {
  const sm = await createSubmerchant(w.t, w.master.productionKey);
  await activate(w.t, w.master.productionKey, sm.id);
  const key = await keyOf(w.t, w.master.productionKey, sm.id);
  assert.equal((await createCharge(w.t, key, cardCharge("4000000000000010", { amount: reais }))).status, "paid");
  await w.t.services.ledger.settle({ dueBy: new Date(Date.now() + 400 * 86_400_000), environment: "production", owner: sm.id });
  return { id: sm.id, key, cnpj: sm.companyTaxId as string, available: (await balanceOf(w.t, key)).available };
}

export async function requestLivePayout(w: EfiPayoutsWorld, key: string, smId: string, amount: number) {
  const res = await call(w.t, "POST", `/v1/submerchants/${smId}/payout-requests`, key, { amount });
  expectStatus(res, 201);
  return res.json() as { id: string; status: string; netAmount: number; transfer: { status: string } | null };
}

/**
 * The Efí fake's Pix sends (PUT /v[23]/gn/pix/...) received so far, answered or not, less those
 * refused for their token (401: Efí did nothing, and the client sends once more with a new one).
 * Each process keeps its own token, so a process whose token a test expired meets that 401 on
 * its next call, whichever test makes it.
 */
export const sendCalls = (efi: FakeEfi) =>
  efi.core.requests.filter((r) => /^PUT \/v[23]\/gn\/pix\//.test(r.route) && r.status !== 401 && r.fault !== "401").length;
