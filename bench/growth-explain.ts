// EXPLAIN (ANALYZE, BUFFERS) of every list query as the server issues it: the repo functions the
// list routes call are run with the inputs of bench/growth.ts's scenarios on a drizzle instance
// whose logger records each statement and its parameters; each statement is then explained with
// the same parameters. A plan that reads a big table by Seq Scan is flagged.
import type { Logger } from "drizzle-orm";
import type { Db } from "../src/db/client.js";
import type { RequestCtx } from "../src/core/context.js";
import { listCards } from "../src/modules/cards/cards.repo.js";
import { expiredPendingCharges, listCharges } from "../src/modules/charges/charges.repo.js";
import { expiredLiveCharges, findLiveCharge, lateRefundsPending, openLiveCharges, settledLiveCharges } from "../src/modules/charges/provider-state/provider-sync.repo.js";
import { listDocuments, listSubmerchants, totalSales } from "../src/modules/connect/connect.repo.js";
import { listPayouts } from "../src/modules/connect/payouts.repo.js";
import { listCustomers } from "../src/modules/customers/customers.repo.js";
import { balances, listEntries } from "../src/modules/ledger/ledger.repo.js";
import { listLinks } from "../src/modules/payment-links/payment-links.repo.js";
import { listPlans } from "../src/modules/subscriptions/plans.repo.js";
import { listSubscriptions } from "../src/modules/subscriptions/subscriptions.repo.js";
import { listDeliveries } from "../src/modules/webhooks/deliveries.repo.js";
import { listEndpoints } from "../src/modules/webhooks/endpoints.repo.js";
import { listEvents } from "../src/modules/webhooks/events.repo.js";
import type { SeedIds } from "./growth-seed.js";

/** Tables that grow with the business; a Seq Scan on one of them is a finding. */
export const BIG_TABLES = new Set([
  "charges", "customers", "cards", "events", "webhook_deliveries", "ledger_entries", "ledger_transactions", "settlements",
  "refunds", "subscriptions", "submerchants", "payout_requests", "merchants",
]);

export interface PlanNode {
  "Node Type": string; "Relation Name"?: string; "Index Name"?: string; "Scan Direction"?: string;
  "Actual Rows"?: number; "Shared Hit Blocks"?: number; "Shared Read Blocks"?: number; Plans?: PlanNode[];
}

export interface PlanSummary {
  name: string; sql: string; scans: string[]; bigSeqScans: string[]; rows: number; hit: number; read: number; ms: number; plan: PlanNode;
}

/** Every scan of a plan, e.g. "Index Scan Backward charges_status_created_idx (charges)", and the big tables read by Seq Scan. */
export function scansOf(plan: PlanNode, bigTables: ReadonlySet<string> = BIG_TABLES): { scans: string[]; bigSeqScans: string[] } {
  const scans: string[] = [];
  const bigSeqScans: string[] = [];
  const walk = (n: PlanNode) => {
    // A Bitmap Index Scan names its index but not its table (its Bitmap Heap Scan parent does).
    if (n["Relation Name"] || n["Index Name"]) {
      const dir = n["Scan Direction"] === "Backward" ? " Backward" : "";
      scans.push([`${n["Node Type"]}${dir}`, n["Index Name"], n["Relation Name"] && `(${n["Relation Name"]})`].filter(Boolean).join(" "));
      if (n["Node Type"] === "Seq Scan" && bigTables.has(n["Relation Name"]!)) bigSeqScans.push(n["Relation Name"]!);
    }
    for (const child of n.Plans ?? []) walk(child);
  };
  walk(plan);
  return { scans, bigSeqScans };
}

export type MakeDb = (logger: Logger) => Db;

/** Runs one statement with parameters: pg's Pool and PGlite's query() both fit. */
export type Run = (text: string, params: unknown[]) => Promise<{ rows: unknown[] }>;

