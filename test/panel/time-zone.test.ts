import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "drizzle-orm";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { signIn, type PanelClient } from "./panel-client.js";

// The panel in the merchant's time zone (Brasília by default, a setting of the profile): the
// dates it shows, "today's sales", the chart's days, the date filters and the CSV's times. The
// instants here are written with the zones' fixed offsets (Brasília UTC-3 since 2019, Tokyo
// UTC+9 without daylight saving), not with feira's own arithmetic.

let t: TestApp;
let m: SeededMerchant;
let c: PanelClient;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PT = { "accept-language": "pt-BR" };
const api = (method: "GET" | "PATCH" | "POST", url: string, payload?: object) =>
  t.app.inject({ method, url, headers: { authorization: basic(m.sandboxKey), ...(method === "POST" ? { "idempotency-key": `k-${Math.random()}` } : {}) }, payload });

/** The calendar day (YYYY-MM-DD) an instant falls on at a fixed offset from UTC. */
const dayAt = (ms: number, offsetHours: number) => new Date(ms + offsetHours * HOUR).toISOString().slice(0, 10);
/** The instant of a wall-clock time (`hh`:`mm` on `day`) at a fixed offset. */
const wall = (day: string, hh: number, mm: number, offsetHours: number) => Date.parse(`${day}T00:00:00.000Z`) + hh * HOUR + mm * 60_000 - offsetHours * HOUR;

async function paidCharge(amount: number): Promise<string> {
  const res = await api("POST", "/v1/charges", {
    amount, currency: "BRL", customer: { name: "Ana Souza", email: "ana@example.com", document: { type: "cpf", id: "529.982.247-25" } },
    paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "ANA SOUZA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
  });
  expectStatus(res, 201);
  return res.json().id;
}

/** Puts a charge at `at` (made and paid then): created_apart, so the list's date filters read its created_at. */
async function placeAt(id: string, at: number): Promise<void> {
  const when = new Date(at).toISOString();
  await t.database.db.execute(sql`update charges set created_at = ${when}::timestamptz, paid_at = ${when}::timestamptz, created_apart = true where id = ${id}`);
}

/** The home page's "today" tile and the chart's bars (oldest first), as text. */
async function home() {
  const res = await c.get("/panel", PT);
  expectStatus(res, 200);
  const today = /<h2>Vendas de hoje<\/h2><p class="big">([^<]+)<\/p><p class="muted">([^<]+)<\/p>/.exec(res.body);
  assert.ok(today, res.body.slice(0, 3000));
  const bars = [...res.body.matchAll(/<rect [^>]*class="bar"><title>([^<]+)<\/title>/g)].map((b) => b[1]!.replace(/\s/g, " "));
  assert.equal(bars.length, 30);
  return { amount: today[1]!.replace(/\s/g, " "), count: today[2]!, bars };
}

const csvRow = (csv: string, id: string) => csv.split("\r\n").find((l) => l.startsWith(`${id},`))?.split(",") ?? [];

let late: string;
let yesterday: string;

before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  c = await signIn(t, m.email, m.password);
  late = await paidCharge(222.22);
  yesterday = await paidCharge(111.11);
});
after(async () => t?.close());

test("a new merchant's time zone is Brasília; PATCH /v1/merchant takes IANA zones only, stored by their canonical name", async () => {
  const profile = await api("GET", "/v1/merchant");
  expectStatus(profile, 200);
  assert.equal(profile.json().timezone, "America/Sao_Paulo");
  for (const timezone of ["Mars/Olympus_Mons", "-03:00", "UTC-3", "", "America/Sao_Paulo\u0000"]) {
    const bad = await api("PATCH", "/v1/merchant", { timezone });
    assert.equal(bad.statusCode, 422, `${JSON.stringify(timezone)}: ${bad.body}`);
  }
  assert.equal((await api("GET", "/v1/merchant")).json().timezone, "America/Sao_Paulo", "a refused zone changes nothing");
  const alias = await api("PATCH", "/v1/merchant", { timezone: "Brazil/East" });
  expectStatus(alias, 200);
  assert.equal(alias.json().timezone, "America/Sao_Paulo");
});

