import { call, type Connection } from "./api.js";

// `feira trigger <event>` makes, through the public API, the objects whose life produces that
// event, like `stripe trigger`. Sandbox keys only: it creates real charges.
interface Charge { id: string; status: string }

const customer = { name: "Feira CLI", email: "cli@example.com" };
const card = (number: string) => ({
  type: "credit_card", number, holderName: "FEIRA CLI", expirationMonth: "12", expirationYear: "2030", cvv: "123", installments: 1,
});
const cardCharge = (c: Connection) =>
  call<Charge>(c, "POST", "/v1/charges", { amount: 25, currency: "BRL", metadata: { source: "feira trigger" }, customer, paymentMethod: card("4111111111111111") });
const pixCharge = (c: Connection) =>
  call<Charge>(c, "POST", "/v1/charges", { amount: 25, currency: "BRL", metadata: { source: "feira trigger" }, customer, paymentMethod: { type: "pix" } });

type Step = (c: Connection) => Promise<string[]>;

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
  "charge.refunded": async (c) => {
    const ch = await cardCharge(c);
    await call(c, "POST", `/v1/charges/${ch.id}/refund`, {});
    return [`charge ${ch.id} (card, paid)`, `refund of ${ch.id}`];
  },
};

export async function trigger(c: Connection, event: string): Promise<string[]> {
  if (c.apiKey.startsWith("sk_live_")) {
    throw new Error("feira trigger creates real objects: it runs with sandbox keys (sk_test_...) only");
  }
  const step = TRIGGERS[event];
  if (!step) throw new Error(`Cannot trigger ${event}; supported: ${Object.keys(TRIGGERS).join(", ")}`);
  return step(c);
}
