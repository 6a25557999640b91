import type { ProcessorFailure } from "./failure.js";

// A seller's own account at a processor (provider settlement): what a split at that processor
// names. An adapter that can hold sellers' accounts declares `accounts` (processor.ts); the
// Connect module keeps the account's row and asks the adapter to open it and read it back. As
// everywhere behind the seam, an expected refusal is a value and `unknown` means no answer.

/** The seller as the processor registers it; `code` is feira's submerchant id, the key a read-back finds it by. */
export interface AccountHolder {
  code: string;
  legalName: string;
  tradeName: string;
  email: string;
  /** 14 characters, unmasked. */
  companyTaxId: string;
  /** The seller's payout schedule, which becomes the processor's automatic transfers; null: manual. */
  schedule?: TransferSchedule | null;
}

/** A seller's payout schedule (weekDay 1 = Monday .. 7 = Sunday, monthDay 1-28, minimumAmount in cents); null: manual. */
export type TransferSchedule = {
  interval: "daily" | "weekly" | "monthly";
  weekDay: number | null;
  monthDay: number | null;
  minimumAmount: number;
} | null;

export type ScheduleApplied =
  | { outcome: "applied" }
  | { outcome: "refused"; message: string }
  | { outcome: "unknown"; failure: ProcessorFailure };

export type AccountState =
  | { outcome: "pending" | "active"; externalId: string; providerStatus: string }
  /** The processor refused the seller: `reason` is the processor's own text or code. */
  | { outcome: "refused"; externalId: string | null; reason: string; providerStatus?: string }
  | { outcome: "not_found" }
  | { outcome: "unknown"; failure: ProcessorFailure };

/** The seller's tokens at the processor after an OAuth authorization or a refresh. */
export type TokenGrant =
  /** `publicKey`: the seller's public key, for what is tokenized on its account (a card). */
  | { outcome: "granted"; accessToken: string; refreshToken: string; expiresAt: Date; externalId: string; publicKey?: string }
  | { outcome: "refused"; message: string }
  | { outcome: "unknown"; failure: ProcessorFailure };

/**
 * What the processor holds for a seller (provider settlement's daily reconciliation): the money
 * at the processor not yet transferred to the seller's bank, in cents; not_found when the
 * account is gone; unknown when there was no answer to rely on.
 */
export type AccountBalance =
  | { outcome: "read"; amountMinor: number; currency: string }
  | { outcome: "not_found" }
  | { outcome: "unknown"; failure: ProcessorFailure };

/** A transfer the processor made from the seller's balance there to the seller's bank (cents). */
export interface ProviderTransfer { id: string; amountMinor: number; createdAt: Date }

/** The processor's transfers of a seller that are done (the money left its balance); unknown: no answer. */
export type ProviderTransfers =
  | { outcome: "read"; transfers: ProviderTransfer[] }
  | { outcome: "unknown"; failure: ProcessorFailure };

/**
 * What feira knows of a seller's account when it reads the transfers: a processor answers from
 * its own books and ignores it; a simulator that keeps none (as `balance`'s `booked`) makes its
 * transfers from it. `now` is the scope's time (the sandbox's test clock), `schedule` the seller's
 * payout schedule (what `transfers.apply` was given) and `scheduleFrom` when it was set (null: not
 * known); `booked()` reads feira's atProvider figure for the account in cents, and `recorded(id)`
 * whether feira has booked a transfer out of it already (asked first, a figure read after it
 * can only be lower).
 */
export interface TransferBooks {
  now: Date;
  currency: string;
  schedule: TransferSchedule;
  scheduleFrom: Date | null;
  booked(): Promise<number>;
  recorded(transferId: string): Promise<boolean>;
}

export interface AccountCapability {
  /**
   * The body's problems (everything but `processor`), checked before any call: each a text that
   * starts with the field it names (`bankAccount.bank must be ...`); [] when it is good.
   */
  check(body: Readonly<Record<string, unknown>>): string[];
  /** What of the body may be kept and shown: never more than the last four digits of an account. */
  shown(body: Readonly<Record<string, unknown>>): Record<string, string>;
  /**
   * Opens the account (a checked body); idempotent per holder.code where the processor allows.
   * Absent when the account is opened by the seller's own authorization (`oauth`).
   */
  open?(holder: AccountHolder, body: Readonly<Record<string, unknown>>): Promise<AccountState>;
  /** The account made under holder.code, for a retry after a lost answer: not_found when none. */
  find(holder: AccountHolder, externalId: string | null): Promise<AccountState>;
  /**
   * The seller's balance at the processor. `booked` is what feira booked to the seller there (its
   * atProvider figure): a simulator that keeps no books of its own answers it; a processor
   * answers its own figure. Absent: the processor's balance cannot be read (no reconciliation).
   */
  balance?(input: { externalId: string; currency: string; booked: number }): Promise<AccountBalance>;
  /**
   * The processor pays the seller's balance to its bank on a schedule of its own (Pagar.me's
   * transfer_settings): `check` says what of a schedule it cannot do (a text naming the field),
   * before anything is saved; `apply` sets it on the account. Absent: the processor has none.
   */
  transfers?: {
    check(schedule: TransferSchedule): string | null;
    apply(externalId: string, schedule: TransferSchedule): Promise<ScheduleApplied>;
  };
  /**
   * The transfers the processor made on its own schedule to the seller's bank, done ones only
   * (provider settlement's read-only payout records). Absent: the processor makes none feira sees.
   */
  transfersDone?(externalId: string, books: TransferBooks): Promise<ProviderTransfers>;
  /** The seller authorizes the marketplace's application at the processor (Mercado Pago's OAuth). */
  oauth?: {
    authorizeUrl(state: string, redirectUri: string): string;
    exchange(code: string, redirectUri: string): Promise<TokenGrant>;
    refresh(refreshToken: string): Promise<TokenGrant>;
  };
}

/** The last four characters of an account number, masked, as answers and events may show it. */
export const lastFour = (value: string): string => `****${value.slice(-4)}`;
