import { randomInt } from "node:crypto";
import { ApiError, call, type Connection } from "./api.js";

/** What a trigger made (printed as "Created ..."), and what the user should know about it. */
export interface TriggerOutput { created: string[]; notes: string[] }

// `feira trigger payout.approved|payout.rejected`: a payout request is the end of a Connect
// story (an accredited submerchant with available money) and is decided by the operator, so
// these triggers need the admin key as well as the master's sandbox key. They reuse the CLI's
// own submerchant when an earlier run left one active, so `feira listen` with its key keeps
// seeing every run's events.
export const CLI_SUBMERCHANT = "Feira CLI Test Seller";

const PAYOUT_CENTS = 5000;
const SAMPLE_PDF = new Blob(["%PDF-1.4\n% sample KYC document made by feira trigger (sandbox)\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"], { type: "application/pdf" });
const REQUIRED_DOCUMENTS = ["cnpj_card", "social_contract", "responsible_document_front", "selfie_with_document"];
// What the operator sets on the CLI's submerchant when its master's fees define no payout fee:
// R$ 2,00 per payout, the fee a payout needs before it can be requested.
const PAYOUT_FEE = { feeType: "payout", paymentMethod: "pix", currencyCode: "BRL", brand: null, definition: { fixed: 200, percentages: [0] } };

interface Submerchant { id: string; status: string }
interface Payout { id: string; amount: number; netAmount: number; status: string }

/** A valid CNPJ with random digits: a new submerchant must not reuse one of its master's. */
export function randomCnpj(): string {
  const digits = Array.from({ length: 8 }, () => randomInt(10)).concat([0, 0, 0, 1]);
  for (const weights of [[5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]]) {
    const r = weights.reduce((sum, w, i) => sum + w * digits[i]!, 0) % 11;
    digits.push(r < 2 ? 0 : 11 - r);
  }
  return digits.join("");
}

export function needAdminKey(event: string): never {
  throw new Error(
    `${event} needs the operator's admin key (adm_...): payouts are approved or rejected by the operator, who also accredits the submerchant. ` +
    "Pass --admin-key adm_... or set FEIRA_ADMIN_KEY (the key printed at the server's first start, or its ADMIN_API_KEY).",
  );
}

/**
 * Sample KYC documents for a sandbox submerchant, then the operator's approval: a submerchant
 * receives a payout or a share of a split only once it is active (the bench's splits use it too).
 */
export async function accredit(c: Connection, admin: Connection, id: string): Promise<void> {
  const form = new FormData();
  for (const kind of REQUIRED_DOCUMENTS) form.append(kind, SAMPLE_PDF, `${kind}.pdf`);
  await call(c, "POST", `/v1/submerchants/${id}/document`, form);
  await call(admin, "POST", `/v1/admin/submerchants/${id}/status`, { status: "active" });
}

async function activeSubmerchant(c: Connection, admin: Connection, out: TriggerOutput): Promise<Submerchant & { key: string }> {
  const found = await call<{ data: Submerchant[] }>(c, "GET", `/v1/submerchants?status=active&size=1&tradeName=${encodeURIComponent(CLI_SUBMERCHANT)}`)
    .catch((err: unknown) => {
      if (!(err instanceof ApiError && err.status === 403)) throw err;
      throw new Error(`Payout triggers need Connect, and the server refused: ${err.body}. The operator enables it: PATCH /v1/admin/merchants/{id} {"connectEnabled": true}`);
    });
  let sm = found.data[0];
  if (sm) {
    out.notes.push(`Using submerchant ${sm.id} (active, made by an earlier run)`);
  } else {
    sm = await call<Submerchant>(c, "POST", "/v1/submerchants", {
      tradeName: CLI_SUBMERCHANT, legalName: "Feira CLI Test Seller LTDA", companyTaxId: randomCnpj(),
      contactEmail: "cli@example.com", website: "https://seller.example.com", productType: "physical",
      productDescription: "Test seller created by feira trigger", averageMonthlyRevenue: 10000, averageOrderValue: 50,
    });
    await accredit(c, admin, sm.id);
    out.created.push(`submerchant ${sm.id} (sample KYC documents, accredited by the admin)`);
  }
  const keys = await call<{ keys: { environment: string; key: string }[] }>(c, "GET", `/v1/submerchants/${sm.id}/api-keys`);
  return { ...sm, key: keys.keys.find((k) => k.environment === "sandbox")!.key };
}

