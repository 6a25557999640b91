import type { Static } from "typebox";
import type { Config } from "../../../config.js";
import { scopeOf, type Scope } from "../../../db/scope.js";
import { AppError } from "../../../core/errors.js";
import type { Environment, RequestCtx } from "../../../core/context.js";
import type { ChargeRoute, CustomerInput } from "../../../processors/processor.js";
import type { ProcessorRegistry } from "../../../processors/registry.js";
import { sendsSplitFor } from "../../../processors/provider-split.js";
import type { CustomerRow, CustomerService } from "../../customers/index.js";
import type { ConnectService, Settlement, SplitAccounts } from "../../connect/index.js";
import type { InstallmentTerms } from "../../../lib/price-table.js";
import type { MerchantService } from "../../merchants/index.js";
import type { SplitRule } from "../../ledger/index.js";
import { checkDestination } from "../../webhooks/index.js";
import type { CreateChargeBody } from "../charges.schemas.js";
import { checkCommandAmount, commandFromBody, type ChargeCommand } from "./charge-command.js";
import { checkCustomer, checkMethodAmount, checkSplit, checkSplitFits, normalizeMethod, postalAddressOf, type NormalizedCharge, type SavedCards } from "./charge-input.js";
import { interestPlan } from "./charge-installments.js";

// The one pipeline from a request to a charge ready to make. Every check runs before any side
// effect (nothing is written and no processor is called until `create`), in this order, and the
// first problem found is the answer:
//   1. Server-only fields (freight_amount, ...) and methods (pix_automatico): rejectServerFields,
//      the route's preValidation hook, before the schema, so the answer says why rather than
//      "not a recognized field" or "not one of the supported values".
//   2. The route's schema (Ajv): shape, types, formats, unknown fields, the method's branch.
//   3. toChargeCommand: the currency, and the amount in currency units as integer minor units.
//      (A retry of an Idempotency-Key whose charge was committed answers that charge now,
//      before step 4: submit, in charge-create.ts.)
//   4. prepare: the amount's ceiling; the customer's fields; the inline customer's document
//      and address; the split's shape; Connect's rules for the split (or the default split);
//      the stored customer; the payment method (currency, the method's own limit, whether the
//      processor serves it, the processor's instrument rules, the card, saved card or wallet);
//      the postback URL; last, a processor for this environment.
// Commands the server builds (a subscription's period, a payment link's checkout) start at 4.

export interface ChargePipelineDeps {
  config: Pick<Config, "webhookAllowPrivateUrls" | "production" | "amountLimits">;
  processors: Pick<ProcessorRegistry, "route" | "adapter" | "mandates">;
  customers: Pick<CustomerService, "get" | "validateInline">;
  cards: SavedCards;
  connect: Pick<ConnectService, "checkCharge" | "chargeSettlement" | "providerAccounts">;
  /** The merchant's installment terms (cached with the rest of what a charge reads of it). */
  merchants: Pick<MerchantService, "chargeProfile">;
  now: () => Date;
}

/** Step 1: fields and methods only the server sets, refused by name. */
export function rejectServerFields(body: unknown): void {
  if (body && typeof body === "object") {
    for (const field of ["freight_amount", "freight_details", "freightAmount", "freightDetails"]) {
      if (field in body) throw new AppError("validation_failed", `${field} is set by the server and must not be sent`);
    }
    if ("paymentMethod" in body) rejectServerMethod(body.paymentMethod);
  }
}

/**
 * A Pix Automático debit exists only under a mandate the payer approved for a subscription, and
 * only the billing engine knows its period's due date: no request makes one.
 */
function rejectServerMethod(pm: unknown): void {
  if (pm && typeof pm === "object" && "type" in pm && pm.type === "pix_automatico") {
    throw new AppError("validation_failed", "paymentMethod.type pix_automatico is made only by a subscription's billing (POST /v1/subscriptions with paymentMethod.type pix_automatico), never by a charge request");
  }
}

/** No processor serves this environment (production without PAYMENT_PROCESSOR). */
export const noProcessor = () => new AppError("method_not_supported", "No payment processor is configured for production charges (set PAYMENT_PROCESSOR); use a sandbox key to test");

