import { randomUUID } from "node:crypto";
import { buildBoleto } from "../../src/lib/boleto.js";
import { buildPixBrCode } from "../../src/lib/pix.js";
import { validCnpj, validCpf } from "./fake-documents.js";
import { cardBrand, luhnValid, randomAlnum } from "./fake-provider.js";
import { parseBoletoTerms, termsView, type PagarmeBoletoTerms } from "./fake-pagarme-boleto.js";

// The resources of the Pagar.me core API v5 fake: request validation for POST /orders, the test
// card table, and the order, charge and transaction objects with the wire names of the official
// SDK's models (getOrderResponse, getChargeResponse, get*TransactionResponse). Amounts are cents.

export type ReturnCodes = "abecs" | "legacy";

export interface CardOutcome {
  kind: "approved" | "declined" | "with_error" | "processing";
  abecs?: string;
  legacy?: string;
  message?: string;
}

// 4000000000000010 and 4000000000000028 behave as Pagar.me's published simulator does; the rest
// are this fake's own numbers (all pass Luhn). ABECS codes are what v5 returns in
// acquirer_return_code from 2026-08-28; `returnCodes: "legacy"` gives the older Pagar.me codes.
export const PAGARME_TEST_CARDS: Record<string, CardOutcome> = {
  "4000000000000010": { kind: "approved" },
  "5100000000000024": { kind: "approved" },
  "4000000000000028": { kind: "declined", abecs: "05", legacy: "1000", message: "Transação não autorizada" },
  "4000000000000036": { kind: "declined", abecs: "51", legacy: "1016", message: "Saldo/limite insuficiente" },
  "4000000000000044": { kind: "declined", abecs: "N7", legacy: "1045", message: "Código de segurança inválido" },
  "5100000000000016": { kind: "declined", abecs: "63", legacy: "1045", message: "Falha de validação de segurança" },
  "4000000000000051": { kind: "declined", abecs: "54", legacy: "1001", message: "Cartão vencido" },
  "4000000000000069": { kind: "declined", abecs: "14", legacy: "1011", message: "Cartão inválido" },
  "4000000000000077": { kind: "declined", abecs: "59", legacy: "1000", message: "Suspeita de fraude" },
  "4000000000000085": { kind: "declined", abecs: "57", legacy: "1000", message: "Transação não permitida para o cartão" },
  "4000000000000093": { kind: "declined", abecs: "78", legacy: "1000", message: "Cartão bloqueado" },
  "4000000000000101": { kind: "with_error" },
  "4000000000000119": { kind: "processing" },
};
const EXPIRED: CardOutcome = PAGARME_TEST_CARDS["4000000000000051"]!;
/** Pix simulator rule: above R$ 500,00 the charge is created failed. */
export const PIX_FAIL_ABOVE = 50_000;

type Obj = Record<string, unknown>;
export interface CardInput { number: string; holder_name: string; exp_month: number; exp_year: number; cvv: string }
export interface PaymentInput {
  method: "credit_card" | "pix" | "boleto";
  amount: number;
  installments: number;
  capture: boolean;
  card?: CardInput;
  statementDescriptor?: string;
  pixExpiresAt?: Date;
  boleto?: { dueAt: Date; bank: string; instructions?: string; documentNumber?: string; type: string; terms?: PagarmeBoletoTerms };
}
export interface OrderInput { code?: string; items: Obj[]; customer?: Obj; customerId?: string; payments: PaymentInput[]; metadata?: Obj }

const isInt = (v: unknown, min = 1) => Number.isSafeInteger(v) && (v as number) >= min;
const isText = (v: unknown) => typeof v === "string" && v.trim() !== "";
const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);

