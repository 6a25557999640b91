// The narrow interface every payment processor implements, split in two: what a new charge needs
// from a route of processors, and what one adapter offers (its optional capabilities declared,
// not stubbed). The simulator is one adapter; live ones plug in through their definitions
// (definition.ts). Expected declines are values, never exceptions; an exception means the
// processor could not be reached or misbehaved.
import type { AccountCapability } from "./accounts.js";
import type { ProcessorFailure } from "./failure.js";
import type { LookupInput } from "./lookup-input.js";
import type { ProviderSplit, SellerAccounts } from "./provider-split.js";

export type { ProcessorFailure, ProcessorFailureKind } from "./failure.js";

export type PaymentMethodType =
  | "credit_card" | "pix" | "open_finance" | "qr_code" | "boleto" | "bank_transfer" | "oxxo" | "spei" | "pse"
  // A period's debit under a Pix Automático mandate: made by the billing engine only, never by a request.
  | "pix_automatico";

/** What a processor sees of a card: the PAN only in memory, for the call. */
export interface CardInstrument {
  kind: "card";
  number: string;
  brand: string;
  holderName: string;
  expirationMonth: string;
  expirationYear: string;
  cvv?: string;
  installments: number;
  threeDSMode: "managed" | "none";
  /** Present when the card came from a wallet (Apple Pay / Google Pay) token. */
  wallet?: { type: "apple_pay" | "google_pay"; token: string };
}

export interface AsyncInstrument {
  kind: Exclude<PaymentMethodType, "credit_card">;
  /** Seconds until the payment instructions expire. */
  expiresIn: number;
  /** Method-specific inputs, already validated (e.g. boleto dueDate, pse bank and document). */
  options: Record<string, unknown>;
}

export interface AuthorizeInput {
  /**
   * Also the idempotency key of the call: a processor answers a repeated authorization of the
   * same charge id with its first result, never with a second authorization (the id stays the
   * same when a request is retried after a crash, see http/idempotency.ts). Real adapters send
   * it as the provider's reference too, so lookup() finds the payment after a lost answer.
   */
  chargeId: string;
  amountMinor: number;
  currency: string;
  instrument: CardInstrument | AsyncInstrument;
  /**
   * `softDescriptor`: the merchant's text for the buyer's card statement (PATCH /v1/merchants/me),
   * which a card adapter sends cut to its provider's documented length (statementDescriptor()).
   */
  merchant: { id: string; name: string; city: string; pixKey: string; softDescriptor?: string | null };
  customer: CustomerInput | null;
  now: Date;
  publicBaseUrl: string;
  /** What the payer reads on the statement or the Pix/boleto (the charge's description). */
  description?: string;
  /**
   * An earlier attempt may have sent this charge id to a processor (a retry of an Idempotency-Key
   * whose claim was taken over or released after a 5xx, or a subscription's attempt, whose id is
   * derived and may have been used by a run that died).
   * A router then looks the payment up at every processor of the route before authorizing.
   */
  resumed?: boolean;
  /**
   * Given by a caller that commits the charge in one statement: a processor whose records live
   * in feira's database (the simulator) hands the record of a first authorization here, to be
   * written in that statement, instead of committing it on its own before answering. The record
   * and the charge then exist together or not at all; a resumed call records as before.
   */
  recordWith?: (record: PendingRecord) => void;
  /**
   * `provider` settlement (docs/guarantees.md, "Money in provider settlement"): the sellers' shares, in cents computed by
   * feira, that the processor pays to each seller's own account there. Absent: the whole amount
   * is the operator's (platform settlement, or no split).
   */
  split?: ProviderSplit;
}

/** A processor's record of an answer, written by the caller (ProcessorRecords' table). */
export interface PendingRecord {
  operation: string;
  key: string;
  result: Record<string, unknown>;
}

export interface CustomerInput {
  name: string;
  email: string | null;
  /**
   * As stored, or as the request typed it (a mask included); adapters send it through
   * documents.ts, which normalizes it and keeps what their provider takes.
   */
  documentId: string | null;
  documentType: string | null;
  /** As the buyer wrote it (`+55 11 91234-5678`); adapters split it as their provider needs. */
  phone?: string | null;
  address?: PostalAddress | null;
}

export interface PostalAddress {
  postalCode: string;
  street: string;
  number: string;
  complement?: string;
  neighborhood?: string;
  city: string;
  state: string;
  country: string;
}

/** The provider's own status or decline code, kept on the charge for support. */
type ProviderCoded = { providerCode?: string };

/** What the payer paid (minor units) when it may differ from the amount (a boleto's or a due-date Pix's terms); `parts` when the provider names them. */
export interface PaidAmount {
  totalMinor: number;
  parts?: { fineMinor: number; interestMinor: number; discountMinor: number };
}

