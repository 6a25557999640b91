import { and, eq, sql } from "drizzle-orm";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { queryRows } from "../../src/db/client.js";
import { events, ledgerEntries } from "../../src/db/schema.js";
import { findCharge } from "../../src/modules/charges/charges.repo.js";
import { buildTestApp, seedMerchant, type TestApp } from "../helpers/app.js";
import { get } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";

// What the live dispute and expiry tests share: an app listening for both fakes' notices (cards
// and boletos through Pagar.me, Pix through Mercado Pago), and reads of its database.

export interface LiveWorld {
  t: TestApp;
  pagarme: FakePagarme;
  mercadopago: FakeMercadoPago;
  key: string;
  merchantId: string;
  close(): Promise<void>;
}

/** The accounts of both fakes, as config.live.processors takes them. */
export const fakeAccounts = (pagarme: FakePagarme, mercadopago: FakeMercadoPago) => ({
  pagarme: { secretKey: pagarme.secretKey, apiUrl: pagarme.url },
  mercadopago: { accessToken: mercadopago.accessToken, webhookSecret: mercadopago.webhookSecret, publicKey: mercadopago.publicKey, apiUrl: mercadopago.url },
});

/** An app whose production charges go to the fakes by `routes`, and a merchant's production key. */
export async function fakesApp(pagarme: FakePagarme, mercadopago: FakeMercadoPago, routes: Record<string, string[]>): Promise<{ t: TestApp; key: string }> {
  const t = await buildTestApp({ live: { ...NO_LIVE_PROCESSORS, routes, timeoutMs: 5_000, processors: fakeAccounts(pagarme, mercadopago) } });
  return { t, key: (await seedMerchant(t)).productionKey };
}

export const pixCustomer = { name: "Maria Silva", email: "maria@example.com", phone: "+55 11 91234-5678", document: { type: "cpf", id: "529.982.247-25" } };

/** Cards and boletos through Pagar.me, Pix through Mercado Pago, unless `routes` says otherwise. */
export async function startLiveWorld(routes: Record<string, string[]> = { pix: ["mercadopago"], boleto: ["pagarme"], credit_card: ["pagarme"] }): Promise<LiveWorld> {
  const [pagarme, mercadopago] = await Promise.all([startFakePagarme({ webhookRetries: 0 }), startFakeMercadoPago({ webhookRetries: 0 })]);
  const t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes,
      processors: fakeAccounts(pagarme, mercadopago),
      timeoutMs: 5_000,
    },
  }, { noWorkerProcesses: "the test runs the reconciliation and expiry tasks by hand" });
  const base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  mercadopago.setWebhookUrl(`${base}/v1/processors/mercadopago/webhooks`);
  pagarme.setWebhookUrl(`${base}/v1/processors/pagarme/webhooks`);
  const m = await seedMerchant(t);
  return {
    t, pagarme, mercadopago, key: m.productionKey, merchantId: m.id,
    async close() {
      await t.close();
      await Promise.all([pagarme.close(), mercadopago.close()]);
    },
  };
}

/** What the reads below need of a world: its app and its merchant (the Efí tests' world too). */
type AppOf = Pick<LiveWorld, "t" | "merchantId">;

export const chargeRow = async (w: AppOf, id: string) => (await findCharge(w.t.database.db, { merchantId: w.merchantId, environment: "production" }, id))!;

export const runTask = (w: Pick<LiveWorld, "t">, name: string) => w.t.services.modules.charges.tasks.find((k) => k.name === name)!.run();

export async function eventCount(w: Pick<LiveWorld, "t">, id: string, type: string): Promise<number> {
  const [row] = await w.t.database.db.select({ n: sql<string>`count(*)` }).from(events).where(and(eq(events.objectId, id), eq(events.type, type)));
  return Number(row!.n);
}

/** Every ledger entry a charge caused (its payment, refunds, chargeback, disputes, late payment), summed per owner and account. */
export async function ledgerOf(w: Pick<LiveWorld, "t">, chargeId: string): Promise<Record<string, number>> {
  const rows = await queryRows<{ owner: string; account: string; amount: string }>(w.t.database.db, sql`
    select e.owner, e.account, sum(e.amount)::text as amount, count(*)::text as n from ${ledgerEntries} e
    where e.type <> 'settlement' and (e.source_id = ${chargeId} or e.source_id in (select id from refunds where charge_id = ${chargeId})
      or e.source_id in (select id from disputes where charge_id = ${chargeId}))
    group by e.owner, e.account`);
  const out: Record<string, number> = {};
  for (const r of rows) {
    out[`${r.owner === "platform" ? "platform" : "merchant"}.${r.account}`] = Number(r.amount);
  }
  return out;
}

/** How many ledger transactions of `type` a charge has. */
export async function ledgerTransactions(w: Pick<LiveWorld, "t">, chargeId: string, type: string): Promise<number> {
  const [row] = await queryRows<{ n: string }>(w.t.database.db, sql`select count(*)::text as n from ledger_transactions where source_id = ${chargeId} and type = ${type}`);
  return Number(row!.n);
}

/** How many ledger transactions of `type` (dispute, dispute_won) a charge's disputes posted. */
export async function disputeTransactions(w: Pick<LiveWorld, "t">, chargeId: string, type = "dispute"): Promise<number> {
  const [row] = await queryRows<{ n: string }>(w.t.database.db, sql`
    select count(*)::text as n from ledger_transactions where type = ${type} and source_id in (select id from disputes where charge_id = ${chargeId})`);
  return Number(row!.n);
}

/** What a provider's dispute of a charge left, to compare with what once looks like. */
export async function disputeTrail(w: Pick<LiveWorld, "t">, chargeId: string, disputeId: string) {
  return {
    created: await eventCount(w, disputeId, "charge.dispute.created"), closed: await eventCount(w, disputeId, "charge.dispute.closed"),
    disputed: await eventCount(w, chargeId, "charge.disputed"), refunded: await eventCount(w, chargeId, "charge.refunded"),
    holds: await disputeTransactions(w, chargeId), chargebacks: await ledgerTransactions(w, chargeId, "chargeback"),
  };
}

/** The merchant's balance over HTTP: pending + available, in cents. */
export async function balanceOf(w: Pick<LiveWorld, "t" | "key">): Promise<number> {
  const body = (await get(w.t, w.key, "/v1/balance")).json() as { available: { amount: number }[]; pending: { amount: number }[] };
  return [...body.available, ...body.pending].reduce((s, b) => s + b.amount, 0);
}
