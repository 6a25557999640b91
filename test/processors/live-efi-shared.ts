import assert from "node:assert/strict";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { efiIds } from "../../src/processors/efi/client.js";
import { buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
import { createCharge, methodCharge, post } from "../helpers/charges.js";
import { startFakeEfi, type FakeEfi } from "../helpers/fake-efi.js";
import { retryTakenOver } from "../helpers/feira-process.js";
import { freePort } from "../helpers/process.js";
import { pixCustomer } from "./live-shared.js";

// What the live Efí tests share: an app routing Pix to the Efí fake over mutual TLS, listening
// where PUBLIC_BASE_URL says (Efí probes the notice URL when it is registered), with its notice
// URL registered through the admin route.

export interface EfiWorld {
  t: TestApp;
  efi: FakeEfi;
  key: string;
  merchantId: string;
  close(): Promise<void>;
}

/** The fake's account as config.live.processors.efi takes it. */
export const efiAccount = (efi: FakeEfi) => ({
  clientId: efi.clientId, clientSecret: efi.clientSecret, certificate: efi.certs.client.pemFile, pixKey: efi.pixKey, apiUrl: efi.url, caFile: efi.certs.caFile,
  accountNumber: efi.ctx.account.conta, accountType: efi.ctx.account.tipoConta, accountBranch: efi.ctx.account.agencia,
});

/** A feira process's environment routing Pix to the Efí fake (the crash tests). */
export const efiProcessEnv = (efi: FakeEfi) => ({
  PAYMENT_ROUTES: "pix=efi", EFI_CLIENT_ID: efi.clientId, EFI_CLIENT_SECRET: efi.clientSecret, EFI_CERTIFICATE: efi.certs.client.pemFile,
  EFI_CA_FILE: efi.certs.caFile, EFI_PIX_KEY: efi.pixKey, EFI_API_URL: efi.url,
  // A dead process's claim on an Idempotency-Key is taken over a second after it lapses.
  IDEMPOTENCY_LEASE_MS: "1000",
});

type EfiWorldOptions = { register?: boolean; mandates?: boolean; routes?: Record<string, string[]>; processors?: Record<string, Record<string, string>> };

/**
 * `mandates`: Pix Automático routed to Efí too (`pix_automatico=efi`). `routes`/`processors`: other
 * processors' routes and accounts instead of `pix=efi` alone.
 */
export async function startEfiWorld(opts: EfiWorldOptions = {}): Promise<EfiWorld> {
  // The port is chosen free before the app is built (PUBLIC_BASE_URL names it), so another
  // process may take it before the listen: that start is closed and made again on a new port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEfiWorldOnce(opts);
    } catch (err) {
      if (attempt >= 3 || !/EADDRINUSE/.test(String(err))) throw err;
    }
  }
}

async function startEfiWorldOnce(opts: EfiWorldOptions): Promise<EfiWorld> {
  const efi = await startFakeEfi({ webhookRetries: 0 });
  const port = await freePort();
  const t = await buildTestApp({
    publicBaseUrl: `http://127.0.0.1:${port}`,
    live: {
      ...NO_LIVE_PROCESSORS, routes: opts.routes ?? { pix: ["efi"] }, processors: { ...opts.processors, efi: efiAccount(efi) }, timeoutMs: 10_000,
      ...(opts.mandates ? { mandateProvider: "efi" } : {}),
    },
  }, {
    noWorkerProcesses: "the test runs the reconciliation and expiry tasks by hand",
    // The topology's processes answer on a port of their own, not on PUBLIC_BASE_URL, which must
    // be known before the app is built and is where Efí probes the notice URL it registers.
    inProcessOnly: "Efí probes PUBLIC_BASE_URL at registration: the test's own listening app is that URL",
  });
  let m: Awaited<ReturnType<typeof seedMerchant>>;
  try {
    await t.app.listen({ port, host: "127.0.0.1" });
    if (opts.register !== false) expectStatus(await post(t, t.admin, "/v1/admin/processors/efi/webhook"), 200);
    m = await seedMerchant(t);
  } catch (err) {
    // A world that failed to start is closed here: its caller's after hook never gets it, and an
    // open server and fake would keep the test file's process alive.
    await t.close();
    await efi.close();
    throw err;
  }
  return {
    t, efi, key: m.productionKey, merchantId: m.id,
    async close() {
      await t.close();
      await efi.close();
    },
  };
}

/** A live Pix charge through Efí, with its txid (its cob at the fake). */
export async function efiPix(w: EfiWorld, extra: Record<string, unknown> = {}) {
  const c = await createCharge(w.t, w.key, methodCharge({ type: "pix" }, { customer: pixCustomer, ...extra }));
  return { ...c, txid: efiIds.txid(c.id) };
}

/** The fake's calls of a route, e.g. `GET /v2/cob/<txid>`. */
export const calls = (w: EfiWorld, route: string) => w.efi.core.requests.filter((r) => r.route === route).length;

/**
 * A crash test's retry on a restarted process (the same Idempotency-Key): the charge answered
 * pending under the txid the dead process's attempt used at Efí.
 */
export async function retriedPix(next: { url: string; stop(): Promise<void> }, key: string, body: unknown, headers: Record<string, string>, txid: string) {
  const answer = await retryTakenOver(`${next.url}/v1/charges`, key, body, headers);
  await next.stop();
  assert.equal(answer?.status, 201, JSON.stringify(answer?.body));
  const charge = answer!.body as { id: string; status: string; paymentDetails: { qrCode: string } };
  assert.equal(charge.status, "pending");
  assert.equal(efiIds.txid(charge.id), txid, "the retry kept the charge id, so the txid");
  return charge;
}
