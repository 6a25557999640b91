import type { Static } from "typebox";
import type { Config } from "../../../config.js";
import type { Db } from "../../../db/client.js";
import { scopeOf, type Scope } from "../../../db/scope.js";
import { AppError } from "../../../core/errors.js";
import type { Environment, RequestCtx } from "../../../core/context.js";
import { faultPoint } from "../../../lib/faults.js";
import { seededId } from "../../../lib/ids.js";
import type { AuthorizeResult, ChargeRoute, CustomerInput, PaymentProcessor, PendingRecord } from "../../../processors/processor.js";
import type { ProcessorRegistry } from "../../../processors/registry.js";
import type { CustomerRow, CustomerService } from "../../customers/customers.service.js";
import type { ConnectService } from "../../connect/connect.service.js";
import { computeChargeFees } from "../../ledger/fees.js";
import type { MerchantService } from "../../merchants/merchants.service.js";
import { checkDestination } from "../../webhooks/destination.js";
import type { SplitRule } from "../../ledger/split.js";
import type { ChargeEffects } from "../charge-effects.js";
import type { ChargeRow } from "../charges.mapper.js";
import * as repo from "../charges.repo.js";
import { pendingRecordWrite } from "../processor-records.repo.js";
import { checkCustomer, checkMethodAmount, checkSplit, normalizeMethod, postalAddressOf, type NormalizedCharge, type SavedCards } from "./charge-input.js";
import { checkCommandAmount, commandFromBody, type ChargeCommand } from "./charge-command.js";
import type { CreateChargeBody } from "../charges.schemas.js";
import type { WaitingCharges } from "./waiting-charges.js";

// Creating a charge: check a ChargeCommand with no side effect, then call the processor
// (outside any transaction) and write the charge, its ledger postings and its events in one
// statement. Every caller of the charge path goes through here (docs/architecture.md, "The
// charge seam").

export interface ChargeCreateDeps {
  db: Db;
  config: Pick<Config, "publicBaseUrl" | "webhookAllowPrivateUrls" | "production" | "amountLimits">;
  processors: Pick<ProcessorRegistry, "route" | "adapter">;
  merchants: Pick<MerchantService, "chargeProfile">;
  customers: Pick<CustomerService, "get" | "inlineForCharge" | "validateInline">;
  cards: SavedCards;
  effects: ChargeEffects;
  /** Connect's rules: split recipients, default split, submerchants that are not active. */
  connect: Pick<ConnectService, "checkCharge">;
  /** The bound on production charges waiting on a processor (PROCESSOR_MAX_WAITING). */
  waiting: WaitingCharges;
  now: () => Date;
}

