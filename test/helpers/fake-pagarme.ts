import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { qrCodeDataUrl } from "../../src/lib/pix.js";
import { firstTransaction, iso, newId, orderStatus, parseOrder, type ReturnCodes } from "./fake-pagarme-model.js";
import { createPagarmeRefunds, type RefundMode } from "./fake-pagarme-refunds.js";
import { createPagarmeRecipients } from "./fake-pagarme-recipients.js"; type Recipients = ReturnType<typeof createPagarmeRecipients>;
import { basicUser, endToEndId, faultCounts, startFakeCore, type ApiRequest, type FakeProvider, type Reply } from "./fake-provider.js";
import { fingerprint } from "./fake-idempotency.js";
import { createPagarmeSplits, type FakePagarmeSplitControls } from "./fake-pagarme-split.js";

// A fake of Pagar.me's core API v5, built from its public documentation and the official SDK's
// models (see docs/processors.md, "The local fakes"): Basic auth with the secret key, orders with
// card (inline card data, installments), Pix and boleto charges, the `idempotency-key` header,
// lookups by order `code`, charge cancel and partial or full refunds, chargebacks, and
// unsigned webhooks that carry the whole order or charge. A control API under /__fake/ moves
// charges as a bank would and sets faults. Split rules and recipients' balances: fake-pagarme-split.ts.
// Local mode: `npm run fake:pagarme` (FAKE_PAGARME_PORT, default 4020; control on port + 1).

export interface FakePagarmeOptions {
  secretKey?: string;
  port?: number;
  controlPort?: number;
  latencyMs?: number;
  /** Where webhooks go (the dashboard setting); none = recorded as not sent. */
  webhookUrl?: string;
  /** Only these event types are sent (the dashboard's event selection); absent = all. */
  webhookEvents?: string[];
  /** ABECS codes (from 2026-08-28) or Pagar.me's older codes in acquirer_return_code. */
  returnCodes?: ReturnCodes;
  /** Same idempotency key, different body: answer the first result ("first", default) or 409. */
  idempotencyMismatch?: "first" | "409";
  idempotencyTtlMs?: number;
  /** Pays a pending Pix this long after creation, like the published Pix simulator (absent = never). */
  autoPayPixAfterMs?: number;
  webhookRetries?: number;
  webhookRetryDelayMs?: number;
  /** A cancellation of a paid charge is done at once (default) or waits until finishRefund/failRefund. */
  refundMode?: RefundMode;
  /** Keep connections open after answers (benchmarks; see the core's option). */
  keepAlive?: boolean;
}

type Obj = Record<string, unknown>;
interface Charge extends Obj { id: string; code: string | null; amount: number; status: string; payment_method: string; last_transaction: Obj; orderId: string; paid_amount: number; canceled_amount: number }
interface Order extends Obj { id: string; code: string | null; status: string; chargeIds: string[] }

export interface FakePagarme extends FakeProvider, FakePagarmeSplitControls {
  /** `url` is the API base to configure as PAGARME_API_URL, e.g. http://127.0.0.1:4020/core/v5. */
  secretKey: string;
  orders: Map<string, Order>;
  charges: Map<string, Charge>;
  /** Recipients (fake-pagarme-recipients.ts), by id; how many were made under a code; KYC's verdicts. */
  recipients: Recipients["recipients"];
  recipientsCreated: Recipients["recipientsCreated"];
  setRecipientStatus: Recipients["setRecipientStatus"]; setInitialRecipientStatus: Recipients["setInitialRecipientStatus"];
  /** Orders created with this `code` (a test asserts it never exceeds 1). */
  ordersCreated(code: string): number;
  /** Every `code` with more than one order. */
  duplicateCodes(): string[];
  order(id: string): Obj | undefined;
  charge(id: string): Obj | undefined;
  /**
   * Bank-side moves; each returns the charge view or an error message. `late`: a Pix or boleto
   * cancelled or expired before it was ever paid is paid all the same (the payer's bank took it
   * before the cancel reached it).
   */
  pay(chargeId: string, amount?: number, opts?: { late?: boolean }): Obj | string;
  fail(chargeId: string): Obj | string;
  expire(chargeId: string): Obj | string;
  chargeback(chargeId: string): Obj | string;
  /** Cancellations of a paid charge that did the work (a replayed key is not one). */
  refundsMade(chargeId: string): number;
  setRefundMode(mode: RefundMode): void;
  /** Completes or fails the cancellation waiting on a charge (refundMode "pending"). */
  finishRefund(chargeId: string): Obj | string;
  failRefund(chargeId: string): Obj | string;
  /** The next `times` cancels of a pending Pix or boleto find it paid a moment before (the cancel then refunds it, as DELETE /charges does on a paid charge). */
  payBeforeCancel(times?: number): void;
  close(): Promise<void>;
}