export type AuthorizeResult =
  | ({ outcome: "paid"; pspRefId: string; details?: Record<string, unknown>; paidAmount?: PaidAmount } & ProviderCoded)
  /** Awaiting the payer (Pix, boleto, ...): details carry the payment instructions. */
  | ({ outcome: "pending"; pspRefId: string; details: Record<string, unknown>; expiresAt: Date } & ProviderCoded)
  | ({ outcome: "in_analysis"; pspRefId: string; details?: Record<string, unknown> } & ProviderCoded)
  | ({ outcome: "authentication_required"; pspRefId: string; details: Record<string, unknown> } & ProviderCoded)
  | ({ outcome: "refused"; reason: string; pspRefId?: string; blocked?: boolean } & ProviderCoded)
  /** `failure` is set when the provider refused the request itself (a 4xx): nothing was made. */
  | ({ outcome: "failed"; reason: string; pspRefId?: string; failure?: ProcessorFailure } & ProviderCoded)
  /**
   * No answer to rely on (timeout, lost connection, 5xx, 429, refused connection): the payment
   * may exist. The charge is kept pending and settled by lookup(chargeId); see routing.ts for
   * when a second processor may be tried instead.
   */
  | { outcome: "unknown"; failure: ProcessorFailure; pspRefId?: undefined };

/** A payment's state at the provider, in feira's terms. */
export type PaymentState =
  | Exclude<AuthorizeResult, { outcome: "unknown" }>
  /** Fully refunded (partial refunds keep `paid`, with refundedMinor). */
  | ({ outcome: "refunded"; pspRefId: string } & ProviderCoded)
  /**
   * The payer's bank took the money back (a chargeback, a Pix MED). `disputes`: the disputes the
   * read carries (a Pix may have several MED returns), when the adapter serves disputes; they
   * then go through the dispute path.
   */
  | ({ outcome: "charged_back"; pspRefId: string; disputes?: readonly FoundDispute[] } & ProviderCoded);

export type LookupResult =
  | (PaymentState & { refundedMinor?: number })
  /** The provider has no payment under this reference: it never made one. */
  | { outcome: "not_found" }
  | { outcome: "unknown"; failure: ProcessorFailure };

export type CaptureResult = { outcome: "paid" } | { outcome: "refused" | "failed"; reason: string };
export type RefundResult =
  | ({ outcome: "succeeded"; refundRef: string } & ProviderCoded)
  /**
   * Accepted but not finished, or no answer to rely on (then `failure` says why and refundRef
   * may be null): settle later with refundStatus, never by sending another refund.
   */
  | ({ outcome: "pending"; refundRef: string | null; failure?: ProcessorFailure } & ProviderCoded)
  | ({ outcome: "failed"; reason: string; failure?: ProcessorFailure } & ProviderCoded);
export type CancelResult =
  | ({ outcome: "canceled" } & ProviderCoded)
  /** Paid, refunded or already final at the provider: read it with lookup(). */
  | ({ outcome: "not_cancelable" } & ProviderCoded)
  | { outcome: "unknown"; failure: ProcessorFailure };

/** What checkInstrument sees: the request's method inputs before any call. */
export interface InstrumentCheck {
  method: PaymentMethodType;
  currency: string;
  amountMinor: number;
  /** The async method's options (dueDate, bankCode, ...); empty for cards. */
  options: Record<string, unknown>;
  customer: CustomerInput | null;
  now: Date;
}

/** A card decoded from a wallet (Apple Pay / Google Pay) token. */
export interface WalletCard {
  number: string;
  expirationMonth: string;
  expirationYear: string;
}

/** A payout's Pix transfer, as the payouts capability receives it. */
export interface PayoutTransfer {
  payoutId: string;
  /**
   * The transfer's id at the provider, derived from the payout (Efí's idEnvio) and committed as
   * "sending" before the call: a second send under it is refused by the provider and read back.
   */
  transferId: string;
  amountMinor: number;
  currency: string;
  /** The submerchant's CNPJ (14 characters), its Pix key. */
  pixKey: string;
  pixKeyType: "cnpj";
  /** When it is ordered (the simulator dates its end-to-end id with it). */
  now: Date;
}

/**
 * A transfer at the provider: still being sent (Efí's EM_PROCESSAMENTO), sent with its Pix
 * end-to-end id (REALIZADO; `returnedMinor`: what the receiving bank has sent back of it so far),
 * failed with the provider's reason (NAO_REALIZADO: no money left), this send call refused (a
 * 4xx: this call made nothing, but an earlier call under the same id may still land, so only a
 * read-back judges the transfer), never received (not_found), or no answer to rely on.
 */
