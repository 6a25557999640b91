import { randomBytes, randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import {
  brandMatches, buildPayment, mpDate, mpError, parseCardToken, parsePayment, reais, type CardToken, type MpError,
} from "./fake-mercadopago-model.js";
import {
  faultCounts, startFakeCore, type ApiRequest, type FakeProvider, type Reply,
} from "./fake-provider.js";
import { fingerprint } from "./fake-idempotency.js";
import { fakeChargebacks, type ChargebackDecision } from "./fake-mercadopago-chargebacks.js";
import { mercadopagoNotices, type SignatureFault } from "./fake-mercadopago-notices.js";
import { fakeMercadoPagoOAuth, type FakeMercadoPagoOAuth } from "./fake-mercadopago-oauth.js";

// A fake of Mercado Pago's Payments API, built from its public documentation and the official
// Node SDK's models (see docs/processors.md, "The local fakes"): Bearer access token, card
// tokens (with the public key or the token), payments by card with installments, Pix and
// boleto (bolbradesco), the mandatory X-Idempotency-Key, search by external_reference, partial
// and full refunds, cancel, chargebacks, and thin webhooks signed as documented
// (x-signature: ts=...,v1=HMAC-SHA256(secret, "id:<data.id>;request-id:<x-request-id>;ts:<ts>;")).
// A control API under /__fake/ moves payments as the payer or the bank would and sets faults.
//
// Local mode: `npm run fake:mercadopago` (FAKE_MERCADOPAGO_PORT, default 4030; control on port + 1).

export type { SignatureFault };
/** "pending": refunds are created `pending` and finished later by approveRefund / rejectRefund. */
export type RefundMode = "approved" | "pending";

export interface FakeMercadoPagoOptions {
  accessToken?: string;
  publicKey?: string;
  clientId?: string; clientSecret?: string; // the marketplace's application, for sellers' OAuth (fake-mercadopago-oauth.ts)
  /** The "secret signature" of the webhook configuration. */
  webhookSecret?: string;
  port?: number;
  controlPort?: number;
  latencyMs?: number;
  /** The dashboard webhook URL; a payment's notification_url takes priority. */
  webhookUrl?: string;
  /** Unit of the signature's ts: milliseconds (current docs, default) or seconds (older examples). */
  signatureTs?: "ms" | "s";
  idempotencyTtlMs?: number;
  webhookRetries?: number;
  webhookRetryDelayMs?: number;
  /** Refunds are approved at once (default) or created pending. */
  refundMode?: RefundMode;
}

type Obj = Record<string, unknown>;
interface Payment extends Obj { id: number; collector_id: number; status: string; status_detail: string; external_reference: string | null; notification_url: string | null; refunds: Obj[] }
interface Money { amount: number; refunded: number }

export interface FakeMercadoPago extends FakeProvider {
  /** `url` is the API base to configure as MERCADOPAGO_API_URL. */
  accessToken: string;
  publicKey: string;
  webhookSecret: string;
  oauth: FakeMercadoPagoOAuth; clientId: string; clientSecret: string; // sellers' OAuth; the application's client
  payments: Map<number, Payment>;
  /** Chargebacks by id (GET /v1/chargebacks/{id}), made by chargeback(). */
  chargebacks: Map<string, Obj>;
  /** Mercado Pago's decision on a chargeback (coverage applied or not), with its notice. */
  decideChargeback(id: string, outcome: ChargebackDecision): Obj | string;
  /** The documentation uploads a chargeback received (fake-mercadopago-chargebacks.ts). */
  chargebackUploads(id: string): { name: string; type: string; size: number }[][];
  /** Uploads answer after their notice was delivered (fake-mercadopago-chargebacks.ts). */
  announceUploadsFirst(on: boolean): void;
  /** Payments created with this external_reference (a test asserts it never exceeds 1). */
  paymentsCreated(reference: string): number;
  duplicateReferences(): string[];
  payment(id: number | string): Obj | undefined;
  setSignatureFault(mode: SignatureFault, times?: number): void;
  /** Refunds made on a payment (a replayed key is not one). */
  refundsMade(paymentId: number | string): number;
  setRefundMode(mode: RefundMode): void;
  /** Settles a pending refund (refundMode "pending"); each returns the refund or an error message. */
  approveRefund(refundId: number | string): Obj | string;
  rejectRefund(refundId: number | string): Obj | string;
  /**
   * Payer/bank-side moves; each returns the payment or an error message. `late`: a Pix or boleto
   * cancelled or expired unpaid is paid all the same (the payer's bank took it first).
   */
  pay(id: number, opts?: { late?: boolean }): Obj | string;
  fail(id: number, statusDetail?: string): Obj | string;
  expire(id: number): Obj | string;
  dispute(id: number): Obj | string;
  chargeback(id: number): Obj | string;
  /** The next `times` cancels of a pending Pix or boleto find it paid a moment before: 400, as for any approved payment. */
  payBeforeCancel(times?: number): void;
  /** The manifest and v1 of a signature, for tests that check a receiver. */
  sign(dataId: string, requestId: string, ts: string): string;
  close(): Promise<void>;
}

const fail = (e: MpError): Reply => ({ status: e.status, body: e });

export async function startFakeMercadoPago(opts: FakeMercadoPagoOptions = {}): Promise<FakeMercadoPago> {
  const accessToken = opts.accessToken ?? "TEST-fake-mercadopago-access-token";
  const publicKey = opts.publicKey ?? "TEST-fake-mercadopago-public-key";
  const webhookSecret = opts.webhookSecret ?? "fake-mercadopago-webhook-secret";
  const app = { clientId: opts.clientId ?? "fake-mercadopago-client-id", clientSecret: opts.clientSecret ?? "fake-mercadopago-client-secret" }, oauth = fakeMercadoPagoOAuth(app);
  const payments = new Map<number, Payment>();
  const money = new Map<number, Money>();
  const tokens = new Map<string, CardToken>();
  const byRef = new Map<string, number[]>();
  const pixKey = randomUUID();
  const collectorId = 1_234_567_890;
  let nextId = 1_310_000_001;
  let nextRefund = 2_100_000_001;
  let refundMode: RefundMode = opts.refundMode ?? "approved";
  let payBeforeCancel = 0;

  const core = await startFakeCore({
    basePath: "", port: opts.port, controlPort: opts.controlPort, latencyMs: opts.latencyMs,
    webhookRetries: opts.webhookRetries, webhookRetryDelayMs: opts.webhookRetryDelayMs, webhookUrl: opts.webhookUrl, idempotencyTtlMs: opts.idempotencyTtlMs,
    errorBody: (status, message) => mpError(status, message, [], status === 429 ? "too_many_requests" : "internal_error"),
    api: (req) => api(req),
    control: (req) => control(req),
  });

  const keys = core.keys;
  const notices = mercadopagoNotices({ core, webhookSecret, signatureTs: opts.signatureTs, collectorId });
  const send = notices.send;
  const notify = (p: Payment, action: "payment.created" | "payment.updated") => send(p.notification_url ?? core.webhookUrl(), String(p.id), "payment", action, p.collector_id);
  const chargebacks = fakeChargebacks({ notify: (id, owner) => send(core.webhookUrl(), id, "chargebacks", "chargeback.updated", owner), nextId: () => nextRefund++, flush: () => core.controls.flushWebhooks() });

  function update(p: Payment, status: string, detail: string, extra: Obj = {}): Obj {
    Object.assign(p, { status, status_detail: detail, date_last_updated: mpDate() }, extra);
    notify(p, "payment.updated");
    return p;
  }

  function createPayment(req: ApiRequest, seller: number | undefined): Reply {
    const input = parsePayment(req.json);
    if ("status" in input) return fail(input);
    const fees = oauth.fee(req.json, seller);
    if (!Array.isArray(fees)) return fail(fees);
    let card: CardToken["card"] | undefined;
    if (input.kind === "card") {
      const token = tokens.get(input.token!);
      if (!token || token.used || token.expiresAt < Date.now()) return fail(mpError(400, "Card Token not found", [{ code: 2006, description: "Card Token not found" }]));
      if (!brandMatches(input.methodId, token.card.number)) return fail(mpError(400, "payment_method_id does not match the card's bin", [{ code: "diff_param_bins", description: "payment_method_id" }]));
      token.used = true;
      card = token.card;
    }
    const id = nextId++;
    const p = Object.assign(buildPayment(input, { id, origin: core.origin, pixKey, collectorId: seller ?? collectorId, card }), fees.length > 0 ? { fee_details: fees } : {}) as Payment;
    payments.set(id, p);
    money.set(id, { amount: input.amount, refunded: 0 });
    if (p.external_reference !== null) byRef.set(p.external_reference, [...(byRef.get(p.external_reference) ?? []), id]);
    notify(p, "payment.created");
    return { status: 201, body: p };
  }

  function refund(p: Payment, req: ApiRequest): Reply {
    const m = money.get(p.id)!;
    const raw = (req.json as { amount?: unknown } | undefined)?.amount;
    if (p.status !== "approved") return fail(mpError(400, `Payment ${p.id} can not be refunded: its status is ${p.status}`, [{ code: "invalid_payment_status", description: p.status }]));
    const remaining = m.amount - m.refunded;
    const cents = raw === undefined ? remaining : typeof raw === "number" && raw > 0 && Math.abs(Math.round(raw * 100) - raw * 100) < 1e-6 ? Math.round(raw * 100) : -1;
    if (cents <= 0 || cents > remaining) return fail(mpError(400, "Invalid refund amount", [{ code: "invalid_refund_amount", description: `at most ${reais(remaining)}` }]));
    const r: Obj = {
      id: nextRefund++, payment_id: p.id, amount: reais(cents), metadata: {}, source: { id: String(collectorId), name: "Fake collector", type: "collector" },
      date_created: mpDate(), unique_sequence_number: null, refund_mode: "standard", adjustment_amount: 0, status: "pending", reason: null, amount_refunded_to_payer: 0,
    };
    p.refunds.push(r);
    // A pending refund holds its amount (no second refund can take it) until it is approved or rejected.
    m.refunded += cents;
    if (refundMode === "approved") settleRefund(p, r, "approved");
    return { status: 201, body: structuredClone(r) };
  }

  function settleRefund(p: Payment, r: Obj, status: "approved" | "rejected"): void {
    const m = money.get(p.id)!;
    const cents = Math.round((r.amount as number) * 100);
    r.status = status;
    if (status === "rejected") {
      m.refunded -= cents;
      return;
    }
    r.amount_refunded_to_payer = r.amount;
    const approved = p.refunds.filter((x) => x.status === "approved").reduce((sum, x) => sum + Math.round((x.amount as number) * 100), 0);
    const full = approved === m.amount;
    update(p, full ? "refunded" : "approved", full ? "refunded" : "partially_refunded", { transaction_amount_refunded: reais(approved) });
  }

  /** Approves or rejects a pending refund (refundMode "pending"), as Mercado Pago would later. */
  function finishRefund(refundId: number, status: "approved" | "rejected"): Obj | string {
    for (const p of payments.values()) {
      const r = p.refunds.find((x) => x.id === refundId);
      if (!r) continue;
      if (r.status !== "pending") return `refund is ${String(r.status)}, not pending`;
      settleRefund(p, r, status);
      return r;
    }
    return "refund not found";
  }

  function put(p: Payment, req: ApiRequest): Reply {
    const b = (req.json ?? {}) as { status?: unknown; capture?: unknown };
    if (b.status === "cancelled") {
      if (p.status === "pending" && p.payment_type_id !== "credit_card" && payBeforeCancel > 0) {
        payBeforeCancel--;
        moves.pay(p.id);
      }
      if (!["pending", "in_process", "authorized"].includes(p.status)) return fail(mpError(400, `Payment ${p.id} can not be cancelled: its status is ${p.status}`, [{ code: "invalid_payment_status", description: p.status }]));
      return { status: 200, body: update(p, "cancelled", "by_collector") };
    }
    if (b.capture === true) {
      if (p.status !== "authorized") return fail(mpError(400, `Payment ${p.id} can not be captured: its status is ${p.status}`, [{ code: "invalid_payment_status", description: p.status }]));
      return { status: 200, body: update(p, "approved", "accredited", { captured: true, date_approved: mpDate() }) };
    }
    return fail(mpError(400, "Only {\"status\":\"cancelled\"} or {\"capture\":true} is supported", [{ code: "invalid_parameter", description: "body" }]));
  }

  // Writes run once per X-Idempotency-Key (mandatory here): the same key and body replays the
  // first answer; while that first call is still being answered the replay gets 409 401001 as
  // documented; the same key with another body gets 409.
  function once(req: ApiRequest, route: string, required: boolean, work: () => Reply): Reply {
    const key = req.headers["x-idempotency-key"];
    if (typeof key !== "string" || key === "") {
      return required ? fail(mpError(400, "Header X-Idempotency-Key is required", [{ code: "missing_idempotency_key", description: "X-Idempotency-Key" }])) : work();
    }
    const fp = fingerprint(route, req.json);
    const seen = keys.lookup(key, fp);
    if (seen.kind === "mismatch") return fail(mpError(409, "The X-Idempotency-Key was already used with a different request", [{ code: "idempotency_key_conflict", description: "X-Idempotency-Key" }], "conflict"));
    if (seen.kind === "replay") {
      return seen.inFlight ? fail(mpError(409, "The process has not been completed yet. Try again later.", [{ code: 401001, description: "The process has not been completed yet. Try again later." }], "conflict")) : seen.reply;
    }
    const reply = work();
    if (reply.status < 300) keys.remember(req, key, fp, reply);
    return reply;
  }

  async function api(req: ApiRequest): Promise<Reply> {
    const { method, path, query } = req;
    const ticket = /^\/payments\/(\d+)\/ticket$/.exec(path);
    if (method === "GET" && ticket) return payments.has(Number(ticket[1])) ? { status: 200, raw: Buffer.from(`<html><body>Fake Mercado Pago ticket ${ticket[1]}</body></html>`), headers: { "content-type": "text/html" } } : fail(mpError(404, "not found"));
    if (req.path === "/authorization" || req.path === "/oauth/token") return oauth.api(req) ?? fail(mpError(405, "method not allowed"));
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const seller = oauth.sellerOf(bearer), own = typeof seller === "number" ? seller : undefined;
    if (method === "POST" && path === "/v1/card_tokens") {
      if (bearer !== accessToken && ![publicKey, ...[...oauth.sellers.values()].map((x) => x.publicKey)].includes(query.get("public_key") ?? "")) return fail(mpError(401, "invalid public_key or access token", [], "unauthorized"));
      if (req.jsonInvalid) return fail(mpError(400, "Malformed JSON"));
      const card = parseCardToken(req.json);
      if ("status" in card) return fail(card);
      const t: CardToken = { id: randomBytes(16).toString("hex"), card, createdAt: Date.now(), expiresAt: Date.now() + 7 * 86_400_000, used: false };
      tokens.set(t.id, t);
      return { status: 201, body: {
        id: t.id, card_id: null, first_six_digits: card.number.slice(0, 6), last_four_digits: card.number.slice(-4), expiration_month: card.month, expiration_year: card.year,
        cardholder: { name: card.holder, identification: card.identification ?? {} }, status: "active", date_created: mpDate(), date_last_updated: mpDate(),
        date_due: mpDate(new Date(t.expiresAt)), luhn_validation: true, live_mode: false, require_esc: false, card_number_length: card.number.length, security_code_length: card.securityCode.length,
      } };
    }
    if (bearer !== accessToken && own === undefined) return fail(mpError(401, seller === "expired" ? "expired access token" : "invalid access token", [], "unauthorized"));
    // Chargebacks' documentation is multipart, not JSON.
    const cb = chargebacks.api(req, own ?? collectorId);
    if (cb) return cb;
    if (req.jsonInvalid) return fail(mpError(400, "Malformed JSON"));
    if (method === "POST" && path === "/v1/payments") return once(req, "POST /v1/payments", true, () => createPayment(req, own));
    // A payment is its collector's: seen, changed and refunded with its account's token only (fake-mercadopago-oauth.ts).
    const caller = own ?? collectorId;
    if (method === "GET" && path === "/v1/payments/search") {
      const ref = query.get("external_reference");
      const status = query.get("status");
      // By reference through its index (the lookup of every resumed or reconciled charge).
      const candidates = ref ? (byRef.get(ref) ?? []).map((id) => payments.get(id)!) : [...payments.values()];
      let found = candidates.filter((p) => p.collector_id === caller && (!status || p.status === status));
      if (query.get("criteria") !== "asc") found = found.reverse();
      const limit = Math.min(1000, Math.max(1, Number(query.get("limit") ?? 30) || 30));
      const offset = Math.max(0, Number(query.get("offset") ?? 0) || 0);
      return { status: 200, body: { paging: { total: found.length, limit, offset }, results: found.slice(offset, offset + limit) } };
    }
    const m = /^\/v1\/payments\/(\d+)(\/refunds)?$/.exec(path);
    const found = m ? payments.get(Number(m[1])) : undefined;
    const p = found?.collector_id === caller ? found : undefined;
    if (m && !p) return fail(mpError(404, "Payment not found", [{ code: 2000, description: "Payment not found" }]));
    if (p && method === "GET" && !m![2]) return { status: 200, body: p };
    if (p && method === "PUT" && !m![2]) return once(req, `PUT /v1/payments/${p.id}`, false, () => put(p, req));
    if (p && method === "POST" && m![2]) return once(req, `POST /v1/payments/${p.id}/refunds`, true, () => refund(p, req));
    if (p && method === "GET" && m![2]) return { status: 200, body: p.refunds };
    return fail(mpError(404, "resource not found"));
  }

  const get = (id: number): Payment | string => payments.get(id) ?? "payment not found";
  const moves = {
    pay(id: number, how: { late?: boolean } = {}): Obj | string {
      const p = get(id);
      if (typeof p === "string") return p;
      const lateOk = how.late && p.status === "cancelled" && p.payment_type_id !== "credit_card";
      if (p.status !== "pending" && p.status !== "in_process" && !lateOk) return `payment is ${p.status}, not pending or in_process${how.late ? " (or a cancelled Pix or boleto)" : ""}`;
      const m = money.get(p.id)!;
      return update(p, "approved", "accredited", { date_approved: mpDate(), transaction_details: { ...(p.transaction_details as Obj), net_received_amount: reais(m.amount) } });
    },
    fail(id: number, statusDetail?: string): Obj | string {
      const p = get(id);
      if (typeof p === "string") return p;
      if (p.status !== "pending" && p.status !== "in_process") return `payment is ${p.status}, not pending or in_process`;
      return update(p, "rejected", statusDetail ?? (p.payment_type_id === "credit_card" ? "cc_rejected_other_reason" : "rejected_by_bank"));
    },
    expire(id: number): Obj | string {
      const p = get(id);
      if (typeof p === "string") return p;
      if (p.status !== "pending" || p.payment_type_id === "credit_card") return `only a pending Pix or boleto expires (payment is ${p.status} ${p.payment_type_id})`;
      return update(p, "cancelled", "expired");
    },
    dispute(id: number): Obj | string {
      const p = get(id);
      if (typeof p === "string") return p;
      if (p.status !== "approved") return `payment is ${p.status}, not approved`;
      return update(p, "in_mediation", "in_process");
    },
    chargeback(id: number): Obj | string {
      const p = get(id);
      if (typeof p === "string") return p;
      if (p.status !== "approved" && p.status !== "in_mediation") return `payment is ${p.status}, not approved or in_mediation`;
      const m = money.get(p.id)!;
      // The payment says charged_back first; the chargeback's own notice follows.
      const out = update(p, "charged_back", "in_process");
      chargebacks.open(p.id, m.amount - m.refunded, { owner: p.collector_id });
      return out;
    },
  };

  async function control(req: ApiRequest): Promise<Reply> {
    const m = /^\/__fake\/(pay|fail|expire|dispute|chargeback)\/(\d+)$/.exec(req.path);
    if (req.method === "POST" && m) {
      const id = Number(m[2]);
      const { status_detail: detail, late } = (req.json ?? {}) as { status_detail?: string; late?: boolean };
      const out = m[1] === "fail" ? moves.fail(id, detail) : m[1] === "pay" ? moves.pay(id, { late }) : moves[m[1] as "expire" | "dispute" | "chargeback"](id);
      return typeof out === "string" ? { status: 409, body: { message: out } } : { status: 200, body: out };
    }
    const cb = /^\/__fake\/chargebacks\/(\w+)\/(won|lost)$/.exec(req.path);
    if (req.method === "POST" && cb) {
      const out = chargebacks.decide(cb[1]!, cb[2] as ChargebackDecision);
      return typeof out === "string" ? { status: 409, body: { message: out } } : { status: 200, body: out };
    }
    if (req.method === "POST" && req.path === "/__fake/refund-mode") {
      const mode = (req.json as { mode?: RefundMode } | undefined)?.mode;
      if (mode !== "approved" && mode !== "pending") return { status: 400, body: { message: "mode must be approved or pending" } };
      refundMode = mode;
      return { status: 200, body: { refundMode } };
    }
    const r = /^\/__fake\/refunds\/(\d+)\/(approve|reject)$/.exec(req.path);
    if (req.method === "POST" && r) {
      const out = finishRefund(Number(r[1]), r[2] === "approve" ? "approved" : "rejected");
      return typeof out === "string" ? { status: 409, body: { message: out } } : { status: 200, body: out };
    }
    if (req.method === "POST" && req.path === "/__fake/pay-before-cancel") {
      payBeforeCancel = (req.json as { times?: number } | undefined)?.times ?? 1;
      return { status: 200, body: { payBeforeCancel } };
    }
    if (req.method === "POST" && req.path === "/__fake/signature-fault") {
      const b = (req.json ?? {}) as { mode?: SignatureFault; times?: number };
      if (!["none", "bad", "missing", "stale"].includes(b.mode ?? "")) return { status: 400, body: { message: "mode must be none, bad, missing or stale" } };
      notices.setSignatureFault(b.mode!, b.times);
      return { status: 200, body: { signatureFault: b.mode } };
    }
    if (req.method === "GET" && req.path === "/__fake/state") {
      // Every payment with its external_reference, for a test that checks a whole run against feira.
      const list = [...payments.values()].map((p) => ({ reference: p.external_reference, id: p.id, status: p.status, method: p.payment_method_id }));
      return { status: 200, body: {
        paymentsByReference: Object.fromEntries([...byRef].map(([k, v]) => [k, v.length])), payments: payments.size,
        held: list, faults: faultCounts(core.requests),
      } };
    }
    return { status: 404, body: { message: "unknown control route" } };
  }

  return {
    ...core.controls, url: core.origin, controlUrl: core.controlUrl, accessToken, publicKey, webhookSecret, core, payments, chargebacks: chargebacks.all, oauth, ...app,
    decideChargeback: chargebacks.decide, chargebackUploads: chargebacks.uploads, announceUploadsFirst: chargebacks.announceUploadsFirst,
    paymentsCreated: (ref) => byRef.get(ref)?.length ?? 0,
    duplicateReferences: () => [...byRef].filter(([, ids]) => ids.length > 1).map(([ref]) => ref),
    payment: (id) => payments.get(Number(id)),
    setSignatureFault: notices.setSignatureFault,
    refundsMade: (id) => payments.get(Number(id))?.refunds.length ?? 0,
    setRefundMode: (mode) => { refundMode = mode; },
    approveRefund: (refundId) => finishRefund(Number(refundId), "approved"),
    rejectRefund: (refundId) => finishRefund(Number(refundId), "rejected"),
    ...moves,
    payBeforeCancel: (times = 1) => { payBeforeCancel = times; },
    sign: notices.sign,
    close: () => core.close(),
  };
}

// Local mode: a fake for a feira started on FEIRA_URL with MERCADOPAGO_API_URL pointing here.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = Number(process.env.FAKE_MERCADOPAGO_PORT ?? 4030);
  const feira = (process.env.FEIRA_URL ?? "http://localhost:3000").replace(/\/+$/, "");
  const fake = await startFakeMercadoPago({
    port, controlPort: Number(process.env.FAKE_MERCADOPAGO_CONTROL_PORT ?? (port ? port + 1 : 0)), accessToken: process.env.MERCADOPAGO_ACCESS_TOKEN,
    publicKey: process.env.MERCADOPAGO_PUBLIC_KEY, webhookSecret: process.env.MERCADOPAGO_WEBHOOK_SECRET, latencyMs: Number(process.env.FAKE_LATENCY_MS ?? 0),
    webhookUrl: process.env.FAKE_MERCADOPAGO_WEBHOOK_URL ?? `${feira}/v1/processors/mercadopago/webhooks`,
  });
  console.log(`fake Mercado Pago on ${fake.url} (control API on ${fake.controlUrl}/__fake/...)`);
  console.log(`start feira with PAYMENT_PROCESSOR=mercadopago MERCADOPAGO_API_URL=${fake.url} MERCADOPAGO_ACCESS_TOKEN=${fake.accessToken} `
    + `MERCADOPAGO_PUBLIC_KEY=${fake.publicKey} MERCADOPAGO_WEBHOOK_SECRET=${fake.webhookSecret}`);
}
