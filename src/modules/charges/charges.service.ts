import type { Static } from "typebox";
import type { Config } from "../../config.js";
import { withTx, type Db, type Tx } from "../../db/client.js";
import { AppError, invalid, notFound } from "../../http/errors.js";
import type { Environment, RequestCtx } from "../../http/context.js";
import type { PageQuery } from "../../http/pagination.js";
import { faultPoint } from "../../lib/faults.js";
import { seededId } from "../../lib/ids.js";
import type { AuthorizeResult, PaymentProcessor } from "../../processors/processor.js";
import type { CustomerRow } from "../customers/customers.service.js";
import type { CustomerService } from "../customers/customers.service.js";
import type { ConnectService } from "../connect/connect.service.js";
import { computeChargeFees } from "../ledger/fees.js";
import type { MerchantService } from "../merchants/merchants.service.js";
import { checkDestination } from "../webhooks/destination.js";
import { checkCustomer, checkSplit, normalizeMethod, normalizeMoney, type SavedCards } from "./charge-input.js";
import { EVENT_FOR_STATUS, type ChargeEffects } from "./charge-effects.js";
import type { ChargeStatus } from "./charge-status.js";
import { toChargeResponse, type ChargeRow } from "./charges.mapper.js";
import * as repo from "./charges.repo.js";
import type { CreateChargeBody } from "./charges.schemas.js";

export interface ChargeServiceDeps {
  db: Db;
  config: Pick<Config, "publicBaseUrl" | "webhookAllowPrivateUrls" | "production">;
  processors: { forEnvironment(env: "sandbox" | "production"): PaymentProcessor | null };
  merchants: Pick<MerchantService, "chargeProfile">;
  customers: Pick<CustomerService, "get" | "resolveForCharge" | "validateInline">;
  cards: SavedCards;
  effects: ChargeEffects;
  /** Connect's rules: split recipients, default split, submerchants that are not active. */
  connect: Pick<ConnectService, "checkCharge" | "checkCanResend">;
  now?: () => Date;
}

/**
 * What only the server sets on a charge (a payment link's re-quoted freight and its id): never
 * from a client's body, where rejectServerFields refuses them.
 */
export interface ServerFields {
  freightAmountMinor?: number | null;
  freightDetails?: Record<string, unknown> | null;
  paymentLinkId?: string | null;
}

/** What expiry does to an unpaid payer-paid charge, for the janitor and the sandbox alike. */
const EXPIRY = { to: "failed", patch: { reason: "expired" } } satisfies { to: ChargeStatus; patch: Partial<ChargeRow> };

const SANDBOX_ONLY = () => new AppError("forbidden", "Forbidden: sandbox endpoints need a sandbox (sk_test_) key");

