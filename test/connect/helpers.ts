import { randomBytes } from "node:crypto";
import type { LightMyRequestResponse } from "fastify";
import { sql } from "drizzle-orm";
import assert from "node:assert/strict";
import { queryRows } from "../../src/db/client.js";
import { basic, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";

// Connect through HTTP, as a master, its submerchants and the operator would.

let cnpjSeq = Number.parseInt(randomBytes(3).toString("hex"), 16) % 1_000_000;

/** A valid CNPJ (check digits computed), unique within the run; `formatted` adds punctuation. */
export function newCnpj(formatted = false): string {
  const base = `${String(10_000_000 + (cnpjSeq++ % 89_999_999)).padStart(8, "0")}0001`;
  const digits = base.split("").map(Number);
  const dv = (weights: number[]) => {
    const sum = weights.reduce((s, w, i) => s + w * digits[i]!, 0);
    const r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  };
  digits.push(dv([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
  digits.push(dv([6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
  const d = digits.join("");
  return formatted ? `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}` : d;
}

export function submerchantBody(extra: Record<string, unknown> = {}) {
  return {
    tradeName: "Padaria Aurora",
    legalName: "Aurora Alimentos LTDA",
    companyTaxId: newCnpj(),
    contactEmail: "financeiro@aurora.example.com",
    website: "https://aurora.example.com",
    productType: "physical",
    productDescription: "Breads and cakes",
    averageMonthlyRevenue: 50000,
    averageOrderValue: 35.5,
    ...extra,
  };
}

export async function call(t: TestApp, method: "GET" | "POST" | "PUT" | "PATCH", url: string, key: string | null, payload?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method, url, payload: payload as never,
    headers: { ...(key ? { authorization: basic(key) } : {}), ...headers },
  });
}

export const admin = (t: TestApp, method: "POST" | "PUT" | "PATCH", url: string, payload?: unknown) => call(t, method, url, t.admin, payload);

export async function seedMaster(t: TestApp, fees?: unknown[]): Promise<SeededMerchant> {
  const m = await seedMerchant(t, { connectEnabled: true });
  if (fees) expectStatus(await admin(t, "PUT", `/v1/admin/merchants/${m.id}/fees`, { fees }), 200);
  return m;
}

export async function createSubmerchant(t: TestApp, masterKey: string, extra: Record<string, unknown> = {}) {
  const res = await call(t, "POST", "/v1/submerchants", masterKey, submerchantBody(extra));
  expectStatus(res, 201);
  return res.json() as { id: string; status: string; companyTaxId: string } & Record<string, unknown>;
}

/** `n` active submerchants of the master, with their keys. */
export async function activeSubmerchants(t: TestApp, masterKey: string, n: number): Promise<{ id: string; key: string }[]> {
  const made = [];
  for (let i = 0; i < n; i++) {
    const sm = await createSubmerchant(t, masterKey);
    await activate(t, masterKey, sm.id);
    made.push({ id: sm.id, key: await keyOf(t, masterKey, sm.id) });
  }
  return made;
}

// Smallest files whose magic bytes file-type recognizes.
export const FILES = {
  pdf: Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"),
  png: Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    Buffer.from("IHDR"), Buffer.alloc(13, 1), Buffer.alloc(4), Buffer.from([0, 0, 0, 0]), Buffer.from("IEND"), Buffer.alloc(4),
  ]),
  jpeg: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from("JFIF\0"), Buffer.alloc(64, 7), Buffer.from([0xff, 0xd9])]),
  text: Buffer.from("just some text pretending to be a PDF"),
};

export interface Part { field: string; filename?: string; contentType?: string; content: Buffer | string }

/** A multipart/form-data body; a part without filename is a plain field. */
export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----feira${randomBytes(8).toString("hex")}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = p.filename !== undefined
      ? `form-data; name="${p.field}"; filename="${p.filename}"`
      : `form-data; name="${p.field}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.contentType ? `Content-Type: ${p.contentType}\r\n` : ""}\r\n`));
    chunks.push(Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content));
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

