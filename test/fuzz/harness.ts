import { STATUS_CODES } from "node:http";
import { getTableName, is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { queryRows, sql, type Db } from "../../src/db/client.js";
import * as schema from "../../src/db/schema.js";
import { maskCardNumbers } from "../../src/lib/redact.js";
import { basic, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, methodCharge } from "../helpers/charges.js";
import { operationsOf, type FuzzContext, type HostileRequest, type Operation } from "./generators.js";

// What the fuzz test and bench/fuzz.ts share besides the generators: real objects to aim at,
// a write counter on every table, and the checks made on every answer.

// Tables whose writes a 4xx may legitimately make, left out of the check:
// - rate_limits: a refused authentication or login is counted there on purpose (the lockout).
// - idempotency_keys: a claim is committed before the handler runs, so that a concurrent
//   duplicate waits for it, and deleted when the answer is a 4xx: the table ends as it was,
//   but a write counter sees the two writes.
// - event_streams: an open GET /v1/events/stream renews its slot row in the background and
//   deletes it when it ends, whatever request runs at that moment.
const EXCLUDED = new Set(["rate_limits", "idempotency_keys", "event_streams"]);

export const TABLES = (Object.values(schema) as unknown[])
  .filter((v): v is PgTable => is(v, PgTable))
  .map((t) => getTableName(t))
  .filter((name) => !EXCLUDED.has(name));

/**
 * Counts committed row writes per table with a trigger on every table of src/db/schema.ts:
 * O(1) to read whatever the table sizes (a checksum of every row would grow with each 2xx of a
 * 100,000-request run), and it sees an update that a later one reverted. The counter row is
 * written in the writer's transaction, so a rolled-back write counts nothing.
 */
export async function installChangeCounters(db: Db): Promise<void> {
  // Only the tables the migrations made (a table being added to schema.ts may not have one yet).
  const existing = new Set((await queryRows<{ name: string }>(db, sql`
    select table_name as name from information_schema.tables where table_schema = current_schema()`)).map((r) => r.name));
  const tables = TABLES.filter((name) => existing.has(name));
  const statements = [
    "create table fuzz_changes (tbl text primary key, n bigint not null)",
    `create function fuzz_count_change() returns trigger language plpgsql as $$
    begin
      -- A worker process's writes (deliveries of earlier requests' events) are no request's.
      if current_setting('application_name', true) = 'feira-worker' then return null; end if;
      insert into fuzz_changes values (TG_TABLE_NAME, 1) on conflict (tbl) do update set n = fuzz_changes.n + 1;
      return null;
    end $$`,
    ...tables.map((t) => `create trigger fuzz_count after insert or update or delete on ${t} for each row execute function fuzz_count_change()`),
  ];
  for (const statement of statements) await db.execute(sql.raw(statement));
}

export async function readChangeCounters(db: Db): Promise<Map<string, number>> {
  const rows = await queryRows<{ tbl: string; n: string | number }>(db, sql`select tbl, n from fuzz_changes`);
  return new Map(rows.map((r) => [r.tbl, Number(r.n)]));
}

function changedTables(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after].filter(([t, n]) => (before.get(t) ?? 0) !== n).map(([t]) => t);
}

async function json(t: TestApp, key: string, method: string, url: string, payload?: unknown, status = 201) {
  const res = await t.app.inject({ method: method as "POST", url, headers: { authorization: basic(key) }, payload: payload as never });
  expectStatus(res, status);
  return res.json() as Record<string, unknown> & { id: string };
}

