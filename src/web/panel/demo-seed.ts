import type { Services } from "../../services.js";
import type { Db } from "../../db/client.js";
import type { RequestCtx } from "../../core/context.js";
import type { CreateChargeBody } from "../../modules/charges/index.js";
import type { Static } from "typebox";
import { backdateCharge } from "./demo-dates.js";

// The demo merchant's sandbox history on the first start of a local feira, so that the panel a
// newcomer opens is alive: charges in each state, a customer, a plan with a subscription, a
// payment link and a submerchant. Everything goes through the services the API uses, in the
// sandbox only; main.ts calls it only outside production, for the demo merchant it just made.

type ChargeBody = Static<typeof CreateChargeBody>;
const card = (number: string, threeDSMode?: "managed") => ({
  type: "credit_card" as const, number, holderName: "MARIANA COSTA", expirationMonth: "12", expirationYear: "2030", cvv: "123", ...(threeDSMode ? { threeDSMode } : {}),
});

export async function seedDemo(services: Services, merchantId: string, db: Db): Promise<void> {
  const ctx: RequestCtx = { merchantId, environment: "sandbox", actor: { type: "jwt", id: merchantId }, requestId: "demo-seed" };
  const buyers = [
    { name: "Mariana Costa", email: "mariana.costa@example.com", document: { type: "cpf" as const, id: "529.982.247-25" } },
    { name: "João Pereira", email: "joao.pereira@example.com", document: { type: "cpf" as const, id: "111.444.777-35" } },
    { name: "Ana Beatriz Lima", email: "ana.lima@example.com", document: { type: "cpf" as const, id: "390.533.447-05" } },
  ];
  // Each charge is made `daysAgo` days back (after its last change: its events and refunds go with it).
  const charge = (amount: number, customer: (typeof buyers)[number], paymentMethod: ChargeBody["paymentMethod"]) =>
    services.charges.submit(ctx, services.charges.toChargeCommand({ amount, currency: "BRL", customer, paymentMethod, items: [{ title: "Cesta de café da manhã", quantity: 1, unit_price: amount }] }));
  const dated: [string, number][] = [];
  const on = async <C extends { id: string }>(daysAgo: number, made: Promise<C>) => {
    const c = await made;
    dated.push([c.id, daysAgo]);
    return c;
  };

  const paid = await on(27, charge(189.9, buyers[0]!, card("4111111111111111")));
  await on(24, charge(74.5, buyers[1]!, card("5555555555554444")));
  await on(20, charge(129, buyers[2]!, card("4000000000000002")));
  await on(16, charge(59.9, buyers[1]!, card("4000000000000119")));
  await on(12, charge(249, buyers[0]!, card("4000000000000259")));
  await on(3, charge(99, buyers[2]!, card("4000000000003220", "managed")));
  await on(0, charge(45, buyers[1]!, { type: "pix" as const }));
  const pixPaid = await on(9, charge(38.9, buyers[2]!, { type: "pix" as const }));
  await services.charges.pay(ctx, pixPaid.id);
  const refunded = await on(6, charge(120, buyers[0]!, card("4111111111111111")));
  await services.refunds.refund(ctx, refunded.id, undefined);
  await services.refunds.refund(ctx, paid.id, 30);
  // A sale on each of the last 30 days, so that the home chart shows a month.
  for (let daysAgo = 29; daysAgo >= 0; daysAgo--) {
    await on(daysAgo, charge(35 + ((daysAgo * 37) % 120), buyers[daysAgo % buyers.length]!, card(daysAgo % 3 === 0 ? "5555555555554444" : "4111111111111111")));
  }
  for (const [id, daysAgo] of dated) await backdateCharge(db, ctx, id, daysAgo);

  const plan = await services.subscriptions.plans.create(ctx, { name: "Clube do Café mensal", description: "Um pacote de café especial por mês", price: 59.9, currency: "BRL", interval: "month", intervalCount: 1, trialDays: 0 });
  await services.subscriptions.service.create(ctx, { planId: plan.id, customer: buyers[0]!, paymentMethod: card("4111111111111111") });

  await services.paymentLinks.service.create(ctx, {
    title: "Kit degustação", description: "Três cafés especiais de 250 g", currency: "BRL", freightMode: "fixed", fixedFreightAmount: 15,
    products: [{ title: "Kit degustação (3 × 250 g)", unitPrice: 89.9, quantity: 1, physical: true, width: 20, height: 10, length: 15, weight: 0.8 }],
  });

  // Not the README's Connect example (Padaria Aurora, 11.222.333/0001-81): a CNPJ is one
  // submerchant per master, so the walk-through, pasted on a fresh start, would be a 409.
  await services.connect.service.create(ctx, {
    tradeName: "Torrefação Serra Azul", legalName: "Serra Azul Cafés Especiais LTDA", companyTaxId: "38.491.726/0001-47", contactEmail: "financeiro@serra-azul.example.com",
    website: "https://serra-azul.example.com", productType: "physical", productDescription: "Cafés especiais torrados na semana, do sul de Minas",
    averageMonthlyRevenue: 30000, averageOrderValue: 62.5, softDescriptor: "SERRAAZUL",
  });
}