export type TransferState =
  | { outcome: "sending" }
  | { outcome: "sent"; endToEndId: string; returnedMinor?: number }
  | { outcome: "failed"; reason: string }
  | { outcome: "refused"; reason: string }
  | { outcome: "not_found" }
  | { outcome: "unknown"; failure: ProcessorFailure };

/** Pix-out: what pays payouts without the operator's own transfer (PAYOUT_PROVIDER, and the simulator). */
export interface PayoutCapability {
  /**
   * The provider asks for one send at a time from the account (Efí: the next send only once the
   * previous one has concluded): feira then starts a transfer only when no other is on its way.
   */
  oneAtATime?: boolean;
  /** Orders the transfer; idempotent per transferId (a repeated send answers the transfer's state). */
  send(transfer: PayoutTransfer): Promise<TransferState>;
  /** The transfer's state now, by its id: how a retry, a notice or the worker learns its end. */
  read(transfer: { transferId: string; now: Date }): Promise<TransferState>;
}

/** A dispute at the provider, in feira's terms (a chargeback, or a Pix MED). */
export type FoundDispute = {
  outcome: "needs_response" | "under_review" | "won" | "lost";
  /** The provider's id of the dispute: one feira dispute per (processor, disputeRef). */
  disputeRef: string;
  /** The payment it is about (the charge's pspRefId). */
  chargeRef: string;
  kind: "chargeback" | "pix_med";
  amountMinor: number;
  reason: string;
  /** Null when the provider takes no evidence (a dispute that opens already decided). */
  evidenceDueBy: Date | null;
};

export type DisputeState =
  | FoundDispute
  | { outcome: "not_found" }
  | { outcome: "unknown"; failure: ProcessorFailure };

/**
 * What sending evidence answers: the dispute after it, `submitted` (the provider took it and
 * answers nothing more: Efí's defence), the provider's refusal (its words as feira's text), or no
 * answer to rely on.
 */
export type EvidenceResult = DisputeState | { outcome: "submitted" } | { outcome: "refused"; message: string };

/**
 * A dispute a provider lists (Efí's infractions): `chargeRef()` reads which payment it is about
 * (the infraction names the Pix by its end-to-end id), null when that Pix is none of the
 * account's or cannot be read now (the next round tries again).
 */
export type ListedDispute = Omit<FoundDispute, "chargeRef"> & { chargeRef(): Promise<string | null> };

/**
 * Disputes, as an adapter serves them (its `disputes` member, like payouts): the provider's disputes open,
 * change and close feira's through the dispute path (disputes.service fromProvider), once per
 * (processor, disputeRef). A processor whose payment reads carry the dispute (Pagar.me's
 * chargedback, Efí's MED devolução) needs no lookup; one whose disputes are objects of their
 * own, named by their own notices (Mercado Pago's chargebacks), reads them with lookup. An
 * adapter that serves disputes never has a payment read's plain `charged_back` moved by itself:
 * only its disputes decide.
 */
export interface DisputeCapability {
  /** The provider's name as merchants know it (its dashboard, in feira's messages). */
  provider: string;
  /**
   * A dispute a notice names, read back from the provider; `sellers`: the seller's account it is
   * of, for a processor whose sellers' payments (and so their disputes) are the sellers' own.
   */
  lookup?(input: { disputeRef: string } & SellerAccounts): Promise<DisputeState>;
  /**
   * The provider's disputes opened or changed lately, for a provider that announces them by no
   * notice (Efí's MED infractions, read in a time window every round); each is applied once per
   * (processor, disputeRef).
   */
  recent?(input: { now: Date }): Promise<{ outcome: "read"; disputes: ListedDispute[] } | { outcome: "unknown"; failure: ProcessorFailure }>;
  /** Absent when evidence is answered in the provider's own dashboard (a 422 saying so). */
  submitEvidence?(input: { disputeRef: string; text: string; files: { name: string; contentType: string; data: Buffer }[] } & SellerAccounts): Promise<EvidenceResult>;
}

/**
 * What a new charge goes through: one processor (the simulator) or a route of live processors
 * (router.ts), which answers which adapter served it. Nothing else is asked of a route: every
 * later call about a charge goes to the adapter that made it (its processor column).
 */