export async function explainListQueries(run: Run, makeDb: MakeDb, demo: string, ids: SeedIds): Promise<PlanSummary[]> {
  const ctx = { merchantId: demo, environment: "sandbox", actor: { type: "key" }, requestId: "bench" } as unknown as RequestCtx;
  const s = { merchantId: demo, environment: "sandbox" as const };
  const calls: [string, (db: Db) => Promise<unknown>][] = [
    ["charges", (db) => listCharges(db, ctx, {})],
    ["charges startingAfter limit 100", (db) => listCharges(db, ctx, { startingAfter: ids.middleChargeId, limit: 100 })],
    ["charges endingBefore", (db) => listCharges(db, ctx, { endingBefore: ids.middleChargeId })],
    ["charges status=refunded", (db) => listCharges(db, ctx, { status: "refunded" })],
    ["charges status=in_analysis", (db) => listCharges(db, ctx, { status: "in_analysis" })],
    ["charges paymentMethod=boleto", (db) => listCharges(db, ctx, { paymentMethod: "boleto" })],
    ["charges customerId", (db) => listCharges(db, ctx, { customerId: ids.customerId })],
    ["charges created one day", (db) => listCharges(db, ctx, { createdGte: ids.dayStart, createdLte: ids.dayEnd })],
    ["charges status + cursor", (db) => listCharges(db, ctx, { status: "refunded", startingAfter: ids.middleChargeId })],
    ["payment link payments", (db) => listCharges(db, ctx, { paymentLinkId: ids.linkId })],
    // Not a list route: the worker's expiry janitor, run every few seconds whatever the size.
    ["expiry janitor", (db) => expiredPendingCharges(db, "sandbox", 100)],
    // Not a list route: a provider webhook naming a live charge by the provider's own id.
    ["provider webhook reference", (db) => findLiveCharge(db, "pagarme", "psp_4000")],
    // Not list routes: reconciliation's rounds over live charges, every few seconds whatever the size.
    ["reconcile open live charges", (db) => openLiveCharges(db, 100)],
    ["reconcile open live charges, cursor", (db) => openLiveCharges(db, 100, { id: ids.middleChargeId })],
    ["reconcile settled sweep", (db) => settledLiveCharges(db, { paidSince: new Date(Date.now() - 120 * 86_400_000), expiredSince: new Date(Date.now() - 30 * 86_400_000) }, 100)],
    ["late refunds pending", (db) => lateRefundsPending(db, 100)],
    ["live expiry", (db) => expiredLiveCharges(db, 100, 5 * 60_000)],
    ["customers", (db) => listCustomers(db, ctx, {})],
    ["customers email", (db) => listCustomers(db, ctx, { email: ids.customerEmail })],
    ["customers cursor", (db) => listCustomers(db, ctx, { startingAfter: ids.customerId })],
    ["customers endingBefore", (db) => listCustomers(db, ctx, { endingBefore: ids.customerId })],
    ["customers both cursors", (db) => listCustomers(db, ctx, { startingAfter: ids.customerId, endingBefore: "cus_" })],
    ["cards of a customer", (db) => listCards(db, s, ids.customerId, 100)],
    ["events", (db) => listEvents(db, s, {})],
    ["events type=charge.refunded", (db) => listEvents(db, s, { type: "charge.refunded" })],
    ["events type=charge.*", (db) => listEvents(db, s, { type: "charge.*" })],
    ["endpoint deliveries", (db) => listDeliveries(db, s, { endpointId: ids.endpointId }, {})],
    ["webhook endpoints", (db) => listEndpoints(db, s, {})],
    ["balance transactions", (db) => listEntries(db, { merchantId: demo, environment: "sandbox" }, {})],
    ["balance transactions type", (db) => listEntries(db, { merchantId: demo, environment: "sandbox" }, { type: "charge" })],
    ["balance (sums)", (db) => balances(db, { merchantId: demo, environment: "sandbox" })],
    ["payment links", (db) => listLinks(db, s, {})],
    ["plans", (db) => listPlans(db, s, {})],
    ["subscriptions", (db) => listSubscriptions(db, { merchantId: demo, environment: "sandbox", page: 1, limit: 10 })],
    ["subscriptions status=paused", (db) => listSubscriptions(db, { merchantId: demo, environment: "sandbox", status: "paused", page: 1, limit: 10 })],
    // Free text: a seeded customer's name and e-mail hold its id; the short text has no trigram.
    ["subscriptions search", (db) => listSubscriptions(db, { merchantId: demo, environment: "sandbox", search: ids.customerId.slice(-10), page: 1, limit: 10 })],
    ["subscriptions search, short text", (db) => listSubscriptions(db, { merchantId: demo, environment: "sandbox", search: "zz", page: 1, limit: 10 })],
    ["submerchants", async (db) => {
      const { rows } = await listSubmerchants(db, { master: { merchantId: demo, environment: "sandbox" }, days: [], order: [{ field: "createdAt", descending: true }], limit: 10, offset: 0 });
      await totalSales(db, rows.map((r) => r.id), "sandbox");
      if (rows[0]) await listDocuments(db, rows[0].id);
    }],
    ["payout requests", (db) => listPayouts(db, { viewer: { master: { merchantId: demo, environment: "sandbox" } }, days: [], limit: 10, offset: 0 })],
  ];
  return explainCalls(run, makeDb, calls);
}

/** EXPLAIN (ANALYZE, BUFFERS) of every statement each call issues, named after the call (and its place among them). */
export async function explainCalls(run: Run, makeDb: MakeDb, calls: [string, (db: Db) => Promise<unknown>][]): Promise<PlanSummary[]> {
  const out: PlanSummary[] = [];
  for (const [name, call] of calls) {
    const statements: { sql: string; params: unknown[] }[] = [];
    await call(makeDb({ logQuery: (sql, params) => statements.push({ sql, params }) }));
    for (const [i, st] of statements.entries()) {
      const r = await run(`explain (analyze, buffers, format json) ${st.sql}`, st.params);
      const top = ((r.rows[0] as Record<string, unknown>)["QUERY PLAN"] as { Plan: PlanNode; "Execution Time": number }[])[0]!;
      out.push({
        name: statements.length > 1 ? `${name} (${i + 1}/${statements.length})` : name,
        sql: st.sql,
        ...scansOf(top.Plan),
        rows: top.Plan["Actual Rows"] ?? 0,
        hit: top.Plan["Shared Hit Blocks"] ?? 0,
        read: top.Plan["Shared Read Blocks"] ?? 0,
        ms: top["Execution Time"],
        plan: top.Plan,
      });
    }
  }
  return out;
}
