import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, buildTestApp, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { signIn, type PanelClient } from "./panel-client.js";

// Issue 46 item 16: a path parameter reaches a route decoded, and the panel put ids back into its
// redirects' Location header as they came: an emoji or CR/LF made Node refuse the header
// ("Invalid character in header content"), a 500. Every panel and API route with an id in its
// path answers such ids with a 4xx or a redirect whose Location is plain ASCII, inside the panel,
// with the id as one encoded segment.

let t: TestApp;
let m: SeededMerchant;
let c: PanelClient;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t, { connectEnabled: true });
  c = await signIn(t, m.email, m.password);
});
after(async () => t?.close());

const IDS = ["ch_\u{1F600}", "\u{1F4A9}", "x\r\nSet-Cookie: a=b", "a/b?c=d#e", "dp_é"];

// Every panel route with a parameter (router.ts), with a valid action where it takes one.
const PANEL_GETS = ["/panel/charges/:id", "/panel/connect/:id", "/panel/customers/:id", "/panel/developers/events/:id", "/panel/disputes/:id",
  "/panel/links/:id", "/panel/subscriptions/:id", "/panel/developers/webhooks/:id"];
const PANEL_POSTS: [string, Record<string, string>][] = [
  ["/panel/charges/:id/refund", { mode: "full" }], ["/panel/charges/:id/sandbox/pay", {}], ["/panel/charges/:id/sandbox/dispute", {}],
  ["/panel/connect/:id/payouts", { amount: "10" }], ["/panel/disputes/:id/accept", { confirm: "on" }], ["/panel/disputes/:id/accept", {}],
  ["/panel/disputes/:id/sandbox/won", {}], ["/panel/links/:id/deactivate", {}], ["/panel/subscriptions/plans/:id/archive", {}],
  ["/panel/subscriptions/:id/pause", {}], ["/panel/subscriptions/:id/cancel", { when: "now" }], ["/panel/subscriptions/:id/cancel", { when: "now", confirm: "on" }],
  ["/panel/developers/webhooks/:id/enable", {}], ["/panel/developers/webhooks/:id/rotate", {}], ["/panel/developers/webhooks/:id/resend", { eventId: "evt_x" }],
];
const API: [string, string][] = [
  ["GET", "/v1/charges/:id"], ["POST", "/v1/charges/:id/refunds"], ["GET", "/v1/customers/:id"], ["GET", "/v1/disputes/:id"],
  ["POST", "/v1/disputes/:id/accept"], ["GET", "/v1/payment-links/:id"], ["GET", "/v1/subscriptions/:id"], ["GET", "/v1/submerchants/:id"],
];

const at = (pattern: string, id: string) => pattern.replace(":id", encodeURIComponent(id));

/** A 4xx, or a redirect to an ASCII Location inside the panel; never a 500. */
function assertAnswered(res: { statusCode: number; body: string; headers: Record<string, unknown> }, label: string) {
  assert.ok(res.statusCode < 500, `${label}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  const location = res.headers.location;
  if (location === undefined) return;
  assert.match(String(location), /^\/panel[\x21-\x7e]*$/, `${label}: Location ${JSON.stringify(location)}`);
}

test("panel pages of an id with an emoji, CR/LF, a slash or an accent: a 4xx, never a 500", async () => {
  for (const id of IDS) {
    for (const pattern of PANEL_GETS) assertAnswered(await c.get(at(pattern, id)), `GET ${pattern} ${JSON.stringify(id)}`);
  }
});

test("panel forms of such ids: a 4xx or a redirect whose Location carries the id as one encoded segment", async () => {
  for (const id of IDS) {
    for (const [pattern, form] of PANEL_POSTS) {
      await c.get("/panel");
      const res = await c.post(at(pattern, id), form);
      assertAnswered(res, `POST ${pattern} ${JSON.stringify(id)}`);
    }
  }
  // The sandbox's dispute of a charge that is not there goes back to that charge's page, its id encoded.
  await c.get("/panel");
  const res = await c.post(at("/panel/charges/:id/sandbox/dispute", "ch_\u{1F600}"), {});
  assert.equal(res.statusCode, 303, res.body.slice(0, 200));
  assert.equal(res.headers.location, "/panel/charges/ch_%F0%9F%98%80");
  assert.equal((await c.get(String(res.headers.location))).statusCode, 404);
});

test("API routes of such ids: a 4xx in the error shape", async () => {
  for (const id of IDS) {
    for (const [method, pattern] of API) {
      const res = await t.app.inject({ method: method as "GET" | "POST", url: at(pattern, id), headers: { authorization: basic(m.sandboxKey) }, ...(method === "POST" ? { payload: {} } : {}) });
      assertAnswered(res, `${method} ${pattern} ${JSON.stringify(id)}`);
      assert.deepEqual(Object.keys(res.json()).sort(), ["code", "error", "message", "statusCode"], res.body);
    }
  }
});
