import type { Config } from "../../../config.js";
import type { Db } from "../../../db/client.js";
import type { Environment, RequestCtx } from "../../../core/context.js";
import { faultPoint } from "../../../lib/faults.js";
import { seededId } from "../../../lib/ids.js";
import type { AuthorizeResult, PaymentProcessor, PendingRecord } from "../../../processors/processor.js";
import type { ProcessorRegistry } from "../../../processors/registry.js";
import { feeMethodOf } from "../../../processors/methods.js";
import type { CustomerService } from "../../customers/index.js";
import { computeChargeFees, splitShares, type SplitBasis, type SplitRule } from "../../ledger/index.js";
import type { SplitAccounts } from "../../connect/index.js";
import type { ProviderSplit } from "../../../processors/provider-split.js";
import type { MerchantService } from "../../merchants/index.js";
import { createdOf, type ChargeEffects } from "../charge-effects.js";
import type { ChargeRow } from "../charges.mapper.js";
import * as repo from "../charges.repo.js";
import { pendingRecordWrite } from "../processor-records.repo.js";
import type { ChargeCommand } from "./charge-command.js";
import { checkSplitFits } from "./charge-input.js";
import { interestPlan } from "./charge-installments.js";
import { createChargePipeline, noProcessor, processorCustomer, splitField, type ChargePipelineDeps, type PreparedCharge } from "./charge-pipeline.js";
import type { WaitingCharges } from "./waiting-charges.js";

// Creating a charge: check a ChargeCommand with no side effect (charge-pipeline.ts), then call
// the processor (outside any transaction) and write the charge, its ledger postings and its events in one
// statement. Every caller of the charge path goes through here (docs/architecture.md, "The
// charge seam").

export interface ChargeCreateDeps extends ChargePipelineDeps {
  db: Db;
  config: ChargePipelineDeps["config"] & Pick<Config, "publicBaseUrl">;
  processors: Pick<ProcessorRegistry, "route" | "adapter" | "mandates">;
  merchants: Pick<MerchantService, "chargeProfile">;
  customers: ChargePipelineDeps["customers"] & Pick<CustomerService, "inlineForCharge">;
  effects: ChargeEffects;
  /** The bound on production charges waiting on a processor (PROCESSOR_MAX_WAITING). */
  waiting: WaitingCharges;
}

