// Pagar.me's split on an order's payment, for the fake (docs/processors.md, "Split dialects"):
// `payments[].split[]` of CreateSplitRequest {type, amount, recipient_id, options: {liable,
// charge_processing_fee, charge_remainder_fee}} (pagarme/pagarme-nodejs-sdk
// doc/models/create-split-request.md, create-split-options-request.md), and the recipients'
// balances (GET /recipients/{id}/balance, GetBalanceResponse: available_amount,
// waiting_funds_amount, transferred_amount). Where the documentation does not state a rule, the
// fake takes the strict one and docs/processors.md says so: flat rules add up to the payment's
// amount exactly, percentages to 100, every recipient is known, one rule takes the remainder fee,
// one at least is liable.

type Obj = Record<string, unknown>;
export interface SplitRuleInput { type: "flat" | "percentage"; amount: number; recipientId: string; liable: boolean; processingFee: boolean; remainderFee: boolean }

const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);

/** The test's hands on the fake's splits. */
export interface FakePagarmeSplitControls {
  /** A recipient the fake knows without POST /recipients (as one made in Pagar.me's dashboard). */
  addRecipient(id: string): void;
  /** The split rules a charge was made with, in flat cents. */
  splitOf(chargeId: string): readonly SplitRuleInput[] | undefined;
  /** Moves a recipient's available_amount by `cents` (a fee, an adjustment made in Pagar.me's dashboard). */
  moveBalance(recipientId: string, cents: number): void;
  /** Pagar.me's settlement date came: `cents` of the recipient's waiting funds become available. */
  releaseFunds(recipientId: string, cents: number): void;
  /**
   * An automatic transfer (transfer_settings) or a withdrawal: `cents` of the available amount go
   * to the recipient's bank, listed by GET /recipients/{id}/transfers; an error text when the
   * available amount is short.
   */
  transfer(recipientId: string, cents: number): Obj | string;
}

type ChargeAmounts = ReadonlyMap<string, { status: string; amount: number; paid_amount: number; canceled_amount: number }>;