test("in Brasília, a sale at 22:30 (01:30 UTC of the next day) is today's, shown at 22:30, and yesterday's 22:30 is not today's", async () => {
  const now = Date.now();
  const today = dayAt(now, -3);
  const before = dayAt(now - DAY, -3);
  await placeAt(late, wall(today, 22, 30, -3)); // 01:30 UTC of the next day
  await placeAt(yesterday, wall(before, 22, 30, -3)); // 01:30 UTC of today
  const h = await home();
  assert.equal(h.amount, "R$ 222,22", "only the sale of today in Brasília");
  assert.match(h.bars[29]!, /R\$ 222,22$/, `today's bar: ${h.bars[29]}`);
  assert.match(h.bars[28]!, /R\$ 111,11$/, `yesterday's bar: ${h.bars[28]}`);

  const detail = await c.get(`/panel/charges/${late}`, PT);
  expectStatus(detail, 200);
  const [y, mo, d] = today.split("-").map(Number) as [number, number, number];
  const shown = new Intl.DateTimeFormat("pt-BR", { dateStyle: "medium", timeZone: "UTC" }).format(Date.UTC(y, mo - 1, d));
  assert.ok(detail.body.includes(`${shown}, 22:30`), `the charge's time in Brasília (${shown}, 22:30)`);
  assert.doesNotMatch(detail.body.replace(/ datetime="[^"]*"/g, ""), /01:30|UTC/, "no UTC time left on the page (the machine-readable datetime aside)");

  // The date filters are days of Brasília: today's holds the 22:30 sale, not yesterday's.
  const filtered = await c.get(`/panel/charges?from=${today}&to=${today}`, PT);
  assert.ok(filtered.body.includes(late) && !filtered.body.includes(yesterday), "from/to are Brasília days");

  const csv = await c.get(`/panel/charges.csv?from=${before}&to=${today}`);
  expectStatus(csv, 200);
  assert.deepEqual(csvRow(csv.body, late).slice(-2), [`${today}T22:30:00.000-03:00`, `${today}T22:30:00.000-03:00`], csv.body);
  assert.equal(csvRow(csv.body, yesterday).at(-2), `${before}T22:30:00.000-03:00`);
});

test("another zone (Tokyo, set in Settings): its days, its clock and its offset", async () => {
  const settings = await c.get("/panel/settings", PT);
  assert.match(settings.body, /<option value="America\/Sao_Paulo" selected>/, "the current zone is chosen in Settings");
  const saved = await c.post("/panel/settings/profile", { name: "Loja de Tóquio", timezone: "Asia/Tokyo" }, PT);
  assert.equal(saved.statusCode, 303, saved.body);
  assert.equal((await api("GET", "/v1/merchant")).json().timezone, "Asia/Tokyo");
  const refused = await c.post("/panel/settings/profile", { name: "Loja de Tóquio", timezone: "Asia/Nowhere" }, PT);
  assert.equal(refused.statusCode, 422);
  assert.match(refused.body, /id="profile-timezone-error"/);

  const now = Date.now();
  const today = dayAt(now, 9);
  await placeAt(late, wall(today, 0, 30, 9)); // 15:30 UTC of the day before
  await placeAt(yesterday, wall(dayAt(now - DAY, 9), 23, 30, 9));
  const h = await home();
  assert.equal(h.amount, "R$ 222,22", "only the sale of today in Tokyo");
  assert.match(h.bars[29]!, /R\$ 222,22$/);
  assert.match(h.bars[28]!, /R\$ 111,11$/);
  const detail = await c.get(`/panel/charges/${late}`, PT);
  assert.match(detail.body, /, 00:30</);
  const csv = await c.get("/panel/charges.csv");
  assert.equal(csvRow(csv.body, late).at(-2), `${today}T00:30:00.000+09:00`);
});