/** Funds the submerchant when it has less than a payout available: a paid Pix split to it, settled. */
async function fund(c: Connection, sm: Submerchant & { key: string }, out: TriggerOutput): Promise<void> {
  const available = async () => {
    const balance = await call<{ available: { currency: string; amount: number }[] }>({ ...c, apiKey: sm.key }, "GET", "/v1/balance");
    return balance.available.find((b) => b.currency === "BRL")?.amount ?? 0;
  };
  if ((await available()) >= PAYOUT_CENTS) return;
  const charge = await call<{ id: string }>(c, "POST", "/v1/charges", {
    amount: 100, currency: "BRL", metadata: { source: "feira trigger" }, customer: { name: "Feira CLI", email: "cli@example.com" },
    paymentMethod: { type: "pix" }, split: [{ merchantId: sm.id, percentage: 90 }],
  });
  await call(c, "POST", `/v1/sandbox/charges/${charge.id}/pay`);
  await call({ ...c, apiKey: sm.key }, "POST", "/v1/sandbox/settle");
  out.created.push(`charge ${charge.id} (Pix R$ 100,00, paid, 90 % split to ${sm.id}, settled)`);
  if ((await available()) < PAYOUT_CENTS) throw new Error(`Submerchant ${sm.id} still has less than ${PAYOUT_CENTS} cents available after funding`);
}

async function requestPayout(c: Connection, admin: Connection, sm: Submerchant): Promise<Payout> {
  const request = () => call<Payout>(c, "POST", `/v1/submerchants/${sm.id}/payout-requests`, { amount: PAYOUT_CENTS });
  try {
    return await request();
  } catch (err) {
    // The fees were copied from the master at creation; without a payout fee the operator sets one.
    if (!(err instanceof ApiError && err.status === 422 && /no payout fee is configured/.test(err.body))) throw err;
    const info = await call<{ fees: unknown[] }>(c, "GET", `/v1/connect/sub-accounts/${sm.id}/fees-info`);
    await call(admin, "PUT", `/v1/admin/merchants/${sm.id}/fees`, { fees: [...info.fees, PAYOUT_FEE] });
    return request();
  }
}

/** The payout once its transfer has decided it (the server's worker reads it back every few seconds). */
async function decidedLater(admin: Connection, merchantId: string, id: string, timeoutMs = 30_000): Promise<Payout> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Newest first: the payout just requested is on the first page.
    const found = (await call<{ data: Payout[] }>(admin, "GET", `/v1/admin/payout-requests?merchantId=${merchantId}`)).data.find((p) => p.id === id);
    if (found && found.status !== "pending") return found;
    if (Date.now() > deadline) throw new Error(`payout request ${id} is still being sent after ${timeoutMs / 1000} s: is a feira worker running (feira, or feira worker)?`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export async function payoutDecision(c: Connection, adminKey: string, decision: "approve" | "reject"): Promise<TriggerOutput> {
  const admin = { baseUrl: c.baseUrl, apiKey: adminKey };
  const out: TriggerOutput = { created: [], notes: [] };
  const sm = await activeSubmerchant(c, admin, out);
  await fund(c, sm, out);
  const payout = await requestPayout(c, admin, sm);
  const body = decision === "reject" ? { reason: "Rejected by feira trigger" } : undefined;
  const answered = await call<Payout>(admin, "POST", `/v1/admin/payout-requests/${payout.id}/${decision}`, body);
  // An approval without an endToEndId answers 202 while the simulator's Pix is on its way: the
  // server's worker decides it within seconds.
  const decided = answered.status === "pending" ? await decidedLater(admin, sm.id, payout.id) : answered;
  out.created.push(`payout request ${payout.id} (${payout.amount} cents, net ${payout.netAmount}), ${decided.status} by the admin`);
  out.notes.push(`payout events go to the submerchant's endpoints: watch them with feira listen --api-key <its sk_test_ key, from GET /v1/submerchants/${sm.id}/api-keys>`);
  return out;
}
