import { buildBoleto } from "../../src/lib/boleto.js";
import { buildPixBrCode, qrCodeDataUrl } from "../../src/lib/pix.js";
import { taxIdProblem } from "./fake-documents.js";
import { cardBrand, luhnValid } from "./fake-provider.js";

// The resources of the Mercado Pago Payments API fake: card tokens, request validation for
// POST /v1/payments, card outcomes chosen by the cardholder name (as Mercado Pago's test cards
// do) and the payment object with the wire names of the official SDK's PaymentsResponse.
// Amounts are decimal reais on the wire and integer cents inside the fake.

type Obj = Record<string, unknown>;
export interface MpError { status: number; message: string; error: string; cause: { code: string | number; description: string }[] }
export const mpError = (status: number, message: string, cause: { code: string | number; description: string }[] = [], error = status === 400 ? "bad_request" : status === 404 ? "not_found" : "error"): MpError =>
  ({ status, message, error, cause });

export interface StoredCard { number: string; securityCode: string; month: number; year: number; holder: string; identification?: Obj }
export interface CardToken { id: string; card: StoredCard; createdAt: number; expiresAt: number; used: boolean }

/** Cardholder names of Mercado Pago's test cards; the ones marked "fake" are this fake's own. */
export const MP_TEST_NAMES: Record<string, { status: string; detail: string }> = {
  APRO: { status: "approved", detail: "accredited" },
  OTHE: { status: "rejected", detail: "cc_rejected_other_reason" },
  CONT: { status: "in_process", detail: "pending_contingency" },
  CALL: { status: "rejected", detail: "cc_rejected_call_for_authorize" },
  FUND: { status: "rejected", detail: "cc_rejected_insufficient_amount" },
  SECU: { status: "rejected", detail: "cc_rejected_bad_filled_security_code" },
  EXPI: { status: "rejected", detail: "cc_rejected_bad_filled_date" },
  FORM: { status: "rejected", detail: "cc_rejected_bad_filled_other" },
  DISA: { status: "rejected", detail: "cc_rejected_card_disabled" }, // fake
  HIGH: { status: "rejected", detail: "cc_rejected_high_risk" }, // fake
  BLAC: { status: "rejected", detail: "cc_rejected_blacklist" }, // fake
  DUPL: { status: "rejected", detail: "cc_rejected_duplicated_payment" }, // fake
  MAXA: { status: "rejected", detail: "cc_rejected_max_attempts" }, // fake
  INST: { status: "rejected", detail: "cc_rejected_invalid_installments" }, // fake
  CERR: { status: "rejected", detail: "cc_rejected_card_error" }, // fake
  REVW: { status: "in_process", detail: "pending_review_manual" }, // fake
};

export const CARD_METHODS: Record<string, string> = { visa: "visa", master: "mastercard", amex: "amex", elo: "elo", hipercard: "hipercard", debvisa: "visa", debmaster: "mastercard", debelo: "elo" };
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

export function parseCardToken(body: unknown): StoredCard | MpError {
  const b = isObj(body) ? body : {};
  const number = String(b.card_number ?? "").replace(/\s/g, "");
  const holder = isObj(b.cardholder) ? b.cardholder : {};
  const month = Number(b.expiration_month);
  const year = Number(b.expiration_year);
  // Cause codes as MercadoPago.js reports them for card form errors.
  const cause: MpError["cause"] = [];
  if (number === "") cause.push({ code: "205", description: "parameter cardNumber can not be null/empty" });
  else if (!luhnValid(number)) cause.push({ code: "E301", description: "invalid parameter cardNumber" });
  if (!/^\d{3,4}$/.test(String(b.security_code ?? ""))) cause.push({ code: "E302", description: "invalid parameter securityCode" });
  if (!(Number.isInteger(month) && month >= 1 && month <= 12)) cause.push({ code: "325", description: "invalid parameter cardExpirationMonth" });
  if (!(Number.isInteger(year) && year >= 2000 && year <= 2099)) cause.push({ code: "326", description: "invalid parameter cardExpirationYear" });
  if (typeof holder.name !== "string" || holder.name.trim() === "") cause.push({ code: "221", description: "parameter cardholderName can not be null/empty" });
  // The cardholder's document, when sent: a CPF or CNPJ of the Brazilian site (codes 322 and 324
  // of Mercado Pago's "Data entry errors" table).
  if (isObj(holder.identification)) {
    const problem = taxIdProblem(holder.identification.type, holder.identification.number);
    if (problem === "type") cause.push({ code: "322", description: "invalid parameter docType" });
    if (problem === "number") cause.push({ code: "324", description: "invalid parameter docNumber" });
  }
  if (cause.length > 0) return mpError(400, "Invalid card data", cause);
  return { number, securityCode: String(b.security_code), month, year, holder: String(holder.name), identification: isObj(holder.identification) ? holder.identification : undefined };
}

