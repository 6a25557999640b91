import { call, type Connection } from "./api.js";
import { needAdminKey, payoutDecision, type TriggerOutput } from "./trigger-payout.js";

// `feira trigger <event>` makes, through the public API, the objects whose life produces that
// event, like `stripe trigger`. Sandbox keys only: it creates real charges.
interface Charge { id: string; status: string }
interface Dispute { id: string; kind: string; status: string; evidenceDueBy: string }

export type { TriggerOutput };
export interface TriggerOptions { adminKey?: string }

const customer = { name: "Feira CLI", email: "cli@example.com" };
const card = (number: string) => ({
  type: "credit_card", number, holderName: "FEIRA CLI", expirationMonth: "12", expirationYear: "2030", cvv: "123", installments: 1,
});
const cardCharge = (c: Connection) =>
  call<Charge>(c, "POST", "/v1/charges", { amount: 25, currency: "BRL", metadata: { source: "feira trigger" }, customer, paymentMethod: card("4111111111111111") });
const pixCharge = (c: Connection) =>
  call<Charge>(c, "POST", "/v1/charges", { amount: 25, currency: "BRL", metadata: { source: "feira trigger" }, customer, paymentMethod: { type: "pix" } });

type Step = (c: Connection, opts: TriggerOptions) => Promise<string[] | TriggerOutput>;

const payout = (event: string, decision: "approve" | "reject"): Step => (c, opts) =>
  opts.adminKey ? payoutDecision(c, opts.adminKey, decision) : needAdminKey(event);

export const TRIGGERS: Record<string, Step> = {
  "charge.created": async (c) => [`charge ${(await cardCharge(c)).id} (card)`],
  "charge.paid": async (c) => {
    const ch = await cardCharge(c);
    return [`charge ${ch.id} (card 4111 1111 1111 1111, ${ch.status})`];
  },
  "charge.pending": async (c) => {
    const ch = await pixCharge(c);
    return [`charge ${ch.id} (Pix, ${ch.status})`];
  },
  "charge.failed": async (c) => {
    const ch = await pixCharge(c);
    const failed = await call<Charge & { failureReason: string | null }>(c, "POST", `/v1/sandbox/charges/${ch.id}/expire`);
    return [`charge ${ch.id} (Pix, expired unpaid: ${failed.status}, ${failed.failureReason})`];
  },
  "charge.refunded": async (c) => {
    const ch = await cardCharge(c);
    await call(c, "POST", `/v1/charges/${ch.id}/refund`, {});
    return [`charge ${ch.id} (card, paid)`, `refund of ${ch.id}`];
  },
  // A paid card charge disputed through the sandbox: its amount leaves the balance until decided.
  "charge.dispute.created": async (c) => {
    const ch = await cardCharge(c);
    const d = await call<Dispute>(c, "POST", `/v1/sandbox/charges/${ch.id}/dispute`, { reason: "product_not_received" });
    return [`charge ${ch.id} (card, ${ch.status})`, `dispute ${d.id} (${d.kind}, ${d.status}, evidence due by ${d.evidenceDueBy})`];
  },
  // The same, answered with evidence (a text): under_review.
  "charge.dispute.updated": async (c) => {
    const ch = await cardCharge(c);
    const d = await call<Dispute>(c, "POST", `/v1/sandbox/charges/${ch.id}/dispute`, { reason: "product_not_received" });
    const form = new FormData();
    form.set("text", "feira trigger: the buyer signed for the delivery.");
    const answered = await call<Dispute>(c, "POST", `/v1/disputes/${d.id}/evidence`, form);
    return [`charge ${ch.id} (card, ${ch.status})`, `dispute ${d.id} (${d.kind}, evidence submitted: ${answered.status})`];
  },
  // The same, conceded: lost, and the charge charged_back.
  "charge.dispute.closed": async (c) => {
    const ch = await cardCharge(c);
    const d = await call<Dispute>(c, "POST", `/v1/sandbox/charges/${ch.id}/dispute`, { reason: "fraudulent" });
    const lost = await call<Dispute>(c, "POST", `/v1/disputes/${d.id}/accept`);
    return [`charge ${ch.id} (card, charged_back)`, `dispute ${d.id} (${d.kind}, accepted: ${lost.status})`];
  },
  "payout.approved": payout("payout.approved", "approve"),
  "payout.rejected": payout("payout.rejected", "reject"),
};

/** Triggers that need the operator's admin key besides the sandbox key. */
export const ADMIN_TRIGGERS = ["payout.approved", "payout.rejected"];

export async function trigger(c: Connection, event: string, opts: TriggerOptions = {}): Promise<TriggerOutput> {
  if (c.apiKey.startsWith("sk_live_")) {
    throw new Error("feira trigger creates real objects: it runs with sandbox keys (sk_test_...) only");
  }
  const step = TRIGGERS[event];
  if (!step) throw new Error(`Cannot trigger ${event}; supported: ${Object.keys(TRIGGERS).join(", ")}`);
  const out = await step(c, opts);
  return Array.isArray(out) ? { created: out, notes: [] } : out;
}
