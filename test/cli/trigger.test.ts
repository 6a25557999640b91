import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { Webhook } from "standardwebhooks";
import { cliEntry } from "../helpers/feira-bundle.js";
import { createMerchant, makeStore, startFeira, type FeiraProcess, type Store } from "../helpers/feira-process.js";
import { basicAuth, ROOT, tempDir } from "../helpers/process.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
// run-suite: waits: feira and the CLI as processes

// feira trigger for the events that need more than one call: charge.failed (a Pix expired
// through the sandbox) and the payout decisions (a Connect submerchant accredited, funded by a
// split charge, its payout requested and decided with the admin key). bin/feira.mjs in a child
// process against a real feira process; deliveries to a local receiver. Once through bin/feira.mjs
// itself (help), otherwise through the bundle of its program (feira-bundle.ts: tsx costs about
// 2 s of CPU per run).
const run = promisify(execFile);
const BIN = path.join(ROOT, "bin/feira.mjs");

let store: Store;
let feira: FeiraProcess;
let receiver: Receiver;
let master: string;
let configDir: string;

const env = (extra: Record<string, string> = {}) => ({
  ...process.env, FEIRA_CONFIG: path.join(configDir, "config.json"), FEIRA_API_KEY: master, FEIRA_URL: feira.url, FEIRA_ADMIN_KEY: "", ...extra,
});
const feiraCli = async (args: string[], extra: Record<string, string> = {}) => run(process.execPath, [...await cliEntry(), ...args], { cwd: ROOT, env: env(extra) });