export function cardOutcome(card: StoredCard, now = new Date()): { status: string; detail: string } {
  if (Date.UTC(card.year, card.month, 1) <= now.getTime()) return MP_TEST_NAMES.EXPI!;
  return MP_TEST_NAMES[card.holder.trim().split(/\s+/)[0]!.toUpperCase()] ?? MP_TEST_NAMES.APRO!;
}

export interface PaymentInput {
  amount: number; // cents
  methodId: string;
  kind: "card" | "pix" | "boleto";
  installments: number;
  token?: string;
  capture: boolean;
  externalReference: string | null;
  description: string | null;
  notificationUrl: string | null;
  expiresAt?: Date;
  payer: Obj;
  raw: Obj;
}

// transaction_amount has at most two decimals; cents are computed without float drift.
function toCents(v: unknown): number | undefined {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return undefined;
  const cents = Math.round(v * 100);
  return Math.abs(cents - v * 100) < 1e-6 ? cents : undefined;
}

const DAY = 86_400_000;
export function parsePayment(body: unknown): PaymentInput | MpError {
  const b = isObj(body) ? body : {};
  const amount = toCents(b.transaction_amount);
  if (amount === undefined) return mpError(400, "transaction_amount must be a positive number with at most two decimals", [{ code: "invalid_transaction_amount", description: "transaction_amount" }]);
  const methodId = String(b.payment_method_id ?? "");
  if (methodId === "boleto") return mpError(400, "payment_method_id boleto belongs to the Orders API; the Payments API takes bolbradesco", [{ code: "invalid_payment_method_id", description: "payment_method_id" }]);
  const kind = methodId === "pix" ? "pix" : methodId === "bolbradesco" ? "boleto" : CARD_METHODS[methodId] ? "card" : undefined;
  if (!kind) return mpError(400, `payment_method_id ${methodId || "(missing)"} is not supported`, [{ code: "invalid_payment_method_id", description: "payment_method_id" }]);
  const payer = isObj(b.payer) ? b.payer : {};
  if (typeof payer.email !== "string" || !/^[^@\s]+@[^@\s]+$/.test(payer.email)) return mpError(400, "payer.email must be a valid email", [{ code: "invalid_payer_email", description: "payer.email" }]);
  const idProblem = isObj(payer.identification) ? taxIdProblem(payer.identification.type, payer.identification.number) : null;
  // Brazil's identification types are CPF and CNPJ (GET /v1/identification_types); a wrong
  // number, or one of the other type, is "Invalid user identification number" (cause 2067).
  if (idProblem === "type") return mpError(400, "Invalid user identification type", [{ code: "invalid_identification_type", description: "payer.identification.type" }]);
  if (idProblem === "number") return mpError(400, "Invalid user identification number", [{ code: 2067, description: "Invalid user identification number" }]);
  const installments = b.installments === undefined ? 1 : Number(b.installments);
  if (kind === "card" && !(Number.isInteger(installments) && installments >= 1 && installments <= 12)) return mpError(400, "Invalid installments", [{ code: "invalid_installments", description: "installments" }]);
  // statement_descriptor: at most 22 characters on the Payments API (mercadopago/sdk-python's Payment.create).
  if (b.statement_descriptor !== undefined && !(typeof b.statement_descriptor === "string" && b.statement_descriptor.length <= 22)) return mpError(400, "statement_descriptor must be a string of at most 22 characters", [{ code: "invalid_statement_descriptor", description: "statement_descriptor" }]);
  if (kind === "card" && (typeof b.token !== "string" || b.token === "")) return mpError(400, "token is required for card payments", [{ code: "invalid_token", description: "token" }]);
  let expiresAt: Date | undefined;
  if (kind !== "card") {
    // Pix: 30 minutes to 30 days ahead, default 24 h; boleto: 1 to 30 days, default 3 days.
    const [min, max, def] = kind === "pix" ? [30 * 60_000, 30 * DAY, DAY] : [DAY - 60_000, 30 * DAY + DAY, 3 * DAY];
    expiresAt = b.date_of_expiration === undefined ? new Date(Date.now() + def) : new Date(String(b.date_of_expiration));
    const ahead = expiresAt.getTime() - Date.now();
    if (Number.isNaN(ahead) || ahead < min || ahead > max) return mpError(400, "date_of_expiration is out of the allowed range", [{ code: "invalid_date_of_expiration", description: "date_of_expiration" }]);
  }
  if (kind === "boleto") {
    const address = isObj(payer.address) ? payer.address : {};
    const id = isObj(payer.identification) ? payer.identification : {};
    const missing = [
      ...["first_name", "last_name"].filter((k) => typeof payer[k] !== "string" || payer[k] === "").map((k) => `payer.${k}`),
      ...["type", "number"].filter((k) => !id[k]).map((k) => `payer.identification.${k}`),
      ...["zip_code", "street_name", "street_number", "neighborhood", "city", "federal_unit"].filter((k) => !address[k]).map((k) => `payer.address.${k}`),
    ];
    if (missing.length > 0) return mpError(400, `missing payer data for boleto: ${missing.join(", ")}`, missing.map((m) => ({ code: "missing_parameter", description: m })));
  }
  if (b.notification_url !== undefined && !URL.canParse(String(b.notification_url))) return mpError(400, "notification_url attribute must be url valid", [{ code: 4020, description: "notification_url attribute must be url valid" }]);
  return {
    amount, methodId, kind, installments, token: b.token as string | undefined, capture: b.capture !== false,
    externalReference: typeof b.external_reference === "string" ? b.external_reference : null,
    description: typeof b.description === "string" ? b.description : null,
    notificationUrl: typeof b.notification_url === "string" ? b.notification_url : null, expiresAt, payer, raw: b,
  };
}