/** Validates a POST /orders body; field errors are keyed by path as Pagar.me does ("items[0].amount"). */
export function parseOrder(body: unknown): { order: OrderInput } | { errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const err = (field: string, message: string) => { (errors[field] ??= []).push(message); };
  const b = obj(body) ?? {};
  if (b.code !== undefined && typeof b.code !== "string") err("code", "The code field must be a string.");
  const items = Array.isArray(b.items) ? b.items : [];
  if (items.length === 0) err("items", "The items field is required.");
  items.forEach((raw, i) => {
    const it = obj(raw) ?? {};
    if (!isInt(it.amount, 0)) err(`items[${i}].amount`, "The amount field must be an integer number of cents.");
    if (!isText(it.description)) err(`items[${i}].description`, "The description field is required.");
    if (!isInt(it.quantity)) err(`items[${i}].quantity`, "The quantity field must be a positive integer.");
  });
  const customer = obj(b.customer);
  if (customer && !isText(customer.name)) err("customer.name", "The name field is required.");
  const payments = Array.isArray(b.payments) ? b.payments : [];
  if (customer) checkCustomerDocument(customer, payments.map((p) => obj(p)?.payment_method), err);
  if (payments.length === 0) err("payments", "The payments field is required.");
  const itemsTotal = items.reduce((s: number, it) => s + (Number((it as Obj).amount) || 0) * (Number((it as Obj).quantity) || 0), 0);
  const parsed: PaymentInput[] = [];
  payments.forEach((raw, i) => {
    const p = obj(raw) ?? {};
    const at = `payments[${i}]`;
    const method = p.payment_method;
    if (method !== "credit_card" && method !== "pix" && method !== "boleto") return err(`${at}.payment_method`, "The payment_method field must be credit_card, pix or boleto.");
    const amount = p.amount === undefined && payments.length === 1 ? itemsTotal : p.amount;
    if (!isInt(amount)) err(`${at}.amount`, "The amount field must be a positive integer number of cents.");
    const out: PaymentInput = { method, amount: amount as number, installments: 1, capture: true };
    if (method === "credit_card") {
      const cc = obj(p.credit_card) ?? {};
      if (cc.installments !== undefined && !(isInt(cc.installments) && (cc.installments as number) <= 12)) err(`${at}.credit_card.installments`, "The installments field must be between 1 and 12.");
      out.installments = (cc.installments as number | undefined) ?? 1;
      out.capture = cc.capture !== false;
      // "Max: 13 caracteres para clientes PSP, 22 para clientes gateway" (Pagar.me's "Cartão de
      // crédito" reference): this fake stands for a PSP client's account, the stricter of the two.
      if (cc.statement_descriptor !== undefined && !(typeof cc.statement_descriptor === "string" && cc.statement_descriptor.length <= 13)) err(`${at}.credit_card.statement_descriptor`, "The statement_descriptor field must be a string of at most 13 characters.");
      out.statementDescriptor = typeof cc.statement_descriptor === "string" ? cc.statement_descriptor : undefined;
      const card = obj(cc.card);
      if (!card) err(`${at}.credit_card.card`, "The card field is required (this fake takes card data inline only).");
      else {
        const number = String(card.number ?? "").replace(/\s/g, "");
        if (!luhnValid(number)) err(`${at}.credit_card.card.number`, "The number field is not a valid card number.");
        if (!isText(card.holder_name)) err(`${at}.credit_card.card.holder_name`, "The holder_name field is required.");
        if (!(isInt(card.exp_month) && (card.exp_month as number) <= 12)) err(`${at}.credit_card.card.exp_month`, "The exp_month field must be between 1 and 12.");
        if (!(isInt(card.exp_year) && ((card.exp_year as number) < 100 || (card.exp_year as number) >= 2000))) err(`${at}.credit_card.card.exp_year`, "The exp_year field must have 2 or 4 digits.");
        if (!/^\d{3,4}$/.test(String(card.cvv ?? ""))) err(`${at}.credit_card.card.cvv`, "The cvv field must have 3 or 4 digits.");
        out.card = { number, holder_name: String(card.holder_name), exp_month: Number(card.exp_month), exp_year: Number(card.exp_year), cvv: String(card.cvv) };
      }
    } else if (method === "pix") {
      const pix = obj(p.pix) ?? {};
      if (pix.expires_in !== undefined && !isInt(pix.expires_in)) err(`${at}.pix.expires_in`, "The expires_in field must be a positive number of seconds.");
      if (pix.expires_at !== undefined && Number.isNaN(Date.parse(String(pix.expires_at)))) err(`${at}.pix.expires_at`, "The expires_at field must be a date.");
      out.pixExpiresAt = pix.expires_at !== undefined ? new Date(String(pix.expires_at)) : new Date(Date.now() + ((pix.expires_in as number | undefined) ?? 86_400) * 1000);
      // Pagar.me's Pix examples always send the phone; this fake requires it (see docs/processors.md).
      const phones = obj(customer?.phones);
      if (!b.customer_id && !obj(phones?.mobile_phone) && !obj(phones?.home_phone)) err("customer.phones", "The phones field is required for pix.");
    } else {
      const bo = obj(p.boleto) ?? {};
      if (bo.due_at !== undefined && Number.isNaN(Date.parse(String(bo.due_at)))) err(`${at}.boleto.due_at`, "The due_at field must be a date.");
      const dueAt = bo.due_at !== undefined ? new Date(String(bo.due_at)) : new Date(Date.now() + 3 * 86_400_000);
      out.boleto = { dueAt, bank: typeof bo.bank === "string" ? bo.bank : "001", instructions: bo.instructions as string | undefined, documentNumber: bo.document_number as string | undefined, type: typeof bo.type === "string" ? bo.type : "DM", terms: parseBoletoTerms(bo, `${at}.boleto`, err) };
    }
    parsed.push(out);
  });
  if (!customer && !isText(b.customer_id)) err("customer", "The customer or customer_id field is required.");
  if (Object.keys(errors).length > 0) return { errors };
  return { order: { code: b.code as string | undefined, items, customer, customerId: b.customer_id as string | undefined, payments: parsed, metadata: obj(b.metadata) } };
}

