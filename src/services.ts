import type { Config } from "./config.js";
import type { Db } from "./db/client.js";
import type { ProcessorDefinition } from "./processors/definition.js";
import { createCardModule } from "./modules/cards/cards.module.js";
import { createChargesModule, sandboxProcessorRecords } from "./modules/charges/index.js";
import { createConfigChanges } from "./db/config-changes.js";
import { createConnectModule } from "./modules/connect/connect.module.js";
import { createDisputesModule } from "./modules/disputes/disputes.module.js";
import { createCustomersModule } from "./modules/customers/customers.module.js";
import { createLedgerModule } from "./modules/ledger/ledger.module.js";
import { createMailModule } from "./modules/mail/mail.module.js";
import { createMerchantsModule } from "./modules/merchants/merchants.module.js";
import { createPaymentLinksModule } from "./modules/payment-links/payment-links.module.js";
import { createProcessorRegistry } from "./processors/registry.js";
import { createSealer } from "./lib/crypto.js";
import { createInstallmentsModule } from "./modules/installments/installments.module.js";
import { createShippingModule } from "./modules/shipping/shipping.module.js";
import { createSubscriptionModule } from "./modules/subscriptions/subscriptions.module.js";
import { createWebhookModule } from "./modules/webhooks/webhooks.module.js";

export type Services = ReturnType<typeof createServices>;

/**
 * Every module, built once by its own factory; the worker uses the same ones. The top-level
 * names are the services other code calls; `modules` carries what app.ts and the worker
 * register (routes, and each module's own background tasks).
 */
export function createServices(deps: { config: Config; db: Db; processors?: readonly ProcessorDefinition[] }) {
  const { config, db } = deps;
  const sealer = createSealer(config.encryptionKey);
  // Keys, merchant profiles and Connect accounts are cached per process; changes forget them.
  const configChanges = createConfigChanges();
  const merchants = createMerchantsModule({ db, sealer, adminApiKey: config.adminApiKey, configChanges });
  const customers = createCustomersModule({ db });
  const webhooks = createWebhookModule({ db, config, sealer });
  const cards = createCardModule({ db, sealer, customers: customers.service });
  const ledger = createLedgerModule({ db });
  const processors = createProcessorRegistry({ live: config.live, definitions: deps.processors, sandboxRecords: sandboxProcessorRecords(db) });
  const connect = createConnectModule({
    db, config, sealer, merchants: merchants.service, ledger: ledger.service, processors, configChanges,
    // The test clock belongs to the subscriptions module, made below; scheduled payouts read it only once both exist.
    clockNow: (q, scope) => subscriptions.engine.clockNow(q, scope),
  });
  const charges = createChargesModule({
    db, config, processors, merchants: merchants.service, customers: customers.service, cards: cards.service, ledger: ledger.service, connect: connect.service,
    payoutNotices: connect.payouts.transfers.notice,
    // The subscriptions module is made below; a notice only arrives once both exist.
    mandateNotices: (processor, refs) => subscriptions.mandateNotices(processor, refs),
  });
  const subscriptions = createSubscriptionModule({
    db, charges: charges.service, effects: charges.effects, refunds: charges.refunds, cancelOpen: charges.cancelOpen, cards: cards.service, customers: customers.service,
    merchants: merchants.service, leaseMs: config.idempotencyLeaseMs, amountLimits: config.amountLimits,
    mandateProvider: (env) => processors.mandates(env)?.capability ?? null,
  });
  // Advancing a sandbox clock past a due day's 06:00 requests its scheduled payouts before it answers.
  subscriptions.clock.onAdvance((scope) => connect.schedules.runDue(scope.merchantId));
  // ...and ends its submerchants' holdDays that are over on the clock.
  subscriptions.clock.onAdvance(async (scope) => ledger.service.releaseHeldDays({ now: await subscriptions.engine.clockNow(db, scope), environment: "sandbox", master: scope.merchantId }));
  // ...and records the transfers the processors (the simulator, on that clock) made to its sellers' banks...
  subscriptions.clock.onAdvance((scope) => connect.providerTransfers.runDue(scope.merchantId));
  // ...and reconciles its sellers' balances at processors for the new day.
  subscriptions.clock.onAdvance((scope) => connect.reconciliations.runDue(scope.merchantId));
  // A sandbox charge's amount due is computed on the test clock's day.
  charges.useClock(subscriptions.engine.clockNow);
  const disputes = createDisputesModule({
    db, sealer, charges: charges.service, chargeModule: charges, processors,
    clock: { now: subscriptions.engine.clockNow, onAdvance: subscriptions.clock.onAdvance },
  });
  const shipping = createShippingModule({ db, config, sealer, merchants: merchants.service });
  const mail = createMailModule({ db, config, reactions: webhooks.reactions, clock: subscriptions.clock });
  const installments = createInstallmentsModule({ config, merchants: merchants.service });
  const paymentLinks = createPaymentLinksModule({ db, config, charges: charges.service, merchants: merchants.service, shipping: shipping.service });
  return {
    sealer, configChanges, webhooks, cards, mail, connect, subscriptions, paymentLinks,
    merchants: merchants.service, customers: customers.service, ledger: ledger.service, charges: charges.service,
    refunds: charges.refunds, shipping: shipping.service, processors,
    // Every module, in the order the worker takes their tasks (collectTasks).
    modules: { merchants, customers, cards, webhooks, subscriptions, ledger, connect, charges, disputes, shipping, paymentLinks, mail, installments },
  };
}