export const REQUIRED_FILES: Part[] = [
  { field: "cnpj_card", filename: "cnpj.pdf", contentType: "application/pdf", content: FILES.pdf },
  { field: "social_contract", filename: "contrato.pdf", contentType: "application/pdf", content: FILES.pdf },
  { field: "responsible_document_front", filename: "rg-frente.png", contentType: "image/png", content: FILES.png },
  { field: "selfie_with_document", filename: "selfie.jpg", contentType: "image/jpeg", content: FILES.jpeg },
];

export async function upload(t: TestApp, key: string | null, id: string, parts: Part[], path = "document") {
  const body = multipart(parts);
  return t.app.inject({
    method: "POST", url: `/v1/submerchants/${id}/${path}`, payload: body.payload,
    headers: { ...body.headers, ...(key ? { authorization: basic(key) } : {}) },
  });
}

/** Uploads the required documents and has the admin accredit the submerchant. */
export async function activate(t: TestApp, masterKey: string, id: string): Promise<void> {
  expectStatus(await upload(t, masterKey, id, REQUIRED_FILES), 201);
  expectStatus(await admin(t, "POST", `/v1/admin/submerchants/${id}/status`, { status: "active" }), 200);
}

/**
 * The submerchant's key, as its master sees it through api-keys: exactly one, of the master's
 * key's environment (a submerchant exists only in the environment that registered it).
 */
export async function keyOf(t: TestApp, masterKey: string, id: string): Promise<string> {
  const res = await call(t, "GET", `/v1/submerchants/${id}/api-keys`, masterKey);
  expectStatus(res, 200);
  const keys = res.json().keys as { environment: string; key: string }[];
  const environment = masterKey.startsWith("sk_live_") ? "production" : "sandbox";
  assert.deepEqual(keys.map((k) => k.environment), [environment], `api-keys answers only ${environment} keys: ${res.body}`);
  assert.match(keys[0]!.key, environment === "production" ? /^sk_live_/ : /^sk_test_/);
  return keys[0]!.key;
}

export async function balanceOf(t: TestApp, key: string): Promise<{ available: number; pending: number }> {
  const res = await call(t, "GET", "/v1/balance", key);
  expectStatus(res, 200);
  const body = res.json() as { available: { currency: string; amount: number }[]; pending: { currency: string; amount: number }[] };
  const brl = (rows: { currency: string; amount: number }[]) => rows.find((r) => r.currency === "BRL")?.amount ?? 0;
  return { available: brl(body.available), pending: brl(body.pending) };
}

/** Every ledger transaction sums to zero, and each owner's pending equals its unsettled rows. */
export async function assertLedgerInvariants(t: TestApp): Promise<void> {
  const unbalanced = await queryRows(t.database.db, sql`select transaction_id from ledger_entries group by transaction_id having sum(amount) <> 0`);
  assert.deepEqual(unbalanced, [], "every ledger transaction sums to zero");
  const total = await queryRows<{ total: string }>(t.database.db, sql`select coalesce(sum(amount), 0)::text as total from ledger_entries`);
  assert.equal(Number(total[0]!.total), 0, "the whole ledger sums to zero");
  const mismatched = await queryRows(t.database.db, sql`
    with p as (select owner, environment, sum(amount) as pending from ledger_entries where account = 'pending' group by owner, environment),
         s as (select owner, environment, sum(amount) as open from settlements where settled_at is null and hold is null group by owner, environment)
    select coalesce(p.owner, s.owner) as owner from p full join s on p.owner = s.owner and p.environment = s.environment
    where coalesce(p.pending, 0) <> coalesce(s.open, 0)`);
  assert.deepEqual(mismatched, [], "pending balance = unsettled settlement rows, per owner");
  const heldOff = await queryRows(t.database.db, sql`
    with h as (select owner, environment, sum(amount) as held from ledger_entries where account = 'held' group by owner, environment),
         s as (select owner, environment, sum(amount) as open from settlements where settled_at is null and hold is not null group by owner, environment)
    select coalesce(h.owner, s.owner) as owner from h full join s on h.owner = s.owner and h.environment = s.environment
    where coalesce(h.held, 0) <> coalesce(s.open, 0)`);
  assert.deepEqual(heldOff, [], "held balance = held settlement rows, per owner");
}

