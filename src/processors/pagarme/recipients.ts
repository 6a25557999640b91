import { normalizeDocument } from "../../lib/documents.js";
import { lastFour, type AccountCapability, type ProviderTransfer, type ProviderTransfers, type AccountHolder, type AccountState, type TransferSchedule } from "../accounts.js";
import { badResponse } from "../adapter-results.js";
import type { CallResult, HttpClient } from "../http-client.js";

// Sellers as Pagar.me recipients (core API v5, `POST /recipients`, docs/processors.md): the
// submerchant's data and its bank account, under `code` = the submerchant id and an
// idempotency key derived from it, so a resend is the same recipient; after a lost answer the
// recipient is read back by its code (`GET /recipients/{code}`, the official SDK's
// getRecipientByCode) before anything is sent again. The bank account is checked here before
// any call: a refusal by Pagar.me is a recipient refused, not a typo found late.

type Obj = Record<string, unknown>;

const BANK_ACCOUNT_RULES: [field: string, test: RegExp, what: string, required: boolean][] = [
  ["bank", /^\d{3}$/, "a 3-digit bank code (COMPE)", true],
  ["branch", /^\d{1,4}$/, "1 to 4 digits", true],
  ["branchDigit", /^\d$/, "1 digit", false],
  ["account", /^\d{1,13}$/, "1 to 13 digits", true],
  ["accountDigit", /^[0-9xX]{1,2}$/, "1 or 2 digits (or X)", true],
];

export function checkBankAccount(body: Readonly<Obj>): string[] {
  const bank = body.bankAccount;
  if (!bank || typeof bank !== "object") return ["bankAccount is required for pagarme"];
  const b = bank as Obj;
  const problems: string[] = [];
  const holderName = b.holderName;
  if (typeof holderName !== "string" || holderName.trim().length === 0 || holderName.length > 30) problems.push("bankAccount.holderName must be 1 to 30 characters");
  const doc = typeof b.holderDocument === "string" ? b.holderDocument.replace(/\D/g, "") : "";
  const docOk = normalizeDocument(doc.length === 11 ? "cpf" : "cnpj", doc).ok;
  if (!docOk) problems.push("bankAccount.holderDocument must be a valid CPF or CNPJ");
  for (const [field, test, what, required] of BANK_ACCOUNT_RULES) {
    const v = b[field];
    if (v === undefined && !required) continue;
    if (typeof v !== "string" || !test.test(v)) problems.push(`bankAccount.${field} must be ${what}`);
  }
  if (b.type !== "checking" && b.type !== "savings") problems.push("bankAccount.type must be checking or savings");
  return problems;
}

/** Pagar.me's recipient statuses: active takes payments; refused and the closed ones never will. */
const STATUS: Record<string, "pending" | "active" | "refused"> = {
  active: "active", registration: "pending", affiliation: "pending",
  refused: "refused", suspended: "refused", blocked: "refused", inactive: "refused",
};

function stateOf(body: unknown): AccountState {
  const r = (body ?? {}) as Obj;
  if (typeof r.id !== "string" || typeof r.status !== "string") return { outcome: "unknown", failure: badResponse("the processor's recipient had no id or status") };
  const mapped = STATUS[r.status] ?? "pending";
  if (mapped !== "refused") return { outcome: mapped, externalId: r.id, providerStatus: r.status };
  const kyc = (r.kyc_details ?? {}) as Obj;
  const reason = typeof kyc.status_reason === "string" && kyc.status_reason ? kyc.status_reason : `recipient ${r.status} at Pagar.me`;
  return { outcome: "refused", externalId: r.id, reason: reason.slice(0, 300), providerStatus: r.status };
}

/**
 * A payout schedule as Pagar.me's transfer_settings (CreateTransferSettingsRequest:
 * transfer_enabled, transfer_interval Daily | Weekly | Monthly, transfer_day: 0 for daily, 1 =
 * Monday .. 5 = Friday for weekly, the day of the month for monthly; docs/processors.md). Manual
 * is automatic transfers off.
 */
export function transferSettings(s: TransferSchedule): { transfer_enabled: boolean; transfer_interval: string; transfer_day: number } {
  if (!s) return { transfer_enabled: false, transfer_interval: "Daily", transfer_day: 0 };
  if (s.interval === "daily") return { transfer_enabled: true, transfer_interval: "Daily", transfer_day: 0 };
  if (s.interval === "weekly") return { transfer_enabled: true, transfer_interval: "Weekly", transfer_day: s.weekDay ?? 1 };
  return { transfer_enabled: true, transfer_interval: "Monthly", transfer_day: s.monthDay ?? 1 };
}

/** What of a schedule Pagar.me's transfer settings cannot say. */
function checkSchedule(s: TransferSchedule): string | null {
  if (s?.interval === "weekly" && (s.weekDay ?? 0) > 5) return "payoutSchedule.weekDay must be 1 (Monday) to 5 (Friday) for a seller with a Pagar.me recipient: Pagar.me transfers on weekdays only";
  if (s && s.minimumAmount > 0) return "payoutSchedule.minimumAmount cannot apply to a seller with a Pagar.me recipient: Pagar.me's transfer settings have no minimum";
  return null;
}