/** `created`: whether a recipient was made through POST /recipients (fake-pagarme-recipients.ts). */
export function createPagarmeSplits(created: (id: string) => boolean) {
  const added = new Set<string>();
  const recipients = { has: (id: string) => added.has(id) || created(id) };
  /** The split rules of each charge made with one, in flat cents. */
  const byCharge = new Map<string, SplitRuleInput[]>();
  /** What moved each recipient's available amount outside the splits (moveBalance). */
  const moved = new Map<string, number>();
  /** Waiting funds released to available, and what was transferred, per recipient. */
  const released = new Map<string, number>();
  const transferred = new Map<string, number>();
  const transfers = new Map<string, Obj[]>();
  const add = (m: Map<string, number>, id: string, cents: number) => m.set(id, (m.get(id) ?? 0) + cents);

  /** Field errors of every payment's split (keyed as Pagar.me keys them), given each payment's amount. */
  function check(body: unknown, amounts: readonly number[]): Record<string, string[]> {
    const errors: Record<string, string[]> = {};
    const err = (field: string, message: string) => { (errors[field] ??= []).push(message); };
    const payments = Array.isArray(obj(body)?.payments) ? (obj(body)!.payments as unknown[]) : [];
    payments.forEach((raw, i) => {
      const split = obj(raw)?.split;
      if (split === undefined) return;
      const at = `payments[${i}].split`;
      if (!Array.isArray(split) || split.length === 0) return err(at, "The split field must be a list of rules.");
      const rules = parseRules(split, at, err);
      if (!rules) return;
      const flat = rules.every((r) => r.type === "flat");
      if (!flat && !rules.every((r) => r.type === "percentage")) err(at, "All split rules must have the same type.");
      const sum = rules.reduce((s, r) => s + r.amount, 0);
      if (flat && sum !== amounts[i]) err(at, `The sum of the split amounts (${sum}) must be equal to the payment amount (${amounts[i]}).`);
      if (!flat && sum !== 100) err(at, "The sum of the split percentages must be 100.");
      if (rules.filter((r) => r.remainderFee).length !== 1) err(at, "Exactly one split rule must have charge_remainder_fee.");
      if (!rules.some((r) => r.liable)) err(at, "At least one split rule must be liable.");
      if (!rules.some((r) => r.processingFee)) err(at, "At least one split rule must have charge_processing_fee.");
    });
    return errors;
  }

  function parseRules(split: unknown[], at: string, err: (field: string, message: string) => void): SplitRuleInput[] | null {
    const out: SplitRuleInput[] = [];
    split.forEach((raw, j) => {
      const r = obj(raw) ?? {};
      const o = obj(r.options) ?? {};
      const field = `${at}[${j}]`;
      if (r.type !== "flat" && r.type !== "percentage") return err(`${field}.type`, "The type field must be flat or percentage.");
      if (!Number.isSafeInteger(r.amount) || (r.amount as number) < 0) return err(`${field}.amount`, "The amount field must be a non-negative integer.");
      if (typeof r.recipient_id !== "string" || !recipients.has(r.recipient_id)) return err(`${field}.recipient_id`, "Recipient not found.");
      out.push({
        type: r.type, amount: r.amount as number, recipientId: r.recipient_id,
        liable: o.liable !== false, processingFee: o.charge_processing_fee !== false, remainderFee: o.charge_remainder_fee === true,
      });
    });
    return out.length === split.length ? out : null;
  }

  /** Keeps a charge's rules (flat cents; a percentage rule in cents of the amount, rounded down). */
  function attach(chargeId: string, body: unknown, index: number, amount: number): void {
    const payments = obj(body)?.payments as unknown[] | undefined;
    const split = obj(payments?.[index])?.split;
    if (!Array.isArray(split)) return;
    const rules = parseRules(split, "", () => undefined) ?? [];
    byCharge.set(chargeId, rules.map((r) => (r.type === "flat" ? r : { ...r, amount: Math.floor((amount * r.amount) / 100) })));
  }

  /**
   * A recipient's balance: its rules of paid charges wait for funds, less what refunds and
   * chargebacks took back, in proportion to the part of the charge canceled (the fake's choice,
   * rounded half-up per charge: docs/processors.md).
   */
  function balance(recipientId: string, charges: ChargeAmounts): Obj {
    let waiting = 0;
    for (const [chargeId, rules] of byCharge) {
      const c = charges.get(chargeId);
      if (!c || c.paid_amount <= 0) continue;
      for (const r of rules) {
        if (r.recipientId !== recipientId) continue;
        const kept = c.status === "chargedback" ? 0 : r.amount - Math.round((r.amount * c.canceled_amount) / c.amount);
        waiting += kept;
      }
    }
    const rel = released.get(recipientId) ?? 0, out = transferred.get(recipientId) ?? 0;
    return {
      currency: "BRL", available_amount: (moved.get(recipientId) ?? 0) + rel - out, waiting_funds_amount: waiting - rel,
      transferred_amount: out, recipient: { id: recipientId },
    };
  }

  /** parseOrder's answer with the split's errors added (a valid order whose split is not is invalid). */
  function parse<T extends { order: { payments: readonly { amount: number }[] } } | { errors: Record<string, string[]> }>(parsed: T, body: unknown): T | { errors: Record<string, string[]> } {
    if ("errors" in parsed) return parsed;
    const errors = check(body, parsed.order.payments.map((p) => p.amount));
    return Object.keys(errors).length > 0 ? { errors } : parsed;
  }

  /** GET /recipients/{id}/balance, or undefined for another route. */
  let lastCharges: ChargeAmounts = new Map();
  function transfer(id: string, cents: number): Obj | string {
    const available = balance(id, lastCharges).available_amount as number;
    if (cents <= 0 || cents > available) return `recipient ${id} has ${available} available, not ${cents}`;
    add(transferred, id, cents);
    const now = new Date().toISOString();
    const t = { id: `tran_${Math.random().toString(36).slice(2, 18)}`, amount: cents, status: "transferred", created_at: now, updated_at: now, metadata: {} };
    transfers.set(id, [t, ...(transfers.get(id) ?? [])]);
    return t;
  }

  function api(req: { method: string; path: string }, charges: ChargeAmounts): { status: number; body: Obj } | undefined {
    lastCharges = charges;
    const listed = /^\/recipients\/([\w-]+)\/transfers$/.exec(req.path);
    // ListTransferResponse {data: GetTransferResponse[], paging}, newest first (one page: the tests' recipients have few).
    if (req.method === "GET" && listed) {
      return recipients.has(listed[1]!) ? { status: 200, body: { data: transfers.get(listed[1]!) ?? [], paging: { total: (transfers.get(listed[1]!) ?? []).length } } } : { status: 404, body: { message: "Recipient not found." } };
    }
    const m = /^\/recipients\/([\w-]+)\/balance$/.exec(req.path);
    if (req.method !== "GET" || !m) return undefined;
    return recipients.has(m[1]!) ? { status: 200, body: balance(m[1]!, charges) } : { status: 404, body: { message: "Recipient not found." } };
  }

  const controls: FakePagarmeSplitControls = { addRecipient: (id) => { added.add(id); }, splitOf: (chargeId) => byCharge.get(chargeId),
    moveBalance: (id, cents) => { add(moved, id, cents); },
    releaseFunds: (id, cents) => { add(released, id, cents); },
    transfer,
  };
  return { parse, attach, api, controls };
}