export interface ChargeRoute {
  /** The adapter's name; a route's answers carry `servedBy` instead. */
  readonly name: string;
  /** A route's processors for a method, in the order it tries them; absent: only `name`. */
  candidates?(method: PaymentMethodType): readonly string[];
  /** Provider settlement: the named processor's `sendsSplit` for that method (a route's); absent: this processor's own. */
  sendsSplitAt?(name: string, method: PaymentMethodType): boolean;
  /** Its adapter carries a provider-settled split (provider-split.ts) of every method it serves (`true`) or of those listed. */
  readonly sendsSplit?: true | readonly PaymentMethodType[];
  /** The named processor's `splitSellers` (a route's); absent: only this processor's own. */
  splitSellersAt?(name: string): number | undefined;
  /** The most sellers one payment's split names here (one on the seller's own account); absent: any; more: refused before any call. */
  readonly splitSellers?: number;
  /** Whether this processor serves the method in that currency (checked before anything else). */
  supports(method: PaymentMethodType, currency: string): boolean;
  /**
   * The method's own rules this processor adds, checked before any call: the problem as a text
   * that starts with the field it names (`customer.phone is required ...`), or null.
   */
  checkInstrument(input: InstrumentCheck): string | null;
  /** The card inside a wallet token, or null; absent when this processor accepts no wallet token. */
  decodeWalletToken?(token: string, now: Date): WalletCard | null;
  /** `servedBy`: the adapter that answered, when this processor routes between several. */
  authorize(input: AuthorizeInput): Promise<AuthorizeResult & { servedBy?: string }>;
}

/**
 * What one adapter offers: a route of itself, the lookup every payment needs, and the optional
 * capabilities it declares (absent members are not served; callers check, nothing is stubbed).
 */
export interface PaymentProcessor extends ChargeRoute {
  /** The payment made under feira's reference (the charge id), as the provider sees it now. */
  lookup(input: LookupInput): Promise<LookupResult>;
  /** A provider-settled payment here is the seller's own: its lookups, cancels and refunds carry the sellers' accounts (SellerAccounts). */
  readonly sellerOwned?: true;
  /** A resumed charge's payment found here, completed as authorize() would have (e.g. a split linked) or failed. */
  adopt?(input: AuthorizeInput, found: Exclude<AuthorizeResult, { outcome: "unknown" }>): Promise<AuthorizeResult>;
  /** Cancels an unpaid Pix or boleto at the provider, so that it can no longer be paid. */
  cancel?(input: { chargeId: string; pspRefId: string } & SellerAccounts): Promise<CancelResult>;
  /** Finishes an authorization held for 3DS or review; idempotent per chargeId. */
  capture?(input: { chargeId: string; pspRefId: string; amountMinor: number }): Promise<CaptureResult>;
  /** Idempotent per refundId: a repeated call answers with the first result. Declared with refundStatus. */
  refund?(input: RefundInput): Promise<RefundResult>;
  /** A refund's state now (after `pending`); not_found when the provider never received it. */
  refundStatus?(input: RefundInput & { refundRef: string | null }): Promise<RefundResult | { outcome: "not_found" }>;
  /** Pix-out for payouts (the simulator; a live processor PAYOUT_PROVIDER may name). */
  payouts?: PayoutCapability;
  /** The provider's chargebacks and Pix MED as feira disputes (DisputeCapability above). */
  disputes?: DisputeCapability;
  /** Sellers' own accounts at the provider, for provider settlement (accounts.ts). */
  accounts?: AccountCapability;
}

/** An adapter's refunds (refund and refundStatus come together), or null when it declares none. */
export function refundsOf(p: PaymentProcessor): Required<Pick<PaymentProcessor, "refund" | "refundStatus">> | null {
  const { refund, refundStatus } = p;
  return refund && refundStatus ? { refund, refundStatus } : null;
}

/** The optional members an adapter serves, made required in its own type (adapter tests call them). */
export type Serves<K extends "cancel" | "capture" | "refund" | "refundStatus" | "payouts" | "decodeWalletToken" | "disputes"> =
  PaymentProcessor & Required<Pick<PaymentProcessor, K>>;

export interface RefundInput extends SellerAccounts {
  chargeId: string;
  pspRefId: string | null;
  amountMinor: number;
  refundId: string;
  /** The charge's amount: an adapter asks for a full refund when they are equal. */
  chargeAmountMinor?: number;
}

/**
 * Where a processor keeps what it answered, by operation and idempotency key. A real acquirer
 * keeps these on its side; the sandbox simulator is given a store (a table, in the app) so
 * that it behaves the same way across processes and restarts.
 */
export interface ProcessorRecords {
  /** The first result recorded for (operation, key); otherwise computes, records and returns it. */
  once(operation: string, key: string, compute: () => Promise<Record<string, unknown>>): Promise<Record<string, unknown>>;
  /** The result recorded for (operation, key), if any; records nothing. */
  find(operation: string, key: string): Promise<Record<string, unknown> | undefined>;
}

/** Records in this process's memory only (unit tests of processors). */
export function memoryRecords(): ProcessorRecords {
  const seen = new Map<string, Promise<Record<string, unknown>>>();
  return {
    once(operation, key, compute) {
      const k = `${operation}:${key}`;
      if (!seen.has(k)) seen.set(k, compute().then((r) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>));
      return seen.get(k)!;
    },
    async find(operation, key) {
      return seen.get(`${operation}:${key}`);
    },
  };
}