export function createChargeService(deps: ChargeServiceDeps) {
  const { db, effects } = deps;
  const now = deps.now ?? (() => new Date());

  function processorFor(ctx: { environment: Environment }): PaymentProcessor {
    const p = deps.processors.forEnvironment(ctx.environment);
    if (!p) throw invalid("No payment processor is configured for production charges (set PAYMENT_PROCESSOR); use a sandbox key to test");
    return p;
  }

  /**
   * POST /v1/charges. Everything is checked first; the processor is called outside any
   * transaction; then one transaction writes the customer, the charge, its ledger postings and
   * its events (charge.created, then charge.pending / charge.paid / charge.updated).
   *
   * Under an Idempotency-Key the charge id comes from the claim's seed, so a retry after a
   * crash finds the charge the first attempt committed and answers with it, or, if nothing was
   * committed, authorizes again under the same id, which the processor answers with its first
   * result: one authorization and one charge per key, whatever crashes.
   */
  async function create(ctx: RequestCtx, body: Static<typeof CreateChargeBody>, server: ServerFields = {}) {
    const id = seededId("ch", ctx.idempotencySeed);
    // A seed used before (a claim taken over, a retry after a 5xx, a subscription's attempt) may
    // have committed this charge; a claim's fresh seed cannot have.
    if (ctx.idempotencySeed && !ctx.idempotencySeedFresh) {
      const earlier = await repo.findCharge(db, ctx, id);
      if (earlier) return createdView(earlier);
    }
    const at = now();
    const { amountMinor, currency, method, postbackUrl, processor, existingCustomer, split } = await prepare(ctx, body, at);
    const { merchant, fees: feeTable } = await deps.merchants.chargeProfile(ctx.merchantId);
    const fees = computeChargeFees(feeTable, {
      amountMinor, currency, paymentMethod: method.methodType, brand: method.brand, installments: method.installments,
    });

    // An inline customer is found by its contact or created on its own, while the processor
    // answers (one round trip less on the way to the charge's statement): a customer without a
    // charge (the processor failed, the charge's statement failed, a crash) is found again by
    // the retry.
    const [result, customer] = await Promise.all([
      processor.authorize({
        chargeId: id, amountMinor, currency, instrument: method.instrument,
        merchant: { id: merchant.id, name: merchant.name, city: merchant.city, pixKey: merchant.pixKey },
        customer: existingCustomer
          ? { name: existingCustomer.name, email: existingCustomer.email, documentId: existingCustomer.documentId, documentType: existingCustomer.documentType }
          : { name: body.customer.name ?? "", email: body.customer.email ?? null, documentId: body.customer.document?.id ?? null, documentType: body.customer.document?.type ?? null },
        now: at, publicBaseUrl: deps.config.publicBaseUrl,
      }),
      existingCustomer ?? deps.customers.resolveForCharge(db, ctx, body.customer),
    ]);
    faultPoint("charge.after-authorize");

    // The charge is inserted in its first status, the processor's answer, with its events and
    // ledger posting: one statement (charge-effects create).
    const charge = (await effects.create(db, {
      id, merchantId: ctx.merchantId, environment: ctx.environment, customerId: customer.id,
      amount: amountMinor, currency, paymentMethodType: method.methodType,
      paymentMethod: method.methodView, installments: method.installments, processor: processor.name,
      spread: fees.spread, anticipationFee: fees.anticipationFee, net: fees.net,
      items: body.items ?? null, shippingAddress: body.shippingAddress ?? null, trackingInfo: body.trackingInfo ?? null,
      metadata: body.metadata ?? null, postbackUrl, split, createdAt: at, updatedAt: at,
      freightAmount: server.freightAmountMinor ?? null, freightDetails: server.freightDetails ?? null, paymentLinkId: server.paymentLinkId ?? null,
      ...outcome(result, method.methodType, method.methodView, at),
    }, customer)) ?? (await repo.findCharge(db, ctx, id));
    // Taken over concurrently (a retry after the lease ran out, while this one was slow): the
    // other attempt committed this id first; its charge is the answer.
    if (!charge) throw new Error(`charge ${id} neither inserted nor found`);
    faultPoint("charge.after-commit");
    return createdView(charge);
  }

  /**
   * Every check of a create, with no side effect: `validate` lets another module (subscriptions)
   * refuse a request before it writes anything of its own, with the same rules and messages.
   */
  async function prepare(ctx: RequestCtx, body: Static<typeof CreateChargeBody>, at: Date) {
    const { amountMinor, currency } = normalizeMoney(body.amount, body.currency);
    checkCustomer(body.customer);
    deps.customers.validateInline(body.customer);
    checkSplit(ctx, body.split);
    // The charge's split, else the merchant's default; checked before the processor is called.
    const split = await deps.connect.checkCharge(ctx, body.split);
    const method = await normalizeMethod(ctx, body.paymentMethod, { amountMinor, currency }, body.customer.id, { cards: deps.cards, now: at });
    const postbackUrl = body.postbackUrl
      ? await checkDestination(body.postbackUrl, ctx.environment, deps.config, "postbackUrl")
      : null;
    const processor = processorFor(ctx);
    const existingCustomer = body.customer.id ? await deps.customers.get(ctx, body.customer.id) : null;
    return { amountMinor, currency, method, postbackUrl, processor, existingCustomer, split };
  }

  async function validate(ctx: RequestCtx, body: Static<typeof CreateChargeBody>): Promise<void> {
    await prepare(ctx, body, now());
  }

  const createdView = (c: ChargeRow) =>
    ({ id: c.id, status: c.status as ChargeStatus, paymentDetails: c.paymentDetails, reason: c.reason });

  /** The processor's answer as the charge's first status and fields. */
  function outcome(r: AuthorizeResult, methodType: string, view: Record<string, unknown>, at: Date) {
    const cardDetails = methodType === "credit_card"
      ? { firstSix: view.firstSix, lastFour: view.lastFour, expirationMonth: view.expirationMonth, expirationYear: view.expirationYear, holderName: view.holderName, installments: view.installments, brand: view.brand }
      : {};
    const details = { ...cardDetails, ...("details" in r ? r.details : {}) };
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
        return { status: r.outcome, pspRefId: r.pspRefId ?? null, paymentDetails, reason: r.reason, isBlocked: r.outcome === "refused" && Boolean(r.blocked) };
    }
  }

  async function get(ctx: RequestCtx, id: string): Promise<ChargeRow> {
    const row = await repo.findCharge(db, ctx, id);
    if (!row) throw notFound("Charge", id);
    return row;
  }

  /** A charge made through a payment link, for the checkout page's status poll. */
  async function findForLink(scope: Pick<RequestCtx, "merchantId" | "environment">, paymentLinkId: string, id: string) {
    const row = await repo.findCharge(db, scope as RequestCtx, id);
    return row && row.paymentLinkId === paymentLinkId ? row : undefined;
  }

  async function list(ctx: RequestCtx, query: PageQuery & { status?: string; paymentMethod?: string; customerId?: string; paymentLinkId?: string }) {
    const page = await repo.listCharges(db, ctx, query);
    return { data: page.data.map(toChargeResponse), hasMore: page.hasMore };
  }

  /** Sends an event with a simulated status for a sandbox charge; stores no change to it. */
  async function resendWebhook(ctx: RequestCtx, id: string, status: ChargeStatus) {
    const charge = await get(ctx, id);
    if (charge.environment !== "sandbox") throw invalid("resend-webhook is only available for test-mode charges (created with a sandbox key)");
    await deps.connect.checkCanResend(charge.merchantId);
    const event = EVENT_FOR_STATUS[status];
    const eventId = await withTx(db, (tx) => effects.announce(tx, charge, event, { status }));
    return { eventId, event, status };
  }

  // Sandbox actions that stand in for the payer, the issuer's 3DS page and the risk review.
  async function sandboxAct(ctx: RequestCtx, id: string, act: (c: ChargeRow) => Promise<{ to: ChargeStatus; patch: Partial<ChargeRow> }>) {
    if (ctx.environment !== "sandbox") throw SANDBOX_ONLY();
    const charge = await get(ctx, id);
    const { to, patch } = await act(charge);
    return toChargeResponse(await withTx(db, (tx) => effects.moveTo(tx, charge, to, patch)));
  }

  const pay = (ctx: RequestCtx, id: string) => sandboxAct(ctx, id, async (c) => {
    if (c.paymentMethodType === "credit_card") throw new AppError("invalid_state", `Charge ${c.id} is a card charge; only payer-paid methods (Pix, boleto, ...) are paid this way`);
    return { to: "paid", patch: { paidAt: now() } };
  });

  // Stands in for the clock: the same transition and reason as the expiry janitor, now.
  const expire = (ctx: RequestCtx, id: string) => sandboxAct(ctx, id, async (c) => {
    if (c.paymentMethodType === "credit_card" || c.status !== "pending") {
      throw new AppError("invalid_state", `Charge ${c.id} is ${c.status === "pending" ? "a card charge" : c.status}; only a pending payer-paid charge (Pix, boleto, ...) expires`);
    }
    return EXPIRY;
  });

  const authenticate = (ctx: RequestCtx, id: string, result: "succeeded" | "failed") => sandboxAct(ctx, id, async (c) => {
    if (c.status !== "authentication_required") throw new AppError("invalid_state", `Charge ${c.id} is ${c.status}, not authentication_required`);
    if (result === "failed") return { to: "refused", patch: { reason: "authentication_failed" } };
    const captured = await processorFor(ctx).capture({ chargeId: c.id, pspRefId: c.pspRefId ?? "", amountMinor: c.amount });
    return captured.outcome === "paid"
      ? { to: "paid", patch: { paidAt: now() } }
      : { to: captured.outcome, patch: { reason: captured.reason } };
  });

  const review = (ctx: RequestCtx, id: string, result: "approved" | "rejected") => sandboxAct(ctx, id, async (c) => {
    if (c.status !== "in_analysis") throw new AppError("invalid_state", `Charge ${c.id} is ${c.status}, not in_analysis`);
    return result === "approved" ? { to: "paid", patch: { paidAt: now() } } : { to: "refused", patch: { reason: "rejected_by_review" } };
  });

  /**
   * The payer's answer on a sandbox bank page (Open Finance consent, PSE): approve pays the
   * charge, reject refuses it. Only pending sandbox charges of that method.
   */
  async function bankDecision(id: string, method: "open_finance" | "pse", decision: "approve" | "reject") {
    const charge = await repo.findSandboxCharge(db, id);
    if (!charge || charge.paymentMethodType !== method) throw notFound("Charge", id);
    const to = decision === "approve" ? "paid" : "refused";
    const patch = decision === "approve" ? { paidAt: now() } : { reason: "rejected_by_payer" };
    return withTx(db, (tx) => effects.moveTo(tx, charge, to, patch));
  }

  async function findSandbox(id: string) {
    return repo.findSandboxCharge(db, id);
  }

  /**
   * The expiry janitor: an unpaid charge past its expiresAt (Pix, boleto and the other
   * payer-paid methods) fails with reason "expired": the legacy charge.updated goes to its
   * postback URL and charge.failed to the endpoints. The guarded transition makes a payment that
   * lands at the same moment win or lose cleanly, never both.
   */
  async function expireUnpaid(): Promise<number> {
    let n = 0;
    for (const c of await repo.expiredPendingCharges(db, 100)) {
      const moved = await withTx(db, (tx) => effects.moveTo(tx, c, EXPIRY.to, EXPIRY.patch))
        .then(() => 1, (err: unknown) => {
          if (err instanceof AppError && (err.code === "conflict" || err.code === "invalid_state")) return 0; // paid meanwhile
          throw err;
        });
      n += moved;
    }
    return n;
  }

  return { expireUnpaid, create, validate, get, findForLink, list, resendWebhook, pay, expire, authenticate, review, bankDecision, findSandbox, processorFor };
}

export type ChargeService = ReturnType<typeof createChargeService>;