export function createChargePath(deps: ChargeCreateDeps) {
  const { db, effects, now } = deps;

  const unconfigured = () => new AppError("method_not_supported", "No payment processor is configured for production charges (set PAYMENT_PROCESSOR); use a sandbox key to test");
  /** What a new charge of the environment goes through (the simulator, or the live router). */
  function routeFor(ctx: { environment: Environment }): ChargeRoute {
    const route = deps.processors.route(ctx.environment);
    if (!route) throw unconfigured();
    return route;
  }

  /** The adapter that served a charge (its `processor`), which its later calls go to. */
  function processorFor(ctx: { environment: Environment }, processorName?: string | null): PaymentProcessor {
    const adapter = deps.processors.adapter(ctx.environment, processorName);
    if (!adapter) throw unconfigured();
    return adapter;
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
   * POST /v1/charges and every other caller that has not checked first: the charge a retry of
   * this Idempotency-Key already committed, else check, else create.
   */
  async function submit(ctx: RequestCtx, cmd: ChargeCommand) {
    const earlier = await committed(ctx);
    if (earlier) return createdView(earlier);
    const checked = await check(ctx, cmd);
    if (!checked.ok) throw checked.problems[0]!;
    return make(ctx, checked.charge);
  }

  /**
   * The same checked charge at its final amount, once the server knows it (a payment link's
   * total after the freight is re-quoted): the amount's own checks run again, nothing else does.
   */
  function priced(prepared: PreparedCharge, amountMinor: number, freight: ChargeCommand["freight"]): PreparedCharge {
    checkCommandAmount({ amountMinor, currency: prepared.currency }, deps.config.amountLimits);
    checkMethodAmount(prepared.method.methodType, amountMinor);
    return { ...prepared, amountMinor, cmd: { ...prepared.cmd, amountMinor, freight } };
  }

  /** POST /v1/charges: the body, in currency units, as a command in minor units. */
  const fromBody = (body: Static<typeof CreateChargeBody>): ChargeCommand => commandFromBody(body, deps.config.amountLimits);

  /** A checked charge, made: the charge a retry already committed, or a new one. */
  async function create(ctx: RequestCtx, prepared: PreparedCharge) {
    const earlier = await committed(ctx);
    return earlier ? createdView(earlier) : make(ctx, prepared);
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
    const { cmd, amountMinor, currency, method, postbackUrl, processor, existingCustomer, split, at } = prepared;
    const { merchant, fees: feeTable } = await deps.merchants.chargeProfile(ctx.merchantId);
    const fees = computeChargeFees(feeTable, {
      amountMinor, currency, paymentMethod: method.methodType, brand: method.brand, installments: method.installments,
    });

    // An inline customer is looked up by its contact while the processor answers; a new one is
    // inserted by the charge's statement, so it exists only with its charge (a processor's
    // failure, a failed statement or a crash leave none) and costs no commit of its own.
    const inline = cmd.customer;
    // The simulator's record of a first authorization commits in the charge's statement.
    const records: PendingRecord[] = [];
    const authorize = () => processor.authorize({
      chargeId: id, amountMinor, currency, instrument: method.instrument,
      merchant: { id: merchant.id, name: merchant.name, city: merchant.city, pixKey: merchant.pixKey },
      customer: processorCustomer(existingCustomer, inline),
      now: at, publicBaseUrl: deps.config.publicBaseUrl,
      // The same condition as committed(): a seed used before may have reached a processor.
      resumed: Boolean(ctx.idempotencySeed) && !ctx.idempotencySeedFresh,
      recordWith: (record) => records.push(record),
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
      paymentMethod: method.methodView, installments: method.installments, processor: result.servedBy ?? processor.name,
      spread: fees.spread, anticipationFee: fees.anticipationFee, net: fees.net,
      items: cmd.items ?? null, shippingAddress: cmd.shippingAddress ?? null, trackingInfo: cmd.trackingInfo ?? null,
      metadata: cmd.metadata ?? null, postbackUrl, split, createdAt: at, updatedAt: at, ...(repo.createdApart(id, at) ? { createdApart: true } : {}),
      freightAmount: cmd.freight?.amountMinor ?? null, freightDetails: cmd.freight?.details ?? null,
      paymentLinkId: cmd.paymentLinkId ?? null, subscriptionId: cmd.subscriptionId ?? null,
      ...outcome(result, method.methodType, method.methodView, at),
    }, customer.row, [...records.map(pendingRecordWrite), ...(customer.write ? [customer.write] : [])])) ?? (await repo.findCharge(db, ctx, id));
    // Taken over concurrently (a retry after the lease ran out, while this one was slow): the
    // other attempt committed this id first; its charge is the answer.
    if (!charge) throw new Error(`charge ${id} neither inserted nor found`);
    faultPoint("charge.after-commit");
    return createdView(charge);
  }

  async function prepare(ctx: RequestCtx, cmd: ChargeCommand, at: Date): Promise<PreparedCharge> {
    checkCommandAmount(cmd, deps.config.amountLimits);
    const { amountMinor, currency } = cmd;
    checkCustomer(cmd.customer);
    deps.customers.validateInline(cmd.customer);
    checkSplit(ctx, cmd.split);
    // The charge's split, else the merchant's default; checked before the processor is called.
    const split = await deps.connect.checkCharge(ctx, cmd.split);
    const existingCustomer = cmd.customer.id ? await deps.customers.get(ctx, cmd.customer.id) : null;
    // The request's own problems come first, then what this environment's processor refuses.
    const method = await normalizeMethod(ctx, cmd.paymentMethod, { amountMinor, currency }, cmd.customer.id, {
      cards: deps.cards, now: at, processor: deps.processors.route(ctx.environment),
      customer: processorCustomer(existingCustomer, cmd.customer),
    });
    const postbackUrl = cmd.postbackUrl
      ? await checkDestination(cmd.postbackUrl, ctx.environment, deps.config, "postbackUrl")
      : null;
    const processor = routeFor(ctx);
    return {
      scope: scopeOf(ctx), cmd, at, amountMinor, currency, method, postbackUrl, processor, existingCustomer, split,
    };
  }

  const createdView = (c: ChargeRow) =>
    ({ id: c.id, status: c.status, paymentDetails: c.paymentDetails, reason: c.reason });

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

  return { check, priced, create, submit, fromBody, processorFor };
}

/** The buyer as a processor sees it: the stored customer, or the one the request describes. */
function processorCustomer(existing: CustomerRow | null, inline: ChargeCommand["customer"]): CustomerInput {
  return existing
    ? { name: existing.name, email: existing.email, documentId: existing.documentId, documentType: existing.documentType, phone: existing.phone, address: postalAddressOf(existing.address) }
    : { name: inline.name ?? "", email: inline.email ?? null, documentId: inline.document?.id ?? null, documentType: inline.document?.type ?? null, phone: inline.phone ?? null, address: postalAddressOf(inline.address) };
}


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
}

export type ChargeCheck =
  | { ok: true; charge: PreparedCharge }
  | { ok: false; problems: AppError[] };