export const FEES = [
  { feeType: "tx_spread", paymentMethod: "credit_card", currencyCode: "BRL", brand: null, definition: { fixed: 0, percentages: [10] } },
  { feeType: "tx_spread", paymentMethod: "credit_card", currencyCode: "BRL", brand: "amex", definition: { fixed: 50, percentages: [12.5] } },
  { feeType: "anticipation", paymentMethod: "credit_card", currencyCode: "BRL", brand: null, definition: { fixed: 0, percentages: [1.99, 2.99] } },
  { feeType: "tx_spread", paymentMethod: "pix", currencyCode: "BRL", brand: null, definition: { fixed: 0, percentages: [1] } },
  { feeType: "payout", paymentMethod: "pix", currencyCode: "BRL", brand: null, definition: { fixed: 200, percentages: [1] } },
];

/** A payout as the operator's list shows it (any environment). */
export async function payoutForAdmin(t: TestApp, id: string, merchantId: string): Promise<Record<string, unknown>> {
  const res = await call(t, "GET", `/v1/admin/payout-requests?merchantId=${merchantId}&size=100`, t.admin);
  expectStatus(res, 200);
  const found = (res.json() as { data: Record<string, unknown>[] }).data.find((p) => p.id === id);
  assert.ok(found, `payout ${id} in the admin list: ${res.body}`);
  return found;
}

/**
 * Waits until a payout being sent is decided by its transfer's read-back (the worker's
 * payouts.read-back task, run here as the worker would; it reads transfers a second old).
 */
export async function decidedTransfer(t: TestApp, id: string, merchantId: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const p = await payoutForAdmin(t, id, merchantId);
    if (p.status !== "pending") return p;
    assert.ok(Date.now() < deadline, `payout ${id} still pending: ${JSON.stringify(p)}`);
    await t.services.connect.payouts.transfers.reconcile();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Approves a sandbox payout without an endToEndId: 202 sending, then approved by the simulator's transfer. */
export async function approveBySimulator(t: TestApp, id: string, merchantId: string): Promise<Record<string, unknown>> {
  const res = await admin(t, "POST", `/v1/admin/payout-requests/${id}/approve`);
  expectStatus(res, 202);
  assert.deepEqual([res.json().status, res.json().transfer], ["pending", { status: "sending" }], res.body);
  return decidedTransfer(t, id, merchantId);
}

/** An active sandbox submerchant of `masterKey` with a paid, settled Pix of R$ 200 and a payout request of `amount` cents. */
export async function sandboxPayout(t: TestApp, masterKey: string, amount: number): Promise<{ smId: string; key: string; id: string }> {
  const sm = await createSubmerchant(t, masterKey);
  await activate(t, masterKey, sm.id);
  const key = await keyOf(t, masterKey, sm.id);
  const charge = await call(t, "POST", "/v1/charges", key, methodCharge({ type: "pix" }, { amount: 200 }));
  expectStatus(charge, 201);
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${charge.json().id}/pay`, key), 200);
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", key), 200);
  const p = await call(t, "POST", `/v1/submerchants/${sm.id}/payout-requests`, key, { amount });
  expectStatus(p, 201);
  return { smId: sm.id, key, id: p.json().id as string };
}

const brlOf = (rows: { currency: string; amount: number }[]) => rows.find((r) => r.currency === "BRL")?.amount ?? 0;

/** A submerchant's balance as its master reads it: available, pending and held BRL cents. */
export async function submerchantBalance(t: TestApp, masterKey: string, id: string): Promise<{ available: number; pending: number; held: number }> {
  const res = await call(t, "GET", `/v1/submerchants/${id}/balance`, masterKey);
  expectStatus(res, 200);
  const b = res.json();
  return { available: brlOf(b.available), pending: brlOf(b.pending), held: brlOf(b.held) };
}