/** Merchants, keys and real objects to aim at, and known-good bodies to mutate. */
export async function prepareFuzz(t: TestApp): Promise<{ ops: Operation[]; ctx: FuzzContext }> {
  const doc = (await t.app.inject({ url: "/openapi.json" })).json();
  const a = await seedMerchant(t);
  const b = await seedMerchant(t);
  // Admin operations aim at a merchant of their own: blocking or re-keying merchant a would
  // turn the rest of the run into 401s and 403s.
  const c = await seedMerchant(t);
  const key = a.sandboxKey;
  const newCustomer = { name: "Ana Souza", email: "ana@example.com", documentId: "52998224725", documentType: "cpf" };
  const cus = await json(t, key, "POST", "/v1/customers", newCustomer);
  const card = { number: CARDS.visa, holderName: "ANA SOUZA", expirationMonth: "12", expirationYear: "2030" };
  const savedCard = await json(t, key, "POST", `/v1/customers/${cus.id}/cards`, card);
  const pse = { type: "pse", bankCode: "1007", personType: "natural", documentType: "CC", documentNumber: "1020304050" };
  const charges = await Promise.all([
    createCharge(t, key, cardCharge(CARDS.visa)),
    createCharge(t, key, methodCharge({ type: "pix" })),
    createCharge(t, key, methodCharge({ type: "open_finance" })),
    createCharge(t, key, methodCharge(pse, { currency: "COP", amount: 50000 })),
    createCharge(t, key, cardCharge(CARDS.threeDS, {}, { threeDSMode: "managed" })),
    createCharge(t, key, cardCharge(CARDS.inAnalysis)),
  ]);
  const othersCharge = await createCharge(t, b.sandboxKey, methodCharge({ type: "pix" }));
  const endpoint = await json(t, key, "POST", "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hook" });
  const events = (await json(t, key, "GET", "/v1/events", undefined, 200)).data as { id: string }[];
  const chargeIds = [...charges.map((ch) => ch.id), othersCharge.id];
  return {
    ops: operationsOf(doc),
    ctx: {
      keys: { sandbox: key, production: a.productionKey, other: b.sandboxKey, admin: t.admin },
      ids: {
        charges: chargeIds, sandbox: chargeIds, customers: [cus.id], "webhook-endpoints": [endpoint.id],
        events: events.slice(0, 3).map((e) => e.id), admin: [c.id], cardId: [savedCard.id], bank: ["open-finance", "pse"],
      },
      examples: {
        createCharge: [cardCharge(CARDS.visa, { metadata: { order: "A-1" } }), methodCharge({ type: "pix" }), cardCharge(CARDS.declined)],
        createCustomer: [newCustomer],
        updateCustomer: [{ name: "Fuzz" }, { phoneNumber: null }],
        patchCustomer: [{ email: "fuzz@example.com" }, { documentType: "cpf", documentId: "529.982.247-25" }],
        createCard: [card],
        refundCharge: [{ amount: 1 }, {}],
        resendChargeWebhook: [{ status: "paid" }],
        sandboxAuthenticateCharge: [{ result: "succeeded" }],
        sandboxReviewCharge: [{ result: "approved" }],
        sandboxBankDecision: [{ decision: "approve" }],
        createWebhookEndpoint: [{ url: "http://127.0.0.1:9/hook", events: ["*"], description: "fuzz" }],
        updateWebhookEndpoint: [{ description: "x" }, { enabled: true }],
        redeliverEvent: [{}],
        login: [{ email: a.email, password: a.password }],
        adminCreateMerchant: [{ name: "Fuzz", email: "fuzz@example.com", password: "correct horse battery" }],
        adminUpdateMerchant: [{ connectEnabled: true }],
        adminSetMerchantFees: [{ fees: [] }],
        updateMerchantProfile: [{ name: "Fuzz", softDescriptor: "FUZZ 1" }, { softDescriptor: null }],
        putInstallmentSettings: [{ maxInstallments: 12, interestFreeInstallments: 3, monthlyInterestPercent: 1.99 }],
      },
    },
  };
}

export interface Outcome {
  status: number;
  /** How an error body is off the error shape {statusCode, message, error, code}. */
  shape: string[];
  /** Tables a 4xx wrote. */
  changed: string[];
  /** Every broken promise: a 5xx, an undocumented 4xx, the shape, rows written by a 4xx. */
  problems: string[];
  body: string;
}

function shapeProblems(op: Operation | undefined, status: number, contentType: string, body: string): string[] {
  if (status < 400 || op?.htmlStatuses.includes(status)) return [];
  if (!contentType.startsWith("application/json")) return [`error answered as ${contentType || "no content type"}`];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return ["error body is not JSON"];
  }
  const e = parsed as Record<string, unknown>;
  const problems: string[] = [];
  if (Object.keys(e).sort().join() !== "code,error,message,statusCode") problems.push(`error body keys ${Object.keys(e).join()}`);
  if (e.statusCode !== status) problems.push(`statusCode ${String(e.statusCode)} in a ${status}`);
  if (e.error !== STATUS_CODES[status]) problems.push(`error ${String(e.error)} in a ${status}`);
  if (typeof e.code !== "string" || !e.code) problems.push("code missing");
  if (typeof e.message !== "string" || !e.message) problems.push("message missing");
  else if (maskCardNumbers(e.message) !== e.message) problems.push("message echoes a card number");
  return problems;
}

