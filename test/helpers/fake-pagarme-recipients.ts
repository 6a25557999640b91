import { iso, newId } from "./fake-pagarme-model.js";
import type { ApiRequest, Reply } from "./fake-provider.js";
import { parseTransferSettings, transferSettingsApi } from "./fake-pagarme-transfers.js";

// Pagar.me's recipients (core API v5), from the official Node SDK's models and controller
// (pagarme/pagarme-nodejs-sdk: CreateRecipientRequest, CreateBankAccountRequest,
// GetRecipientResponse, RecipientsController: POST /recipients with an idempotency-key,
// GET /recipients/{recipient_id}, GET /recipients/{code} (getRecipientByCode), GET /recipients
// paged) and Pagar.me's reference for the statuses (registration, affiliation, active, refused,
// suspended, blocked, inactive). `code` is not unique at Pagar.me as far as its documents say:
// the fake keeps every recipient made under a code so a test can count them.

type Obj = Record<string, unknown>;
export interface Recipient extends Obj { id: string; code: string; status: string; created_at: string; updated_at: string }

export interface RecipientDeps {
  err: (status: number, message: string, extra?: Obj) => Reply;
  once: (req: ApiRequest, route: string, work: () => Reply) => Reply;
  list: (items: Recipient[], q: URLSearchParams, view: (r: Recipient) => Obj) => Reply;
}

/** A validated body's transfer_settings, or null when it gave none. */
function settingsOf(raw: unknown): Obj | null {
  const parsed = raw === undefined ? null : parseTransferSettings(raw, "");
  return parsed && "settings" in parsed ? { ...parsed.settings } : null;
}

const REQUIRED_BANK: [string, RegExp][] = [
  ["holder_name", /^.{1,30}$/], ["holder_type", /^(individual|company)$/], ["holder_document", /^(\d{11}|\d{14})$/],
  ["bank", /^\d{3}$/], ["branch_number", /^\d{1,4}$/], ["account_number", /^\d{1,13}$/], ["account_check_digit", /^[0-9xX]{1,2}$/], ["type", /^(checking|savings)$/],
];

export function createPagarmeRecipients(deps: RecipientDeps) {
  const recipients = new Map<string, Recipient>();
  /** The status new recipients get (Pagar.me's KYC may leave them in registration or affiliation). */
  let initialStatus = "active";

  function validate(body: Obj): Record<string, string[]> {
    const errors: Record<string, string[]> = {};
    for (const f of ["code", "name", "email", "document", "type"]) if (typeof body[f] !== "string" || body[f] === "") errors[f] = [`The ${f} field is required.`];
    const bank = body.default_bank_account as Obj | undefined;
    if (!bank || typeof bank !== "object") errors.default_bank_account = ["The default_bank_account field is required."];
    else {
      for (const [f, re] of REQUIRED_BANK) if (typeof bank[f] !== "string" || !re.test(bank[f] as string)) errors[`default_bank_account.${f}`] = [`The ${f} field is invalid.`];
      if (bank.branch_check_digit !== undefined && !/^\d$/.test(String(bank.branch_check_digit))) errors["default_bank_account.branch_check_digit"] = ["The branch_check_digit field is invalid."];
    }
    // transfer_settings is optional; when given, its three fields are required (fake-pagarme-transfers.ts).
    if (body.transfer_settings !== undefined) {
      const parsed = parseTransferSettings(body.transfer_settings, "transfer_settings.");
      if ("errors" in parsed) Object.assign(errors, parsed.errors);
    }
    return errors;
  }

  function create(req: ApiRequest): Reply {
    const body = (req.json ?? {}) as Obj;
    const errors = validate(body);
    if (Object.keys(errors).length > 0) return deps.err(422, "The request is invalid.", { errors });
    const now = iso();
    const r: Recipient = {
      id: newId("rp"), code: String(body.code), name: body.name, email: body.email, document: body.document, description: body.description ?? null,
      type: body.type, status: initialStatus, payment_mode: body.payment_mode ?? "bank_transfer", metadata: body.metadata ?? {},
      default_bank_account: { ...(body.default_bank_account as Obj), id: newId("ba"), status: "active" },
      transfer_settings: settingsOf(body.transfer_settings),
      created_at: now, updated_at: now,
    };
    recipients.set(r.id, r);
    return { status: 200, body: r };
  }

  const byCode = (code: string) => [...recipients.values()].filter((r) => r.code === code);

  /** The recipients' routes; undefined for any other path. */
  function api(req: ApiRequest): Reply | undefined {
    if (req.method === "POST" && req.path === "/recipients") return deps.once(req, "POST /recipients", () => create(req));
    if (req.method === "GET" && req.path === "/recipients") {
      const code = req.query.get("code");
      return deps.list((code ? byCode(code) : [...recipients.values()]).reverse(), req.query, (r) => r);
    }
    const settings = transferSettingsApi(req, recipients, deps.err);
    if (settings) return settings;
    const m = /^\/recipients\/([\w-]+)$/.exec(req.path);
    if (req.method === "GET" && m) {
      const r = recipients.get(m[1]!) ?? byCode(m[1]!).at(-1);
      return r ? { status: 200, body: r } : deps.err(404, "Recipient not found.");
    }
    return undefined;
  }

  function setStatus(id: string, status: string, reason?: string): Obj | string {
    const r = recipients.get(id);
    if (!r) return `no recipient ${id}`;
    r.status = status;
    r.updated_at = iso();
    if (reason) r.kyc_details = { status: "denied", status_reason: reason };
    return r;
  }

  return {
    recipients, api,
    recipientsCreated: (code: string) => byCode(code).length,
    /** KYC's verdict on a recipient: refused (with Pagar.me's reason), active, or another status. */
    setRecipientStatus: setStatus,
    setInitialRecipientStatus: (status: string) => { initialStatus = status; },
  };
}