export function createChargePipeline(deps: ChargePipelineDeps) {
  const { now } = deps;

  /** Step 3, for POST /v1/charges: the body, in currency units, as a command in minor units. */
  const toChargeCommand = (body: Static<typeof CreateChargeBody>): ChargeCommand => commandFromBody(body, deps.config.amountLimits);

  /**
   * What a new charge of the environment goes through (the simulator, or the live router). A
   * live Pix Automático subscription's first Pix (journey 3) is the mandate processor's own
   * payment, never another route's or a failover's: its recurrence names it (Efí: the cob whose
   * txid the rec's ativacao.dadosJornada carries).
   */
  function routeFor(ctx: { environment: Environment }, cmd?: Pick<ChargeCommand, "mandateProcessor" | "subscriptionId">): ChargeRoute {
    const mandates = cmd?.mandateProcessor && cmd.subscriptionId ? deps.processors.mandates(ctx.environment) : null;
    const route = mandates ? deps.processors.adapter(ctx.environment, mandates.processor) : deps.processors.route(ctx.environment);
    if (!route) throw noProcessor();
    return route;
  }

  /**
   * Every check of a charge, with no side effect: the problems come back as values, so another
   * module (a subscription, a payment link) can refuse its own request with the charge path's
   * rules and messages before it writes anything, then create exactly what was checked.
   */
  async function check(ctx: RequestCtx, cmd: ChargeCommand): Promise<ChargeCheck> {
    try {
      return { ok: true, charge: await prepare(ctx, cmd, now()) };
    } catch (err) {
      if (err instanceof AppError && err.statusCode < 500) return { ok: false, problems: [err] };
      throw err;
    }
  }

  /**
   * The same checked charge at its final amount, once the server knows it (a payment link's
   * total after the freight is re-quoted): the amount's own checks run again, nothing else does.
   */
  function priced(prepared: PreparedCharge, amountMinor: number, freight: ChargeCommand["freight"]): PreparedCharge {
    checkCommandAmount({ amountMinor, currency: prepared.currency }, deps.config.amountLimits);
    checkMethodAmount(prepared.method.methodType, amountMinor);
    interestPlan(prepared.method, amountMinor, prepared.currency, prepared.installmentTerms);
    return { ...prepared, amountMinor, cmd: { ...prepared.cmd, amountMinor, freight } };
  }

  /** Step 4: every check of the command, in the order above; the first problem is the answer. */
  async function prepare(ctx: RequestCtx, cmd: ChargeCommand, at: Date): Promise<PreparedCharge> {
    if (!cmd.subscriptionId) rejectServerMethod(cmd.paymentMethod);
    checkCommandAmount(cmd, deps.config.amountLimits);
    const { amountMinor, currency } = cmd;
    checkCustomer(cmd.customer);
    deps.customers.validateInline(cmd.customer);
    checkSplit(ctx, cmd.split);
    // The charge's split, else the merchant's default; checked before the processor is called.
    const split = await deps.connect.checkCharge(ctx, cmd.split);
    checkSplitFits({ amount: amountMinor, net: amountMinor, currency }, split, splitField(cmd));
    const settlement = await deps.connect.chargeSettlement(ctx);
    const existingCustomer = cmd.customer.id ? await deps.customers.get(ctx, cmd.customer.id) : null;
    // The request's own problems come first, then what this environment's processor refuses.
    const method = await normalizeMethod(ctx, cmd.paymentMethod, { amountMinor, currency }, cmd.customer.id, {
      cards: deps.cards, now: at, processor: cmd.mandateProcessor ? routeFor(ctx, cmd) : deps.processors.route(ctx.environment),
      customer: processorCustomer(existingCustomer, cmd.customer),
    });
    // A card's installments against the merchant's terms, right after the method's own checks.
    const installmentTerms = (await deps.merchants.chargeProfile(ctx.merchantId)).installments[ctx.environment];
    interestPlan(method, amountMinor, currency, installmentTerms);
    const postbackUrl = cmd.postbackUrl
      ? await checkDestination(cmd.postbackUrl, ctx.environment, deps.config, "postbackUrl")
      : null;
    const processor = routeFor(ctx, cmd);
    // Provider settlement: every seller of the split needs an account at the processor chosen
    // (else 422, before any call); the accounts at the route's other processors bound its failover.
    const splitAccounts = split && settlement === "provider"
      ? await deps.connect.providerAccounts(ctx, split, processor.candidates?.(method.methodType) ?? [processor.name], {
        sendsSplit: (name) => processor.sendsSplitAt?.(name, method.methodType) ?? (name === processor.name && sendsSplitFor(processor.sendsSplit, method.methodType)),
        splitSellers: (name) => (processor.splitSellersAt ? processor.splitSellersAt(name) : name === processor.name ? processor.splitSellers : undefined),
      })
      : null;
    return {
      scope: scopeOf(ctx), cmd, at, amountMinor, currency, method, postbackUrl, processor, existingCustomer, split, settlement, splitAccounts, installmentTerms,
    };
  }

  return { toChargeCommand, check, priced };
}

/** The buyer as a processor sees it: the stored customer, or the one the request describes. */
export function processorCustomer(existing: CustomerRow | null, inline: ChargeCommand["customer"]): CustomerInput {
  return existing
    ? { name: existing.name, email: existing.email, documentId: existing.documentId, documentType: existing.documentType, phone: existing.phone, address: postalAddressOf(existing.address) }
    : { name: inline.name ?? "", email: inline.email ?? null, documentId: inline.document?.id ?? null, documentType: inline.document?.type ?? null, phone: inline.phone ?? null, address: postalAddressOf(inline.address) };
}


/** Which split a command's charge applies, as its 422s name it: its own, else the merchant's default. */
export const splitField = (cmd: ChargeCommand) => (cmd.split && cmd.split.length > 0 ? "split" : "defaultSplit");

/** A charge that passed every check, ready to be made by `create` for the same scope. */
export interface PreparedCharge {
  readonly scope: Scope;
  readonly cmd: ChargeCommand;
  readonly at: Date;
  readonly amountMinor: number;
  readonly currency: string;
  readonly method: Omit<NormalizedCharge, "amountMinor" | "currency">;
  readonly postbackUrl: string | null;
  readonly processor: ChargeRoute;
  readonly existingCustomer: CustomerRow | null;
  readonly split: SplitRule[] | null;
  /** The root merchant's settlement when the charge was checked; the charge keeps it. */
  readonly settlement: Settlement;
  /** Provider settlement: the split's sellers' accounts by processor; null in platform settlement. */
  readonly splitAccounts: SplitAccounts | null;
  /** The merchant's terms when it was checked; the plan is computed from them at the final amount. */
  readonly installmentTerms: InstallmentTerms;
}

export type ChargeCheck =
  | { ok: true; charge: PreparedCharge }
  | { ok: false; problems: AppError[] };