function recipientBody(holder: AccountHolder, body: Readonly<Obj>): Obj {
  const b = body.bankAccount as Obj;
  const holderDocument = String(b.holderDocument).replace(/\D/g, "");
  return {
    code: holder.code, name: holder.legalName, email: holder.email, description: holder.tradeName,
    document: holder.companyTaxId, type: "company", payment_mode: "bank_transfer", metadata: { feira_submerchant: holder.code },
    transfer_settings: transferSettings(holder.schedule ?? null),
    default_bank_account: {
      holder_name: b.holderName, holder_type: holderDocument.length === 11 ? "individual" : "company", holder_document: holderDocument,
      bank: b.bank, branch_number: b.branch, ...(b.branchDigit !== undefined ? { branch_check_digit: b.branchDigit } : {}),
      account_number: b.account, account_check_digit: b.accountDigit, type: b.type, metadata: {},
    },
  };
}

const TRANSFER_PAGE = 100;

/**
 * A recipient's done transfers (GET /recipients/{id}/transfers?status=transferred, the official
 * SDK's getTransfers: ListTransferResponse {data: GetTransferResponse {id, amount, status,
 * created_at}}, page and size), page by page until a short one.
 */
async function doneTransfers(http: Pick<HttpClient, "call">, externalId: string): Promise<ProviderTransfers> {
  const transfers: ProviderTransfer[] = [];
  for (let page = 1; ; page++) {
    const r = await http.call({ method: "GET", path: `/recipients/${encodeURIComponent(externalId)}/transfers?status=transferred&page=${page}&size=${TRANSFER_PAGE}` });
    if (!r.ok) return { outcome: "unknown", failure: r.failure };
    const data = ((r.body ?? {}) as Obj).data;
    if (!Array.isArray(data)) return { outcome: "unknown", failure: badResponse("the recipient's transfers had no data") };
    for (const t of data as Obj[]) {
      // Only a transfer that is done moved money out of the balance; the filter is asked, and checked.
      if (t.status !== "transferred") continue;
      if (typeof t.id !== "string" || !Number.isSafeInteger(t.amount) || (t.amount as number) <= 0) return { outcome: "unknown", failure: badResponse("a transfer had no id or amount") };
      const at = typeof t.created_at === "string" ? new Date(t.created_at) : new Date(NaN);
      transfers.push({ id: t.id, amountMinor: t.amount as number, createdAt: Number.isNaN(at.getTime()) ? new Date() : at });
    }
    if (data.length < TRANSFER_PAGE) return { outcome: "read", transfers };
  }
}

const read = (r: CallResult): AccountState =>
  r.ok ? stateOf(r.body) : r.failure.status === 404 ? { outcome: "not_found" } : { outcome: "unknown", failure: r.failure };

export function pagarmeAccounts(http: Pick<HttpClient, "call">): AccountCapability {
  return {
    check: checkBankAccount,
    shown: (body): Record<string, string> => {
      const b = (body.bankAccount ?? {}) as Obj;
      return typeof b.account === "string" ? { bankAccount: lastFour(b.account), bank: String(b.bank) } : {};
    },
    async open(holder, body) {
      const r = await http.call({ method: "POST", path: "/recipients", body: recipientBody(holder, body), headers: { "idempotency-key": `feira-recipient-${holder.code}` } });
      if (!r.ok && r.failure.kind === "http_4xx") return { outcome: "refused", externalId: null, reason: r.failure.message };
      return read(r);
    },
    transfers: {
      check: checkSchedule,
      async apply(externalId, schedule) {
        // UpdateTransferSettingsRequest declares its three fields as strings (the official SDK's model).
        const t = transferSettings(schedule);
        const body = { transfer_enabled: String(t.transfer_enabled), transfer_interval: t.transfer_interval, transfer_day: String(t.transfer_day) };
        const r = await http.call({ method: "PATCH", path: `/recipients/${encodeURIComponent(externalId)}/transfer-settings`, body });
        if (r.ok) return { outcome: "applied" };
        return r.failure.kind === "http_4xx" ? { outcome: "refused", message: r.failure.message } : { outcome: "unknown", failure: r.failure };
      },
    },
    async balance({ externalId, currency }) {
      // GetBalanceResponse: available_amount (transferable now), waiting_funds_amount (paid, not
      // yet released) and transferred_amount (sent to the seller's bank). feira books each of
      // Pagar.me's done transfers out of the seller's atProvider balance (transfersDone), so its
      // figure is what Pagar.me still holds: available plus waiting funds.
      const r = await http.call({ method: "GET", path: `/recipients/${encodeURIComponent(externalId)}/balance` });
      if (!r.ok) return r.failure.status === 404 ? { outcome: "not_found" } : { outcome: "unknown", failure: r.failure };
      const b = (r.body ?? {}) as Obj;
      const parts = [b.available_amount, b.waiting_funds_amount];
      if (!parts.every((v) => Number.isSafeInteger(v))) return { outcome: "unknown", failure: badResponse("the recipient's balance had no amounts") };
      const amountMinor = (parts as number[]).reduce((sum, v) => sum + v, 0);
      return { outcome: "read", amountMinor, currency: typeof b.currency === "string" ? b.currency.toUpperCase() : currency };
    },
    transfersDone: (externalId) => doneTransfers(http, externalId),
    async find(holder, externalId) {
      return read(await http.call({ method: "GET", path: `/recipients/${encodeURIComponent(externalId ?? holder.code)}` }));
    },
  };
}
