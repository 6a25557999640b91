// The load scenarios of bench/run.ts. A scenario is one kind of request against the running
// server; adding one (e.g. POST /v1/charges by card or by Pix) is one entry in `scenarios`.
import { accredit } from "../src/cli/trigger-payout.js";

/** What a scenario knows of the server under test: its address and the printed first-start keys. */
export interface BenchServer {
  baseUrl: string;
  /** The demo merchant's sandbox key, printed by the first start. */
  sandboxKey: string;
  /** The admin key, printed by the first start (no ADMIN_API_KEY is set). */
  adminKey: string;
  merchantId: string;
}

export interface ScenarioRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";
  path: string;
  headers?: Record<string, string>;
  /** JSON text. In the body and the headers, `[<id>]` becomes a fresh id in every request. */
  body?: string;
}

export interface Scenario {
  name: string;
  /** One line: what is measured and why. */
  description: string;
  /** The status every answer must have; any other status fails the run (a 401 is fast but says nothing). */
  expectStatus: number;
  /** Optional preparation through the API (fees, a saved card...). */
  setup?(server: BenchServer): Promise<void>;
  request(server: BenchServer): ScenarioRequest;
}

export const basicAuth = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;

const json = { "content-type": "application/json" };

/** POST /v1/charges with the demo merchant's sandbox key. */
const postCharge = (s: BenchServer, charge: unknown): ScenarioRequest =>
  ({ method: "POST", path: "/v1/charges", headers: { ...json, authorization: basicAuth(s.sandboxKey) }, body: JSON.stringify(charge) });

/** A sandbox card charge paid at once (R$ 100.00 in 3 installments). */
const CARD_CHARGE = {
  amount: 100, currency: "BRL", customer: { name: "Maria Silva", email: "maria@example.com" },
  paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123", installments: 3 },
};

export const scenarios: Scenario[] = [
  {
    name: "ceiling",
    description:
      "GET of an unknown path: 404 from the not-found handler. The same server and every app-wide hook " +
      "(request id, auth's early return, metrics, onSend), but no authentication lookup, validation or database: " +
      "the HTTP ceiling of this server.",
    expectStatus: 404,
    request: () => ({ method: "GET", path: "/bench-noop" }),
  },
  {
    name: "health",
    description: "GET /health: the ceiling plus one `select 1` on the database.",
    expectStatus: 200,
    request: () => ({ method: "GET", path: "/health" }),
  },
  {
    name: "customers",
    description:
      "POST /v1/customers with a secret key and a valid body (CPF checked), a distinct e-mail per request: " +
      "key lookup, strict validation, one INSERT.",
    expectStatus: 201,
    request: (s) => ({
      method: "POST",
      path: "/v1/customers",
      headers: { ...json, authorization: basicAuth(s.sandboxKey) },
      body: JSON.stringify({ name: "Maria Silva", email: "bench-[<id>]@example.com", documentId: "529.982.247-25", documentType: "cpf" }),
    }),
  },
  {
    name: "customers-idempotent",
    description: "The customers scenario with a fresh Idempotency-Key per request: adds the key's claim (INSERT) and the saved answer (UPDATE).",
    expectStatus: 201,
    request: (s) => ({
      method: "POST",
      path: "/v1/customers",
      headers: { ...json, authorization: basicAuth(s.sandboxKey), "idempotency-key": "bench-[<id>]" },
      body: JSON.stringify({ name: "Maria Silva", email: "bench-[<id>]@example.com", documentId: "529.982.247-25", documentType: "cpf" }),
    }),
  },
  {
    name: "charge-card",
    description:
      "POST /v1/charges, sandbox card 4111111111111111 paid at once: validation, Luhn and brand, fee lookup, " +
      "the simulator, then the customer's lookup (the same buyer every time: found) and one statement with the charge, " +
      "the simulator's record, ledger entries, settlement rows and two events.",
    expectStatus: 201,
    request: (s) => postCharge(s, CARD_CHARGE),
  },
  {
    name: "charge-card-new-buyer",
    description:
      "charge-card with a distinct buyer's e-mail per request, as a shop's checkout sees them: the customer's lookup finds " +
      "nothing and the charge creates its customer.",
    expectStatus: 201,
    request: (s) => postCharge(s, { ...CARD_CHARGE, customer: { name: "Maria Silva", email: "buyer-[<id>]@example.com" } }),
  },
  {
    name: "charge-pix",
    description:
      "POST /v1/charges by Pix: as charge-card, plus the BR Code with its CRC16 and a PNG QR image rendered per request; answers pending.",
    expectStatus: 201,
    request: (s) => postCharge(s, { amount: 50.5, currency: "BRL", customer: { name: "Maria Silva", email: "maria@example.com" }, paymentMethod: { type: "pix" } }),
  },
  {
    name: "charge-split",
    description:
      "charge-card with a split to three submerchants of the demo merchant (a master with Connect): adds the originator's " +
      "Connect lookup, the recipients' check, and a ledger entry and settlement rows per recipient.",
    expectStatus: 201,
    async setup(s) {
      splitRecipients = [];
      for (const cnpj of ["11222333000181", "11444777000161", "45997418000153"]) {
        const res = await fetch(`${s.baseUrl}/v1/submerchants`, {
          method: "POST",
          headers: { ...json, authorization: basicAuth(s.sandboxKey) },
          body: JSON.stringify({
            tradeName: `Bench ${cnpj}`, legalName: `Bench ${cnpj} LTDA`, companyTaxId: cnpj, contactEmail: "bench@example.com",
            website: "https://bench.example.com", productType: "digital", productDescription: "Benchmark recipient",
            averageMonthlyRevenue: 1000, averageOrderValue: 10,
          }),
        });
        if (res.status !== 201) throw new Error(`charge-split setup: ${res.status} ${await res.text()}`);
        const { id } = (await res.json()) as { id: string };
        // A share goes only to an active submerchant: documents and the operator's approval.
        await accredit({ baseUrl: s.baseUrl, apiKey: s.sandboxKey }, { baseUrl: s.baseUrl, apiKey: s.adminKey }, id);
        splitRecipients.push(id);
      }
    },
    request: (s) => postCharge(s, { ...CARD_CHARGE, split: splitRecipients.map((merchantId, i) => ({ merchantId, percentage: 10 + i * 5 })) }),
  },
];

/** Submerchants made by the charge-split scenario's setup. */
let splitRecipients: string[] = [];

/** What `npm run bench` runs when no scenario is named. */
export const defaultScenarios = ["ceiling", "customers", "charge-card", "charge-pix"];