const BASE = "/core/v5";
const err = (status: number, message: string, extra: Obj = {}): Reply => ({ status, body: { message, ...extra } });

export async function startFakePagarme(opts: FakePagarmeOptions = {}): Promise<FakePagarme> {
  const secretKey = opts.secretKey ?? "sk_test_fake_pagarme";
  const returnCodes = opts.returnCodes ?? "abecs";
  const orders = new Map<string, Order>();
  const charges = new Map<string, Charge>();
  const customers = new Map<string, Obj>();
  const byCode = new Map<string, string[]>();
  const pendingPix = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  const pixKey = randomUUID();
  const account = { id: newId("acc"), name: "Fake Pagar.me account" };
  let nosso = 10_000_000;
  let payBeforeCancel = 0;
  const splits = createPagarmeSplits((id) => recipients.recipients.has(id));

  const core = await startFakeCore({
    basePath: BASE, port: opts.port, controlPort: opts.controlPort, latencyMs: opts.latencyMs,
    webhookRetries: opts.webhookRetries, webhookRetryDelayMs: opts.webhookRetryDelayMs, webhookUrl: opts.webhookUrl, idempotencyTtlMs: opts.idempotencyTtlMs,
    keepAlive: opts.keepAlive,
    errorBody: (_status, message) => ({ message }),
    api: (req) => api(req),
    control: (req) => control(req),
  });
  const apiUrl = core.origin + BASE;
  const keys = core.keys;

  const strip = ({ orderId: _o, ...rest }: Charge): Obj => rest;
  const orderCore = (o: Order): Obj => { const { chargeIds: _c, ...rest } = o; return rest; };
  const orderView = (o: Order): Obj => ({ ...orderCore(o), charges: o.chargeIds.map((id) => strip(charges.get(id)!)) });
  const chargeView = (c: Charge): Obj => ({ ...strip(c), order: orderCore(orders.get(c.orderId)!) });

  function emit(type: string, data: Obj): void {
    if (opts.webhookEvents && !opts.webhookEvents.includes(type)) return;
    const body = JSON.stringify({ id: newId("hook"), account, type, created_at: iso(), data });
    // Pagar.me v5 documents no signature: the body goes unsigned.
    core.notify({ label: type, body, headers: () => ({ "user-agent": "Pagar.me-Fake-Webhook" }) });
  }

  // Moves a charge and its order; true when the order's status changed.
  function touch(c: Charge, status: string, txStatus: string, extra: Obj = {}, txExtra: Obj = {}): boolean {
    const now = iso();
    Object.assign(c, { status, updated_at: now }, extra);
    c.last_transaction = { ...c.last_transaction, status: txStatus, updated_at: now, ...txExtra };
    const o = orders.get(c.orderId)!;
    const before = o.status;
    o.status = orderStatus(o.chargeIds.map((id) => charges.get(id)!.status));
    o.updated_at = now;
    if (o.status !== before && o.status === "canceled") o.canceled_at = now;
    return o.status !== before;
  }
  // Webhooks for a change: the charge event, then the order event when the order moved.
  function announce(c: Charge, moved: boolean, chargeEvent: string, orderEvent?: string): void {
    emit(chargeEvent, chargeView(c));
    if (orderEvent && moved) emit(orderEvent, orderView(orders.get(c.orderId)!));
  }

  function createOrder(req: ApiRequest): Reply {
    const parsed = splits.parse(parseOrder(req.json), req.json);
    if ("errors" in parsed) return err(422, "The request is invalid.", { errors: parsed.errors, request: req.json });
    const input = parsed.order;
    let customer: Obj;
    if (input.customerId) {
      const found = customers.get(input.customerId);
      if (!found) return err(404, "Customer not found.");
      customer = found;
    } else {
      const now = iso();
      customer = { id: newId("cus"), delinquent: false, created_at: now, updated_at: now, ...input.customer };
      customers.set(customer.id as string, customer);
    }
    const now = iso();
    const order: Order = {
      id: newId("or"), code: input.code ?? null, amount: input.payments.reduce((s, p) => s + p.amount, 0), currency: "BRL", closed: true,
      items: input.items.map((it) => ({ id: newId("oi"), type: "product", status: "active", created_at: now, updated_at: now, ...it })),
      customer, status: "pending", created_at: now, updated_at: now, closed_at: now, metadata: input.metadata ?? {}, chargeIds: [],
    };
    orders.set(order.id, order);
    const created: Charge[] = [];
    for (const [index, p] of input.payments.entries()) {
      const { chargeStatus, tx } = firstTransaction(p, { apiUrl, pixKey, returnCodes }, nosso++);
      const charge: Charge = {
        id: newId("ch"), code: order.code, gateway_id: tx.gateway_id, amount: p.amount, paid_amount: chargeStatus === "paid" ? p.amount : 0, canceled_amount: 0,
        status: chargeStatus, currency: "BRL", payment_method: p.method, due_at: p.boleto ? iso(p.boleto.dueAt) : null, created_at: now, updated_at: now,
        paid_at: chargeStatus === "paid" ? now : null, canceled_at: null, customer, metadata: {}, last_transaction: tx, orderId: order.id,
      };
      charges.set(charge.id, charge);
      splits.attach(charge.id, req.json, index, p.amount);
      if (p.method === "pix" && chargeStatus === "pending") pendingPix.add(charge.id);
      order.chargeIds.push(charge.id);
      created.push(charge);
      if (p.method === "pix" && chargeStatus === "pending" && opts.autoPayPixAfterMs !== undefined) {
        const t = setTimeout(() => { timers.delete(t); pay(charge.id); }, opts.autoPayPixAfterMs);
        timers.add(t);
      }
    }
    order.status = orderStatus(created.map((c) => c.status));
    if (order.code !== null) byCode.set(order.code, [...(byCode.get(order.code) ?? []), order.id]);
    emit("order.created", orderView(order));
    for (const c of created) emit(c.status === "paid" ? "charge.paid" : c.status === "failed" ? "charge.payment_failed" : "charge.pending", chargeView(c));
    if (order.status === "paid") emit("order.paid", orderView(order));
    if (order.status === "failed") emit("order.payment_failed", orderView(order));
    return { status: 200, body: orderView(order) };
  }

  const refunds = createPagarmeRefunds<Charge>({
    mode: opts.refundMode, charge: (id) => charges.get(id), touch, announce, view: chargeView, err,
  });

  // Runs before every call: it reads the Pix charges still pending only, not every charge ever
  // made (a benchmark's hundred thousand orders made each call a scan of all of them).
  function expireDuePix(): void {
    for (const id of pendingPix) {
      const c = charges.get(id);
      if (!c || c.status !== "pending") { pendingPix.delete(id); continue; }
      const at = c.last_transaction.expires_at;
      if (typeof at === "string" && Date.parse(at) <= Date.now()) { pendingPix.delete(id); expire(c.id); }
    }
  }

  function pay(chargeId: string, amount?: number, how: { late?: boolean } = {}): Obj | string {
    const c = charges.get(chargeId);
    if (!c) return "charge not found";
    const lateOk = how.late && c.status === "canceled" && c.payment_method !== "credit_card" && c.paid_amount === 0;
    if (c.status !== "pending" && c.status !== "processing" && !lateOk) return `charge is ${c.status}, not pending or processing${how.late ? " (or a cancelled, never paid Pix or boleto)" : ""}`;
    if (lateOk) c.canceled_amount = 0;
    if (c.payment_method === "credit_card" && c.status === "pending") return "a card authorized without capture is captured with POST /charges/{id}/capture";
    const paid = amount ?? c.amount;
    const status = paid === c.amount ? "paid" : paid < c.amount ? "underpaid" : "overpaid";
    const txStatus = c.payment_method === "credit_card" ? "captured" : status;
    const txExtra: Obj = c.payment_method === "pix"
      ? { end_to_end_id: endToEndId(), payer: { name: "Pagador Fake", document: "12345678909", document_type: "CPF", bank_account: { bank_name: "Banco Fake", ispb: "18236120" } } }
      : c.payment_method === "credit_card" ? { success: true, acquirer_return_code: returnCodes === "abecs" ? "00" : "0000", acquirer_message: "Transação aprovada com sucesso" } : {};
    const moved = touch(c, status, txStatus, { paid_amount: paid, paid_at: iso() }, txExtra);
    announce(c, moved, status === "paid" ? "charge.paid" : `charge.${status}`, "order.paid");
    return chargeView(c);
  }

  function fail(chargeId: string): Obj | string {
    const c = charges.get(chargeId);
    if (!c) return "charge not found";
    if (c.status !== "pending" && c.status !== "processing") return `charge is ${c.status}, not pending or processing`;
    const moved = touch(c, "failed", c.payment_method === "credit_card" ? "not_authorized" : "failed", {}, { success: false });
    announce(c, moved, "charge.payment_failed", "order.payment_failed");
    return chargeView(c);
  }

  function expire(chargeId: string): Obj | string {
    const c = charges.get(chargeId);
    if (!c) return "charge not found";
    if (c.status !== "pending" || c.payment_method === "credit_card") return `only a pending Pix or boleto expires (charge is ${c.status} ${c.payment_method})`;
    const moved = touch(c, "canceled", "expired", { canceled_at: iso() });
    announce(c, moved, "charge.updated", "order.canceled");
    return chargeView(c);
  }

  function chargeback(chargeId: string): Obj | string {
    const c = charges.get(chargeId);
    if (!c) return "charge not found";
    if (c.status !== "paid") return `charge is ${c.status}, not paid`;
    // Final: the order keeps its status (the chargeback lives on the charge only).
    touch(c, "chargedback", "chargedback");
    emit("charge.chargedback", chargeView(c));
    return chargeView(c);
  }

  // DELETE /charges/{id}: cancels a pending charge, refunds a paid one (all or `amount` cents).
  function cancelCharge(c: Charge, req: ApiRequest): Reply {
    const amount = (req.json as { amount?: unknown } | undefined)?.amount;
    if (amount !== undefined && !(Number.isSafeInteger(amount) && (amount as number) > 0)) return err(422, "The request is invalid.", { errors: { amount: ["The amount field must be a positive integer number of cents."] } });
    const now = iso();
    if (c.status === "pending" && c.payment_method !== "credit_card" && payBeforeCancel > 0) {
      payBeforeCancel--;
      pay(c.id);
    }
    if (c.status === "pending") {
      const txStatus = c.payment_method === "credit_card" ? "voided" : "canceled";
      const moved = touch(c, "canceled", txStatus, { canceled_amount: c.amount, canceled_at: now });
      announce(c, moved, "charge.updated", "order.canceled");
      return { status: 200, body: chargeView(c) };
    }
    return refunds.refund(c, amount as number | undefined);
  }

  // Runs a write once per idempotency key: a replay answers the first result; the same key with
  // another body answers that first result too, or 409 with idempotencyMismatch "409".
  function once(req: ApiRequest, route: string, work: () => Reply): Reply {
    const key = req.headers["idempotency-key"];
    if (typeof key !== "string" || key === "") return work();
    const fp = fingerprint(route, req.json);
    const seen = keys.lookup(key, fp);
    if (seen.kind === "replay") return seen.reply;
    if (seen.kind === "mismatch") return opts.idempotencyMismatch === "409" ? err(409, "The idempotency-key was already used with a different request.") : seen.reply;
    const reply = work();
    if (reply.status < 300) keys.remember(req, key, fp, reply);
    return reply;
  }

  function list<T extends Obj>(items: T[], q: URLSearchParams, view: (t: T) => Obj): Reply {
    const page = Math.max(1, Number(q.get("page") ?? 1) || 1);
    const size = Math.min(100, Math.max(1, Number(q.get("size") ?? 10) || 10));
    const data = items.slice((page - 1) * size, page * size).map(view);
    const paging: Obj = { total: items.length };
    if (page > 1) paging.previous = `${apiUrl}?page=${page - 1}&size=${size}`;
    if (page * size < items.length) paging.next = `${apiUrl}?page=${page + 1}&size=${size}`;
    return { status: 200, body: { data, paging } };
  }

  async function api(req: ApiRequest): Promise<Reply> {
    const { method, path, query } = req;
    const file = /^\/transactions\/(tran_\w+)\/(qrcode|pdf|barcode)$/.exec(path);
    if (method === "GET" && file) return transactionFile(file[1]!, file[2]!);
    if (basicUser(req.headers.authorization) !== secretKey) return err(401, "Authorization has been denied for this request.");
    if (req.jsonInvalid) return err(400, "The request is invalid.", { errors: { body: ["Malformed JSON."] } });
    expireDuePix();
    if (method === "POST" && path === "/orders") return once(req, "POST /orders", () => createOrder(req));
    if (method === "GET" && path === "/orders") {
      // By code through its index (the lookup of every resumed or reconciled charge).
      const code = query.get("code");
      const candidates = code ? (byCode.get(code) ?? []).map((id) => orders.get(id)!) : [...orders.values()];
      const found = candidates.filter((o) => !query.get("status") || o.status === query.get("status"));
      return list(found.reverse(), query, orderView);
    }
    if (method === "GET" && path === "/charges") {
      const found = [...charges.values()].filter((c) => (!query.get("code") || c.code === query.get("code")) && (!query.get("order_id") || c.orderId === query.get("order_id"))
        && (!query.get("status") || c.status === query.get("status")) && (!query.get("payment_method") || c.payment_method === query.get("payment_method")));
      return list(found.reverse(), query, chargeView);
    }
    const recipientReply = splits.api(req, charges) ?? recipients.api(req);
    if (recipientReply) return recipientReply;
    const m = /^\/(orders|charges)\/([\w-]+)(\/capture)?$/.exec(path);
    if (m) {
      if (m[1] === "orders") {
        const o = orders.get(m[2]!);
        return o && method === "GET" && !m[3] ? { status: 200, body: orderView(o) } : o ? err(405, "Method not allowed.") : err(404, "Order not found.");
      }
      const c = charges.get(m[2]!);
      if (!c) return err(404, "Charge not found.");
      if (method === "GET" && !m[3]) return { status: 200, body: chargeView(c) };
      if (method === "DELETE" && !m[3]) return once(req, `DELETE /charges/${c.id}`, () => cancelCharge(c, req));
      if (method === "POST" && m[3]) return once(req, `POST /charges/${c.id}/capture`, () => capture(c));
    }
    return err(404, "Resource not found.");
  }

  function capture(c: Charge): Reply {
    if (c.status !== "pending" || c.last_transaction.status !== "authorized_pending_capture") return err(412, `Charge can not be captured: its status is ${c.status}.`);
    const moved = touch(c, "paid", "captured", { paid_amount: c.amount, paid_at: iso() });
    announce(c, moved, "charge.paid", "order.paid");
    return { status: 200, body: chargeView(c) };
  }

  function transactionFile(txId: string, kind: string): Reply {
    const c = [...charges.values()].find((ch) => ch.last_transaction.id === txId);
    if (!c) return err(404, "Transaction not found.");
    if (kind === "qrcode" && typeof c.last_transaction.qr_code === "string") {
      return { status: 200, raw: Buffer.from(qrCodeDataUrl(c.last_transaction.qr_code).split(",")[1]!, "base64"), headers: { "content-type": "image/png" } };
    }
    if (kind === "pdf" && typeof c.last_transaction.line === "string") {
      return { status: 200, raw: Buffer.from(`%PDF-1.4\n% fake boleto ${c.last_transaction.line}\n%%EOF\n`), headers: { "content-type": "application/pdf" } };
    }
    return err(404, "File not found.");
  }

  async function control(req: ApiRequest): Promise<Reply> {
    const refundControl = refunds.control(req);
    if (refundControl) return refundControl;
    const m = /^\/__fake\/(pay|fail|expire|chargeback)\/([\w-]+)$/.exec(req.path);
    if (req.method === "POST" && req.path === "/__fake/pay-before-cancel") {
      payBeforeCancel = (req.json as { times?: number } | undefined)?.times ?? 1;
      return { status: 200, body: { payBeforeCancel } };
    }
    if (req.method === "POST" && m) {
      const { amount, late } = (req.json ?? {}) as { amount?: number; late?: boolean };
      const out = m[1] === "pay" ? pay(m[2]!, amount, { late }) : m[1] === "fail" ? fail(m[2]!) : m[1] === "expire" ? expire(m[2]!) : chargeback(m[2]!);
      return typeof out === "string" ? { status: 409, body: { message: out } } : { status: 200, body: out };
    }
    if (req.method === "GET" && req.path === "/__fake/state") {
      // Every charge with its order's code, for a test that checks a whole run against feira.
      const list = [...charges.values()].map((c) => ({ reference: c.code, id: c.id, status: c.status, method: c.payment_method }));
      return { status: 200, body: {
        ordersByCode: Object.fromEntries([...byCode].map(([k, v]) => [k, v.length])), orders: orders.size, charges: charges.size,
        held: list, faults: faultCounts(core.requests),
      } };
    }
    return { status: 404, body: { message: "unknown control route" } };
  }

  const recipients = createPagarmeRecipients({ err, once, list });
  const sweeper = setInterval(expireDuePix, 1000);
  sweeper.unref();

  return {
    ...core.controls, url: apiUrl, controlUrl: core.controlUrl, secretKey, core, orders, charges,
    ordersCreated: (code) => byCode.get(code)?.length ?? 0,
    duplicateCodes: () => [...byCode].filter(([, ids]) => ids.length > 1).map(([code]) => code),
    order: (id) => { const o = orders.get(id); return o && orderView(o); },
    charge: (id) => { const c = charges.get(id); return c && chargeView(c); },
    pay, fail, expire, chargeback, ...refunds.api, ...splits.controls,
    recipients: recipients.recipients, recipientsCreated: recipients.recipientsCreated,
    setRecipientStatus: recipients.setRecipientStatus, setInitialRecipientStatus: recipients.setInitialRecipientStatus,
    payBeforeCancel: (times = 1) => { payBeforeCancel = times; },
    async close() { clearInterval(sweeper); for (const t of timers) clearTimeout(t); await core.close(); },
  };
}

// Local mode: a fake for a feira started on FEIRA_URL with PAGARME_API_URL pointing here.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = Number(process.env.FAKE_PAGARME_PORT ?? 4020);
  const feira = (process.env.FEIRA_URL ?? "http://localhost:3000").replace(/\/+$/, "");
  const fake = await startFakePagarme({
    port, controlPort: Number(process.env.FAKE_PAGARME_CONTROL_PORT ?? (port ? port + 1 : 0)), secretKey: process.env.PAGARME_SECRET_KEY,
    latencyMs: Number(process.env.FAKE_LATENCY_MS ?? 0), webhookUrl: process.env.FAKE_PAGARME_WEBHOOK_URL ?? `${feira}/v1/processors/pagarme/webhooks`,
  });
  console.log(`fake Pagar.me v5 on ${fake.url} (control API on ${fake.controlUrl}/__fake/...)`);
  console.log(`start feira with PAYMENT_PROCESSOR=pagarme PAGARME_API_URL=${fake.url} PAGARME_SECRET_KEY=${fake.secretKey}`);
}