async function api<T = Record<string, unknown>>(key: string, method: string, url: string, body?: unknown): Promise<T> {
  const res = await fetch(`${feira.url}${url}`, {
    method,
    headers: { authorization: basicAuth(key), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

before(async () => {
  configDir = tempDir("feira-cli-trigger-");
  store = await makeStore();
  feira = await startFeira(store);
  const m = await createMerchant(feira, store);
  await api(store.adminKey, "PATCH", `/v1/admin/merchants/${m.id}`, { connectEnabled: true });
  master = m.sandboxKey;
  receiver = await startReceiver();
});

after(async () => {
  await receiver?.close();
  await feira?.stop();
  await store?.close();
});

async function waitForRequest(match: (body: { event?: string; data?: { id?: string } }) => boolean) {
  for (let n = 1; ; n++) {
    const seen = await receiver.waitFor(n, 30_000);
    const found = seen.find((req) => match(JSON.parse(req.body) as { event?: string }));
    if (found) return found;
  }
}

test("charge.failed: a Pix charge expired unpaid through the sandbox, delivered signed to the endpoint", async () => {
  const endpoint = await api<{ secret: string }>(master, "POST", "/v1/webhook-endpoints", { url: `${receiver.url}/master`, events: ["charge.failed"] });
  const { stdout } = await feiraCli(["trigger", "charge.failed"]);
  const [, chargeId] = stdout.match(/Created charge (ch_\w+) \(Pix, expired unpaid: failed, expired\)/) ?? assert.fail(stdout);

  const delivered = await waitForRequest((b) => b.event === "charge.failed" && b.data?.id === chargeId);
  const body = new Webhook(endpoint.secret).verify(delivered.body, delivered.headers as Record<string, string>) as { data: Record<string, unknown> };
  assert.equal(body.data.status, "failed");
  assert.equal(body.data.failure_reason, "expired");
  assert.equal((await api(master, "GET", `/v1/charges/${chargeId}`)).failureReason, "expired");
});

test("charge.dispute.created, .updated and .closed: a paid card charge disputed through the sandbox, delivered to the endpoint", async () => {
  await api(master, "POST", "/v1/webhook-endpoints", { url: `${receiver.url}/disputes`, events: ["charge.dispute.created", "charge.dispute.closed"] });
  const { stdout } = await feiraCli(["trigger", "charge.dispute.created"]);
  const [, chargeId, disputeId] = stdout.match(/Created charge (ch_\w+) \(card, paid\)[\s\S]*Created dispute (dp_\w+) \(chargeback, needs_response, evidence due by /) ?? assert.fail(stdout);
  const created = await waitForRequest((b) => b.event === "charge.dispute.created" && b.data?.id === disputeId);
  assert.equal((JSON.parse(created.body) as { data: { charge_id: string } }).data.charge_id, chargeId);
  assert.equal((await api<{ status: string }>(master, "GET", `/v1/disputes/${disputeId}`)).status, "needs_response");

  const updated = await feiraCli(["trigger", "charge.dispute.updated"]);
  const [, answeredId] = updated.stdout.match(/Created dispute (dp_\w+) \(chargeback, evidence submitted: under_review\)/) ?? assert.fail(updated.stdout);
  assert.equal((await api<{ evidence: { text: string } }>(master, "GET", `/v1/disputes/${answeredId}`)).evidence.text, "feira trigger: the buyer signed for the delivery.");

  const closed = await feiraCli(["trigger", "charge.dispute.closed"]);
  const [, lostCharge, lostId] = closed.stdout.match(/Created charge (ch_\w+) \(card, charged_back\)[\s\S]*Created dispute (dp_\w+) \(chargeback, accepted: lost\)/) ?? assert.fail(closed.stdout);
  await waitForRequest((b) => b.event === "charge.dispute.closed" && b.data?.id === lostId);
  assert.equal((await api<{ status: string }>(master, "GET", `/v1/charges/${lostCharge}`)).status, "charged_back");
});

test("payout triggers without the admin key say what they need and make nothing", async () => {
  const help = (await run(process.execPath, [BIN, "help"], { cwd: ROOT, env: env() })).stdout;
  assert.match(help, /charge\.failed.*payout\.approved, payout\.rejected/);
  assert.match(help, /payout\.approved and payout\.rejected also need the operator's admin key \(--admin-key or FEIRA_ADMIN_KEY\)/);
  await assert.rejects(feiraCli(["trigger", "payout.approved"]), (err: { stderr: string; code: number }) => {
    assert.match(err.stderr, /payout\.approved needs the operator's admin key \(adm_\.\.\.\).*--admin-key adm_\.\.\. or set FEIRA_ADMIN_KEY/);
    assert.equal(err.code, 1);
    return true;
  });
  assert.equal((await api<{ total: number }>(master, "GET", "/v1/submerchants")).total, 0);
  // A merchant without Connect is told how to get it.
  const plain = await createMerchant(feira, store);
  await assert.rejects(feiraCli(["trigger", "payout.rejected", "--api-key", plain.sandboxKey, "--admin-key", store.adminKey]), (err: { stderr: string }) => {
    assert.match(err.stderr, /Payout triggers need Connect.*connectEnabled/);
    return true;
  });
});

test("payout.approved then payout.rejected: a submerchant accredited and funded once, each payout decided by the admin", async () => {
  const { stdout } = await feiraCli(["trigger", "payout.approved", "--admin-key", store.adminKey]);
  const [, smId] = stdout.match(/Created submerchant (sm_\w+) \(sample KYC documents, accredited by the admin\)/) ?? assert.fail(stdout);
  assert.match(stdout, new RegExp(`Created charge ch_\\w+ \\(Pix R\\$ 100,00, paid, 90 % split to ${smId}, settled\\)`));
  const [, approvedId] = stdout.match(/Created payout request (po_\w+) \(5000 cents, net 4800\), approved by the admin/) ?? assert.fail(stdout);
  assert.match(stdout, /Trigger succeeded: payout\.approved/);
  assert.match(stdout, new RegExp(`feira listen --api-key .*GET /v1/submerchants/${smId}/api-keys`));
  assert.doesNotMatch(stdout, /sk_test_[A-Za-z0-9]{8}/, "no key is printed");

  // The event is the submerchant's: its key sees it, with the payout's figures.
  const keys = await api<{ keys: { environment: string; key: string }[] }>(master, "GET", `/v1/submerchants/${smId}/api-keys`);
  const smKey = keys.keys.find((k) => k.environment === "sandbox")!.key;
  const events = await api<{ data: { type?: string; event?: string; data: Record<string, unknown> }[] }>(smKey, "GET", "/v1/events?limit=100");
  const approved = events.data.find((e) => (e.type ?? e.event) === "payout.approved");
  assert.ok(approved, JSON.stringify(events));
  assert.equal(approved.data.id, approvedId);
  assert.equal(approved.data.status, "approved");

  // The second run reuses the submerchant (so a listener on its key sees every run), funds it
  // again (4,000 cents were left) and has the payout rejected; the admin key from the environment.
  const endpoint = await api<{ secret: string }>(smKey, "POST", "/v1/webhook-endpoints", { url: `${receiver.url}/submerchant`, events: ["payout.rejected"] });
  const second = await feiraCli(["trigger", "payout.rejected"], { FEIRA_ADMIN_KEY: store.adminKey });
  assert.match(second.stdout, new RegExp(`Using submerchant ${smId} \\(active, made by an earlier run\\)`));
  assert.doesNotMatch(second.stdout, /Created submerchant/);
  const [, rejectedId] = second.stdout.match(/Created payout request (po_\w+) \(5000 cents, net 4800\), rejected by the admin/) ?? assert.fail(second.stdout);
  const delivered = await waitForRequest((b) => b.event === "payout.rejected");
  const body = new Webhook(endpoint.secret).verify(delivered.body, delivered.headers as Record<string, string>) as { data: Record<string, unknown> };
  assert.equal(body.data.id, rejectedId);
  assert.equal(delivered.path, "/submerchant");

  // The rejected amount went back: 9,000 + 9,000 funded, 5,000 paid out.
  const balance = await api<{ available: { currency: string; amount: number }[] }>(smKey, "GET", "/v1/balance");
  assert.equal(balance.available.find((b) => b.currency === "BRL")?.amount, 13000);
  assert.equal((await api<{ total: number }>(master, "GET", "/v1/submerchants")).total, 1);
});