// /docs lists, per operation, the errors it can answer: a 4xx it does not list is a broken
// promise. Except 405: an emptied path parameter (`PATCH /v1/plans/`) names the collection,
// another path, which answers 405 with its own Allow header.
const undeclared = (op: Operation | undefined, status: number) =>
  op !== undefined && status >= 400 && status < 500 && status !== 405 && !op.errorStatuses.includes(status);

// A URL parser resolves dot segments, `%2e%2e` among them (WHATWG URL; curl and inject do
// the same), so `GET /v1/payment-links/%2e%2e/installments` reaches `GET /v1/installments`:
// the answer is judged by the operation of the path that was reached, when that is another. A
// client that sends the path as it is (the topology's HTTP requests to the processes) reaches
// the named operation instead, with `..` as its parameter: either operation's errors are then
// documented answers.
const templateRegex = (path: string) => new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`);
function reached(ops: Map<string, Operation>, op: Operation | undefined, method: string, url: string): Operation | undefined {
  if (!op) return op;
  const raw = url.split("?")[0]!;
  const resolved = new URL(url, "http://fuzz.invalid").pathname;
  if (resolved === raw) return op;
  // A fixed segment wins over a parameter, as in the router.
  const matches = [...ops.values()].filter((o) => o.method === method && templateRegex(o.path).test(resolved));
  return matches.sort((a, b) => a.pathParams.length - b.pathParams.length)[0] ?? op;
}

let sent = 0;

/** Sends one request and checks the answer; `counters` holds the write counts before it. */
export async function fire(t: TestApp, ops: Map<string, Operation>, req: HostileRequest, counters: { last: Map<string, number> }): Promise<Outcome> {
  // Each request from its own address: one address would be locked out (429) after its 50th
  // failed authentication, and the rest of the run would test the lockout only.
  const n = ++sent;
  const remoteAddress = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const op = reached(ops, ops.get(req.op), req.method, req.url);
  const inject = { method: req.method as "GET", url: req.url, headers: req.headers, payload: req.payload, remoteAddress };
  let res: { statusCode: number; headers: Record<string, unknown>; body: string };
  if (op?.streams) {
    // An event stream never ends: take its status, then close it as a client would.
    const streamed = await t.app.inject({ ...inject, payloadAsStream: true });
    let body = "";
    if (streamed.statusCode < 300) streamed.raw.res.destroy();
    else for await (const chunk of streamed.stream()) body += String(chunk);
    res = { statusCode: streamed.statusCode, headers: streamed.headers, body };
  } else {
    res = await t.app.inject(inject);
  }
  const shape = shapeProblems(op, res.statusCode, String(res.headers["content-type"] ?? ""), res.body);
  const now = await readChangeCounters(t.database.db);
  const changed = res.statusCode >= 400 && res.statusCode < 500 ? changedTables(counters.last, now) : [];
  counters.last = now;
  const problems = [
    ...(res.statusCode >= 500 ? [`HTTP ${res.statusCode}`] : []),
    ...(undeclared(op, res.statusCode) && undeclared(ops.get(req.op), res.statusCode) ? [`${res.statusCode} is not among the errors the document lists for ${op!.id} (${op!.errorStatuses.join(", ")})`] : []),
    ...shape,
    ...(changed.length > 0 ? [`a ${res.statusCode} wrote ${changed.join(", ")}`] : []),
  ];
  return { status: res.statusCode, shape, changed, problems, body: res.body };
}

/** A failure report that lets the request be replayed by hand. */
export function describeFailure(req: HostileRequest, outcome: Outcome): string {
  const cut = (s: string | undefined, n: number) => (s && s.length > n ? `${s.slice(0, n)}...(${s.length} chars)` : s);
  return [
    `${outcome.problems.join("; ")}`,
    `${req.op}: ${req.mutation || "(no mutation)"}`,
    `${req.method} ${cut(req.url, 300)}`,
    `headers ${cut(JSON.stringify(req.headers), 300)}`,
    `payload ${cut(req.payload === undefined ? "(none)" : JSON.stringify(req.payload), 500)}`,
    `answer ${outcome.status} ${cut(outcome.body, 500)}`,
  ].join("\n");
}