/** Mercado Pago answers dates in its own offset (-04:00 in the documented examples). */
export function mpDate(d = new Date()): string {
  const shifted = new Date(d.getTime() - 4 * 3_600_000);
  return shifted.toISOString().replace("Z", "-04:00");
}
export const reais = (cents: number) => Math.round(cents) / 100;

export interface BuildContext { id: number; origin: string; pixKey: string; collectorId: number; card?: StoredCard }

/** The payment as created: status, detail and the method-specific parts. */
export function buildPayment(p: PaymentInput, ctx: BuildContext): Obj {
  const now = mpDate();
  let status = "pending";
  let detail = p.kind === "pix" ? "pending_waiting_transfer" : "pending_waiting_payment";
  const txDetails: Obj = { net_received_amount: 0, total_paid_amount: reais(p.amount), overpaid_amount: 0, installment_amount: 0, external_resource_url: null, financial_institution: null, payment_method_reference_id: null, acquirer_reference: null };
  const extra: Obj = {};
  if (p.kind === "card") {
    const card = ctx.card!;
    ({ status, detail } = cardOutcome(card));
    if (status === "approved" && !p.capture) { status = "authorized"; detail = "pending_capture"; }
    txDetails.installment_amount = reais(Math.ceil(p.amount / p.installments));
    if (status === "approved") txDetails.net_received_amount = reais(p.amount);
    extra.card = {
      id: null, first_six_digits: card.number.slice(0, 6), last_four_digits: card.number.slice(-4), expiration_month: card.month, expiration_year: card.year,
      date_created: now, date_last_updated: now, cardholder: { name: card.holder, identification: card.identification ?? { number: null, type: null } },
    };
    extra.authorization_code = status === "approved" || status === "authorized" ? String(100000 + (ctx.id % 900000)) : null;
  } else if (p.kind === "pix") {
    const qr = buildPixBrCode({ key: ctx.pixKey, merchantName: "MERCADO PAGO FAKE", merchantCity: "SAO PAULO", amountMinor: p.amount, txid: `MP${ctx.id}` });
    extra.point_of_interaction = {
      type: "PIX", sub_type: null, application_data: { name: null, version: null },
      transaction_data: { qr_code: qr, qr_code_base64: qrCodeDataUrl(qr).split(",")[1], ticket_url: `${ctx.origin}/payments/${ctx.id}/ticket`, transaction_id: null, bank_transfer_id: null, financial_institution: null, bank_info: { payer: {}, collector: {} } },
    };
  } else {
    const b = buildBoleto({ bankCode: "237", amountMinor: p.amount, dueDate: p.expiresAt!, ourNumber: String(ctx.id) });
    Object.assign(txDetails, { external_resource_url: `${ctx.origin}/payments/${ctx.id}/ticket`, financial_institution: "bradesco", payment_method_reference_id: String(ctx.id), digitable_line: b.digitableLine, barcode: { content: b.barcode } });
  }
  return {
    id: ctx.id, date_created: now, date_approved: status === "approved" ? now : null, date_last_updated: now,
    date_of_expiration: p.expiresAt ? mpDate(p.expiresAt) : null, money_release_date: null, money_release_status: null, operation_type: "regular_payment",
    issuer_id: p.kind === "card" ? "25" : null, payment_method_id: p.methodId,
    payment_type_id: p.kind === "card" ? (p.methodId.startsWith("deb") ? "debit_card" : "credit_card") : p.kind === "pix" ? "bank_transfer" : "ticket",
    payment_method: { id: p.methodId, type: p.kind === "card" ? "credit_card" : p.kind === "pix" ? "bank_transfer" : "ticket" },
    status, status_detail: detail, currency_id: "BRL", description: p.description, live_mode: false, authorization_code: null,
    payer: { id: null, type: null, email: p.payer.email, identification: p.payer.identification ?? { type: null, number: null }, first_name: p.payer.first_name ?? null, last_name: p.payer.last_name ?? null, entity_type: null },
    collector_id: ctx.collectorId, metadata: p.raw.metadata ?? {}, additional_info: p.raw.additional_info ?? {}, external_reference: p.externalReference,
    transaction_amount: reais(p.amount), transaction_amount_refunded: 0, coupon_amount: 0, installments: p.kind === "card" ? p.installments : 1,
    transaction_details: txDetails, fee_details: [], charges_details: [], captured: p.capture, binary_mode: p.raw.binary_mode === true,
    statement_descriptor: p.raw.statement_descriptor ?? null, notification_url: p.notificationUrl, refunds: [], processing_mode: "aggregator",
    point_of_interaction: { type: "UNSPECIFIED", business_info: { unit: "online_payments", sub_unit: "default" } }, three_ds_info: null,
    ...extra,
  };
}

// Mercado Pago's published test cards, by BIN: 503143 is a Mastercard there although it lies
// outside the usual 51-55 range.
const TEST_BINS: Record<string, string> = { "503143": "mastercard", "423564": "visa", "375365": "amex", "506776": "elo" };
/** The brand a card payment_method_id stands for must be the card's. */
export const brandMatches = (methodId: string, number: string) => CARD_METHODS[methodId] === (TEST_BINS[number.slice(0, 6)] ?? cardBrand(number));
