// The provider side of the live crash run (bench/crash-live.ts): a fake of Pagar.me or Mercado
// Pago started as its own process (npm run fake:pagarme / fake:mercadopago, real HTTP), driven
// and read through its control API, and what feira needs to use it with production keys.
import { randomBytes } from "node:crypto";
import { freePort, startProcess, type ServerProcess } from "../test/helpers/process.js";

export type LiveProcessor = "pagarme" | "mercadopago";
export const LIVE_PROCESSORS: readonly LiveProcessor[] = ["pagarme", "mercadopago"];

/** One payment the fake holds: feira's charge id is its reference. */
export interface HeldPayment { reference: string | null; id: string | number; status: string; method: string }

/** What a payment's status says about money, on either side: taken, final without money, or still open. */
export type Fate = "paid" | "not_paid" | "open";

export interface FakeProcess {
  processor: LiveProcessor;
  /** The variables feira needs to send its production charges to this fake. */
  feiraEnv: Record<string, string>;
  held(): Promise<{ payments: HeldPayment[]; faults: Record<string, number> }>;
  /** A bank-side move of a payment (pay, fail): false when the fake refused it. */
  move(action: "pay" | "fail", id: string | number): Promise<boolean>;
  control(path: string, body: unknown): Promise<void>;
  /** The route of a payment's creation, for a fault aimed at it. */
  createRoute: string;
  fate(status: string): Fate;
  stop(): Promise<void>;
}

// Pagar.me charge statuses and Mercado Pago payment statuses (see docs/processors.md).
const PAGARME_FATES: Record<string, Fate> = {
  paid: "paid", overpaid: "paid", failed: "not_paid", canceled: "not_paid", chargedback: "not_paid", refunded: "not_paid",
};
const MERCADOPAGO_FATES: Record<string, Fate> = {
  approved: "paid", rejected: "not_paid", cancelled: "not_paid", refunded: "not_paid", charged_back: "not_paid",
};

/** Starts the fake; its webhooks go to `feiraUrl` (which may be down at times, as in production). */
export async function startFakeProcess(processor: LiveProcessor, feiraUrl: string, latencyMs: number): Promise<FakeProcess> {
  const [port, controlPort] = [await freePort(), await freePort()];
  const secret = randomBytes(12).toString("hex");
  const pagarme = processor === "pagarme";
  const prefix = pagarme ? "FAKE_PAGARME" : "FAKE_MERCADOPAGO";
  const credentials: Record<string, string> = pagarme
    ? { PAGARME_SECRET_KEY: `sk_${secret}` }
    : { MERCADOPAGO_ACCESS_TOKEN: `APP_USR-${secret}`, MERCADOPAGO_PUBLIC_KEY: `APP_USR-pub-${secret}`, MERCADOPAGO_WEBHOOK_SECRET: `whsec-${secret}` };
  const child: ServerProcess = startProcess(process.execPath, ["--import", "tsx", `test/helpers/fake-${processor}.ts`], {
    ...process.env, ...credentials,
    [`${prefix}_PORT`]: String(port), [`${prefix}_CONTROL_PORT`]: String(controlPort), FAKE_LATENCY_MS: String(latencyMs),
    [`${prefix}_WEBHOOK_URL`]: `${feiraUrl}/v1/processors/${processor}/webhooks`,
  });
  await child.waitFor(/control API on/);
  const apiUrl = pagarme ? `http://127.0.0.1:${port}/core/v5` : `http://127.0.0.1:${port}`;
  const controlUrl = `http://127.0.0.1:${controlPort}`;
  const post = (path: string, body: unknown) => fetch(`${controlUrl}${path}`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}),
  });
  const fates = pagarme ? PAGARME_FATES : MERCADOPAGO_FATES;
  return {
    processor,
    feiraEnv: {
      PAYMENT_PROCESSOR: processor, ...credentials,
      ...(pagarme ? { PAGARME_API_URL: apiUrl } : { MERCADOPAGO_API_URL: apiUrl }),
    },
    async held() {
      const res = await fetch(`${controlUrl}/__fake/state`);
      const body = (await res.json()) as { held: HeldPayment[]; faults: Record<string, number> };
      return { payments: body.held, faults: body.faults };
    },
    async move(action, id) {
      const res = await post(`/__fake/${action}/${id}`, {});
      await res.arrayBuffer();
      return res.status === 200;
    },
    async control(path, body) {
      const res = await post(path, body);
      if (res.status !== 200) throw new Error(`fake ${path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    },
    createRoute: pagarme ? "POST /orders" : "POST /v1/payments",
    fate: (status) => fates[status] ?? "open",
    async stop() {
      await child.stop(5_000);
    },
  };
}

/** The outcome a charge's body asks of the fake: an approved card, a declined one, or a Pix. */
export type ChargeKind = "approved" | "declined" | "pix";

// Pagar.me decides by card number (its simulator's cards); Mercado Pago by the holder's name.
export function chargeBody(processor: LiveProcessor, kind: ChargeKind, amount: number): Record<string, unknown> {
  const customer = { name: "Crash Cliente", email: "crash@example.com", phone: "+55 11 91234-5678", document: { type: "cpf", id: "529.982.247-25" } };
  if (kind === "pix") return { amount, currency: "BRL", customer, paymentMethod: { type: "pix" } };
  const card = processor === "pagarme"
    ? { number: kind === "approved" ? "4000000000000010" : "4000000000000028", holderName: "CRASH CLIENTE" }
    : { number: "4111111111111111", holderName: kind === "approved" ? "APRO" : "OTHE" };
  return { amount, currency: "BRL", customer, paymentMethod: { type: "credit_card", ...card, expirationMonth: "12", expirationYear: "2031", cvv: "123", installments: 1 } };
}

/** A feira charge status as a fate. */
export const feiraFate = (status: string): Fate =>
  status === "paid" ? "paid" : status === "refused" || status === "failed" ? "not_paid" : "open";
