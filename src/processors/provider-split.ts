// A split as a processor takes it in `provider` settlement (docs/guarantees.md, "Money in provider settlement"): the
// sellers' shares in cents, computed by feira (modules/ledger/split.ts), so that the processor's
// books and feira's agree to the cent. Each adapter writes it in its own dialect
// (docs/processors.md, "Split dialects"). A share names the seller's account at every processor
// where it has an active one: a route's failover only tries processors where every share has
// one (router.ts), and each adapter reads its own (sharesAt).

/** A seller's account at one processor. */
export interface ProviderAccountRef {
  /** Pagar.me's recipient id, Efí's account number, Mercado Pago's user id, the sandbox's id. */
  account: string;
  /** The seller's CNPJ (Efí's split names the favorecido by it). */
  taxId?: string;
  /** Mercado Pago: the seller's OAuth access token; the payment is made on its account. */
  accessToken?: string;
  /** Mercado Pago: the seller's public key, for a card tokenized for its account. */
  publicKey?: string;
}

/**
 * What a call about a provider-settled payment carries when the payment is a seller's own at the
 * processor (an adapter declaring `sellerOwned`: Mercado Pago's marketplace model): the charge's
 * sellers' accounts there, tokens fresh, so that the payment is read, cancelled and refunded on
 * the seller's account, where it is.
 */
export interface SellerAccounts {
  sellers?: readonly ProviderAccountRef[];
}

/** The split's sellers' accounts at `processor`, as a call made while authorizing carries them ({} without a split or an account there). */
export function sellersAt(split: ProviderSplit | undefined, processor: string): SellerAccounts {
  const shares = split ? sharesAt(split, processor) : null;
  return shares && shares.length > 0 ? { sellers: shares } : {};
}

export interface ProviderShare {
  submerchantId: string;
  amountMinor: number;
  /** Answers for chargebacks and refunds at the processor (Pagar.me's `liable`). */
  liable: boolean;
  /** Pays the processor's fee (Pagar.me's `charge_processing_fee`). */
  feeBearer: boolean;
  /** The seller's accounts by processor name (active ones only). */
  at: Readonly<Record<string, ProviderAccountRef>>;
}

export interface ProviderSplit {
  shares: readonly ProviderShare[];
  /** The operator's part: the charge's amount less the shares (fees included). */
  operatorMinor: number;
}

export type ResolvedShare = Omit<ProviderShare, "at"> & ProviderAccountRef;

/** The shares with their accounts at `processor`, or null when a seller has none there. */
export function sharesAt(split: ProviderSplit, processor: string): ResolvedShare[] | null {
  const out: ResolvedShare[] = [];
  for (const { at, ...share } of split.shares) {
    const ref = at[processor];
    if (!ref) return null;
    out.push({ ...share, ...ref });
  }
  return out;
}

/**
 * Whether `processor` can take the split: its adapter sends splits (`sendsSplit`, declared by the
 * adapters that do: docs/processors.md, "Split dialects"), as many sellers as its payments take
 * (`splitSellers`, when it declares a limit) and every seller has an active account there. A provider-settled split routed to an adapter that does not send one is refused before
 * any call rather than charged whole to the operator while the ledger books the sellers' shares
 * at the processor.
 */
export const takesSplit = (split: ProviderSplit | undefined, processor: string, sends: boolean, maxSellers?: number): boolean =>
  !split || (sends && (maxSellers === undefined || split.shares.length <= maxSellers) && sharesAt(split, processor) !== null);

/** Whether an adapter declaring `sendsSplit` carries a split of `method` (`true`: of every method it serves). */
export const sendsSplitFor = (sendsSplit: true | readonly string[] | undefined, method: string): boolean =>
  sendsSplit === true || (sendsSplit?.includes(method) ?? false);