export function createChargePath(deps: ChargeCreateDeps) {
  const { db, effects } = deps;
  const { toChargeCommand, check, priced } = createChargePipeline(deps);

  /** The adapter that served a charge (its `processor`), which its later calls go to. */
  function processorFor(ctx: { environment: Environment }, processorName?: string | null): PaymentProcessor {
    const adapter = deps.processors.adapter(ctx.environment, processorName);
    if (!adapter) throw noProcessor();
    return adapter;
  }

  /**
   * POST /v1/charges and every other caller that has not checked first: the charge a retry of
   * this Idempotency-Key already committed, else check, else create.
   */
  async function submit(ctx: RequestCtx, cmd: ChargeCommand) {
    const earlier = await committed(ctx);
    if (earlier) return createdOf(earlier);
    const checked = await check(ctx, cmd);
    if (!checked.ok) throw checked.problems[0]!;
    return make(ctx, checked.charge);
  }

  /** A checked charge, made: the charge a retry already committed, or a new one. */
  async function create(ctx: RequestCtx, prepared: PreparedCharge) {
    const earlier = await committed(ctx);
    return earlier ? createdOf(earlier) : make(ctx, prepared);
  }

  /**
   * Under an Idempotency-Key the charge id comes from the claim's seed: a seed used before (a
   * claim taken over, a retry after a 5xx, a subscription's attempt) may have committed this
   * charge; a claim's fresh seed cannot have.
   */
  async function committed(ctx: RequestCtx): Promise<ChargeRow | undefined> {
    if (!ctx.idempotencySeed || ctx.idempotencySeedFresh) return undefined;
    return repo.findCharge(db, ctx, seededId("ch", ctx.idempotencySeed));
  }

  /**
   * The processor is called outside any transaction; then one statement writes the charge, its
   * ledger postings and its events (charge.created, then charge.pending / charge.paid /
   * charge.updated). A retry after a crash authorizes again under the same id, which the
   * processor answers with its first result: one authorization and one charge per key.
   */
  async function make(ctx: RequestCtx, prepared: PreparedCharge) {
    if (prepared.scope.merchantId !== ctx.merchantId || prepared.scope.environment !== ctx.environment) {
      throw new Error("a charge checked for one merchant and environment was created for another");
    }
    const id = seededId("ch", ctx.idempotencySeed);
    const { cmd, amountMinor, currency, method, postbackUrl, processor, existingCustomer, split, settlement, splitAccounts, at } = prepared;
    const { merchant, fees: feeTable } = await deps.merchants.chargeProfile(ctx.merchantId);
    // Beyond the interest-free installments the buyer pays the price table's total: the processor
    // is asked for it and the fees are on it, as the processor's are; `amount` stays the price.
    const plan = interestPlan(method, amountMinor, currency, prepared.installmentTerms);
    const grossMinor = plan?.totalAmount ?? amountMinor;
    const fees = computeChargeFees(feeTable, {
      amountMinor: grossMinor, currency, paymentMethod: feeMethodOf(method.methodType), brand: method.brand, installments: method.installments,
    });
    // Now that the net is known: fixed shares beyond it are refused before the processor is called.
    checkSplitFits({ amount: amountMinor, net: fees.net, currency }, split, splitField(cmd));

    // An inline customer is looked up by its contact while the processor answers; a new one is
    // inserted by the charge's statement, so it exists only with its charge (a processor's
    // failure, a failed statement or a crash leave none) and costs no commit of its own.
    const inline = cmd.customer;
    // The simulator's record of a first authorization commits in the charge's statement.
    const records: PendingRecord[] = [];
    const authorize = () => processor.authorize({
      chargeId: id, amountMinor: grossMinor, currency, instrument: method.instrument,
      merchant: { id: merchant.id, name: merchant.name, city: merchant.city, pixKey: merchant.pixKey, softDescriptor: merchant.softDescriptor },
      customer: processorCustomer(existingCustomer, inline),
      now: at, publicBaseUrl: deps.config.publicBaseUrl,
      // The same condition as committed(): a seed used before may have reached a processor.
      resumed: Boolean(ctx.idempotencySeed) && !ctx.idempotencySeedFresh,
      recordWith: (record) => records.push(record),
      ...(splitAccounts && split ? { split: providerSplit({ amount: amountMinor, net: fees.net - (grossMinor - amountMinor), currency }, grossMinor, split, splitAccounts) } : {}),
    });
    // A live processor answers over the network, in hundreds of ms or, when it is in trouble,
    // not before the timeout: a slot is taken before anything is written (past the bound, a 503
    // with Retry-After), and the wait holds no transaction and no pooled connection. The
    // simulator answers in-process and needs none.
    const slot = ctx.environment === "production" ? deps.waiting.take() : undefined;
    const [result, customer] = await Promise.all([
      slot ? slot.run(authorize) : authorize(),
      existingCustomer ? { row: existingCustomer, write: undefined, buyer: null } : deps.customers.inlineForCharge(db, ctx, inline, at),
    ]);
    faultPoint("charge.after-authorize");

    // The charge is inserted in its first status, the processor's answer, with its events, ledger
    // posting, new customer and simulator's record: one statement (charge-effects create).
    const charge = (await effects.create(db, {
      id, merchantId: ctx.merchantId, environment: ctx.environment, customerId: customer.row.id, buyer: customer.buyer,
      amount: amountMinor, currency, paymentMethodType: method.methodType,
      totalAmount: plan?.totalAmount ?? null, installmentAmount: plan?.installmentAmount ?? null,
      paymentMethod: method.methodView, installments: method.installments, processor: result.servedBy ?? processor.name,
      spread: fees.spread, anticipationFee: fees.anticipationFee, net: fees.net,
      items: cmd.items ?? null, shippingAddress: cmd.shippingAddress ?? null, trackingInfo: cmd.trackingInfo ?? null,
      metadata: cmd.metadata ?? null, postbackUrl, split, settlement, createdAt: at, updatedAt: at, ...(repo.createdApart(id, at) ? { createdApart: true } : {}),
      freightAmount: cmd.freight?.amountMinor ?? null, freightDetails: cmd.freight?.details ?? null,
      paymentLinkId: cmd.paymentLinkId ?? null, subscriptionId: cmd.subscriptionId ?? null,
      ...outcome(result, method.methodType, method.methodView, at),
    }, customer.row, [...records.map(pendingRecordWrite), ...(customer.write ? [customer.write] : [])])) ?? (await repo.findCharge(db, ctx, id));
    // Taken over concurrently (a retry after the lease ran out, while this one was slow): the
    // other attempt committed this id first; its charge is the answer.
    if (!charge) throw new Error(`charge ${id} neither inserted nor found`);
    faultPoint("charge.after-commit");
    return createdOf(charge);
  }


  /**
   * Provider settlement: the shares in cents as the ledger books them (split.ts, the same
   * function), so the processor's books and feira's agree to the cent; the operator's part is
   * the rest of what the buyer pays (`grossMinor`: an installment plan's total), fees and the
   * buyer's interest included. `basis` is the price and the net of it, as postChargePaid splits.
   */
  function providerSplit(basis: SplitBasis, grossMinor: number, split: readonly SplitRule[], accounts: SplitAccounts): ProviderSplit {
    const shares = splitShares(basis, split).shares.flatMap((s, i) => s.amount > 0 ? [{
      submerchantId: s.owner, amountMinor: s.amount, liable: split[i]?.liable === true, feeBearer: split[i]?.feeBearer === true, at: accounts.get(s.owner) ?? {},
    }] : []);
    return { shares, operatorMinor: grossMinor - shares.reduce((sum, s) => sum + s.amountMinor, 0) };
  }

  /** The processor's answer as the charge's first status and fields. */
  function outcome(r: AuthorizeResult, methodType: string, view: Record<string, unknown>, at: Date) {
    const cardDetails = methodType === "credit_card"
      ? { firstSix: view.firstSix, lastFour: view.lastFour, expirationMonth: view.expirationMonth, expirationYear: view.expirationYear, holderName: view.holderName, installments: view.installments, brand: view.brand }
      : {};
    // A decline keeps the provider's own code, for support (never its raw answer).
    const declineCode = (r.outcome === "refused" || r.outcome === "failed") && r.providerCode ? { providerCode: r.providerCode } : {};
    const details = { ...cardDetails, ...("details" in r ? r.details : {}), ...declineCode };
    const paymentDetails = Object.keys(details).length > 0 ? details : null;
    switch (r.outcome) {
      case "pending":
        return { status: "pending" as const, pspRefId: r.pspRefId, paymentDetails, expiresAt: r.expiresAt };
      case "paid":
        return { status: "paid" as const, pspRefId: r.pspRefId, paymentDetails, paidAt: at };
      case "in_analysis":
      case "authentication_required":
        return { status: r.outcome, pspRefId: r.pspRefId, paymentDetails };
      case "refused":
      case "failed":
        return { status: r.outcome, pspRefId: r.pspRefId ?? null, paymentDetails, reason: r.reason, isBlocked: r.outcome === "refused" && Boolean(r.blocked) };      // No answer to rely on from the processor: pending until a lookup by the charge id settles it.
      case "unknown":
        return { status: "pending" as const, pspRefId: null, paymentDetails };
    }
  }

  return { toChargeCommand, check, priced, create, submit, processorFor };
}