const DOCUMENT_TYPES = ["CPF", "CNPJ", "PASSPORT"];

/**
 * The customer's document as Pagar.me v5 takes it (docs.pagar.me/reference/criar-cliente-1, the
 * SDK's CreateCustomerRequest): document_type CPF, CNPJ or PASSPORT; a CPF's 11 digits and a
 * CNPJ's 14 characters with valid check digits (the alphanumeric CNPJ keeps its letters);
 * `type` company for a CNPJ, individual otherwise. Pix and boleto are made for a named payer:
 * they need a document, and a registered boleto a CPF or a CNPJ.
 */
function checkCustomerDocument(c: Obj, methods: unknown[], err: (field: string, message: string) => void): void {
  const { document, document_type: declared, type } = c;
  if (type !== undefined && type !== "individual" && type !== "company") err("customer.type", "The type field must be individual or company.");
  if (declared !== undefined && !DOCUMENT_TYPES.includes(String(declared))) err("customer.document_type", "The document_type field must be CPF, CNPJ or PASSPORT.");
  if (document === undefined || document === null || document === "") {
    if (declared !== undefined) err("customer.document", "The document field is required with document_type.");
    for (const m of new Set(methods)) if (m === "pix" || m === "boleto") err("customer.document", `The document field is required for ${m}.`);
    return;
  }
  const text = String(document);
  const kind = declared ?? (/^\d{11}$/.test(text) ? "CPF" : text.length === 14 ? "CNPJ" : undefined);
  if (kind === undefined) return err("customer.document_type", "The document_type field is required for this document.");
  if (kind === "CPF" && !validCpf(text)) err("customer.document", "The document field is not a valid CPF.");
  if (kind === "CNPJ" && !validCnpj(text)) err("customer.document", "The document field is not a valid CNPJ.");
  if (kind === "PASSPORT" && !/^[A-Za-z0-9]{5,20}$/.test(text)) err("customer.document", "The document field is not a valid passport number.");
  if (type !== undefined && (type === "company") !== (kind === "CNPJ")) err("customer.type", `The type field must be ${kind === "CNPJ" ? "company" : "individual"} for a ${kind}.`);
  if (kind === "PASSPORT" && methods.includes("boleto")) err("customer.document_type", "A boleto's payer is named by CPF or CNPJ.");
}

export const newId = (prefix: string) => `${prefix}_${randomAlnum(16)}`;
const iso = (d = new Date()) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

export function cardOutcome(card: CardInput, now = new Date()): CardOutcome {
  const year = card.exp_year < 100 ? 2000 + card.exp_year : card.exp_year;
  // A card is valid through the last day of its expiry month.
  if (Date.UTC(year, card.exp_month, 1) <= now.getTime()) return EXPIRED;
  return PAGARME_TEST_CARDS[card.number] ?? { kind: "approved" };
}

export interface TransactionContext { apiUrl: string; pixKey: string; returnCodes: ReturnCodes }

