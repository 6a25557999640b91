import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { MerchantService } from "../merchants/index.js";
import type { ChargeStatus } from "./charge-status.js";
import type { Scope } from "../../db/scope.js";
import { amountDueOn } from "./amount-due.js";
import { paidBreakdownOf, termsOfCharge, type ChargeRow } from "./charges.mapper.js";
import * as repo from "./charges.repo.js";

// The charge's page for the buyer (GET /r/{token}, rendered by src/web/charge.page.ts): what the
// buyer of one charge needs and nothing more. The token is the charge's `page_token` (256 bits
// made by the charge's insert: src/db/schema/core.ts); a token names one charge and nothing else,
// and a wrong one is told apart from nothing (no page, no detail).

/** A page token as the charge's insert writes it: 43 characters of base64url (256 bits). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The buyer's page of a charge: what e-mails link to and the API shows as `pageUrl`. */
export function chargePageUrl(config: Pick<Config, "publicBaseUrl">, token: string): string {
  return `${config.publicBaseUrl}/r/${token}`;
}

/**
 * What the buyer owes on the charge on `day` (Brasília; the test clock's in the sandbox): the amount,
 * or for a boleto or Pix with a due date its discount, fine and interest (amount-due.ts).
 */
export function amountDueOf(c: ChargeRow, day: string): number {
  return amountDueOn(c.amount, termsOfCharge(c), day).total;
}

/** How to pay a pending charge: the boleto's line (and its Pix, when it has one), or the Pix code. */
export type HowToPay =
  | { kind: "pix"; code: string }
  | { kind: "boleto"; line: string; formattedLine: string | null; dueDate: string | null; pixCode: string | null }
  | { kind: "other" };

export interface ChargePageView {
  livemode: boolean;
  merchantName: string;
  /** The merchant's time zone, in which dates are written. */
  timezone: string;
  chargeId: string;
  status: ChargeStatus;
  reason: string | null;
  currency: string;
  amountMinor: number;
  amountDueMinor: number;
  amountRefundedMinor: number;
  method: string;
  /** A card's brand and last four digits, so the buyer knows which card paid. */
  card: { brand: string | null; lastFour: string | null } | null;
  installments: number;
  /** Only while the charge waits for the buyer's payment. */
  howToPay: HowToPay | null;
  expiresAt: Date | null;
  paidAt: Date | null;
}

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

function howToPay(c: ChargeRow): HowToPay | null {
  if (c.status !== "pending") return null;
  const d = (c.paymentDetails ?? {}) as Record<string, unknown>;
  const line = text(d.digitableLine);
  if (c.paymentMethodType === "boleto" && line) {
    return { kind: "boleto", line, formattedLine: text(d.formattedLine), dueDate: text(d.dueDate), pixCode: text(d.pixQrCode) };
  }
  const code = text(d.qrCode);
  if (c.paymentMethodType === "pix" && code) return { kind: "pix", code };
  return { kind: "other" };
}

export function toPageView(c: ChargeRow, merchant: { name: string; timezone: string }, day: string): ChargePageView {
  const pm = c.paymentMethod as Record<string, unknown>;
  const card = c.paymentMethodType === "credit_card" || c.paymentMethodType === "debit_card"
    ? { brand: text(pm.brand), lastFour: text(pm.lastFour) }
    : null;
  return {
    livemode: c.environment === "production", merchantName: merchant.name, timezone: merchant.timezone,
    chargeId: c.id, status: c.status, reason: c.reason, currency: c.currency,
    // Once paid, what the buyer paid (with a late payment's fine and interest, less a discount).
    amountMinor: paidBreakdownOf(c)?.total ?? c.amount, amountDueMinor: amountDueOf(c, day), amountRefundedMinor: c.amountRefunded,
    method: c.paymentMethodType, card, installments: c.installments, howToPay: howToPay(c),
    expiresAt: c.expiresAt, paidAt: c.paidAt,
  };
}

export function createChargePage(deps: {
  db: Db; merchants: Pick<MerchantService, "getProfile">;
  /** The day the amount due is computed for (the sandbox test clock's for a charge with terms). */
  dayFor(scope: Scope, c: ChargeRow): Promise<string>;
}) {
  /** The page of the charge this token names; undefined for any token that names none. */
  async function view(token: string): Promise<ChargePageView | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const charge = await repo.findByPageToken(deps.db, token);
    if (!charge) return undefined;
    const day = await deps.dayFor({ merchantId: charge.merchantId, environment: charge.environment }, charge);
    return toPageView(charge, await deps.merchants.getProfile(charge.merchantId), day);
  }
  return { view };
}

export type ChargePage = ReturnType<typeof createChargePage>;