/** Builds the charge's first transaction and the statuses it implies. */
export function firstTransaction(p: PaymentInput, ctx: TransactionContext, nosso: number): { chargeStatus: string; tx: Obj } {
  const id = newId("tran");
  const now = iso();
  const base: Obj = { id, transaction_type: p.method, gateway_id: randomUUID(), amount: p.amount, created_at: now, updated_at: now, gateway_response: { code: "200", errors: [] }, antifraud_response: {}, metadata: {} };
  if (p.method === "pix") {
    const failed = p.amount > PIX_FAIL_ABOVE;
    const qr = buildPixBrCode({ key: ctx.pixKey, merchantName: "PAGARME FAKE", merchantCity: "SAO PAULO", amountMinor: p.amount, txid: id.slice(5) });
    return {
      chargeStatus: failed ? "failed" : "pending",
      tx: { ...base, status: failed ? "failed" : "waiting_payment", success: !failed, qr_code: qr, qr_code_url: `${ctx.apiUrl}/transactions/${id}/qrcode?payment_method=pix`, expires_at: iso(p.pixExpiresAt) },
    };
  }
  if (p.method === "boleto") {
    const bo = p.boleto!;
    const b = buildBoleto({ bankCode: bo.bank, amountMinor: p.amount, dueDate: bo.dueAt, ourNumber: String(nosso) });
    return {
      chargeStatus: "pending",
      tx: {
        ...base, status: "generated", success: true, line: b.digitableLine, barcode: `${ctx.apiUrl}/transactions/${id}/barcode`,
        pdf: `${ctx.apiUrl}/transactions/${id}/pdf`, url: `${ctx.apiUrl}/transactions/${id}/pdf`, nosso_numero: String(nosso),
        bank: bo.bank, document_number: bo.documentNumber ?? String(nosso), instructions: bo.instructions ?? null, type: bo.type, due_at: iso(bo.dueAt), ...termsView(bo.terms),
      },
    };
  }
  const card = p.card!;
  const outcome = cardOutcome(card);
  const brand = cardBrand(card.number);
  const cardView = {
    id: newId("card"), first_six_digits: card.number.slice(0, 6), last_four_digits: card.number.slice(-4), brand: brand[0]!.toUpperCase() + brand.slice(1),
    holder_name: card.holder_name, exp_month: card.exp_month, exp_year: card.exp_year, status: "active", type: "credit", created_at: now, updated_at: now,
  };
  const tx: Obj = {
    ...base, installments: p.installments, statement_descriptor: p.statementDescriptor ?? null, acquirer_name: "simulator",
    acquirer_tid: randomAlnum(12), acquirer_nsu: String(Math.floor(Math.random() * 1e6)), operation_type: p.capture ? "auth_and_capture" : "auth_only",
    card: cardView, funding_source: "credit",
  };
  if (outcome.kind === "approved") {
    Object.assign(tx, { status: p.capture ? "captured" : "authorized_pending_capture", success: true, acquirer_auth_code: randomAlnum(6).toUpperCase(),
      acquirer_return_code: ctx.returnCodes === "abecs" ? "00" : "0000", acquirer_message: "Transação aprovada com sucesso" });
    return { chargeStatus: p.capture ? "paid" : "pending", tx };
  }
  if (outcome.kind === "declined") {
    Object.assign(tx, { status: "not_authorized", success: false, acquirer_auth_code: null,
      acquirer_return_code: ctx.returnCodes === "abecs" ? outcome.abecs : outcome.legacy, acquirer_message: outcome.message });
    return { chargeStatus: "failed", tx };
  }
  if (outcome.kind === "with_error") {
    Object.assign(tx, { status: "with_error", success: false, acquirer_return_code: null, acquirer_message: null,
      gateway_response: { code: "500", errors: [{ message: "Acquirer communication error" }] } });
    return { chargeStatus: "failed", tx };
  }
  Object.assign(tx, { status: "analyzing", success: false, acquirer_return_code: null, acquirer_message: null });
  return { chargeStatus: "processing", tx };
}

/** An order's status from its charges. */
export function orderStatus(chargeStatuses: string[]): string {
  if (chargeStatuses.every((s) => s === "paid" || s === "overpaid")) return "paid";
  if (chargeStatuses.every((s) => s === "canceled")) return "canceled";
  if (chargeStatuses.some((s) => s === "pending" || s === "processing" || s === "underpaid")) return "pending";
  if (chargeStatuses.some((s) => s === "failed")) return "failed";
  return "paid";
}

export { iso };
