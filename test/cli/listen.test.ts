import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { Webhook } from "standardwebhooks";
import { cliEntry } from "../helpers/feira-bundle.js";
import { createMerchant, makeStore, startFeira, type FeiraProcess, type Store } from "../helpers/feira-process.js";
import { ROOT, startProcess, tempDir, type ServerProcess } from "../helpers/process.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
// run-suite: waits: feira and the CLI as processes

// The CLI as a user runs it (bin/feira.mjs's program in a child process, its own config file)
// against a real feira process, forwarding to a local receiver. The program runs from its bundle
// (feira-bundle.ts: tsx costs about 2 s of CPU per run); trigger.test.ts runs bin/feira.mjs itself.
const run = promisify(execFile);

let store: Store;
let feira: FeiraProcess;
let receiver: Receiver;
let listener: ServerProcess | undefined;
let key: string;
const env = () => ({ ...process.env, FEIRA_CONFIG: path.join(configDir, "config.json"), FEIRA_API_KEY: "", FEIRA_URL: "" });
let configDir: string;

const feiraCli = async (args: string[]) => run(process.execPath, [...await cliEntry(), ...args], { cwd: ROOT, env: env() });

before(async () => {
  configDir = tempDir("feira-cli-");
  store = await makeStore();
  feira = await startFeira(store);
  key = (await createMerchant(feira, store)).sandboxKey;
  receiver = await startReceiver();
});

after(async () => {
  await listener?.stop();
  await receiver?.close();
  await feira?.stop();
  await store?.close();
});

test("login refuses a wrong key and stores a good one in a 0600 file", async () => {
  await assert.rejects(feiraCli(["login", "--api-key", "sk_test_wrong", "--url", feira.url]), (err: { stderr: string }) => {
    assert.match(err.stderr, /refused the key/);
    return true;
  });
  const { stdout } = await feiraCli(["login", "--api-key", key, "--url", feira.url]);
  assert.match(stdout, /Logged in to/);
  assert.doesNotMatch(stdout, new RegExp(key), "the full key is not printed");
  const mode = statSync(path.join(configDir, "config.json")).mode & 0o777;
  assert.equal(mode, 0o600);
});

test("listen forwards a triggered charge.paid, signed with the secret it printed", async () => {
  listener = startProcess(process.execPath, [...await cliEntry(), "listen", "--forward-to", `${receiver.url}/webhooks`], env());
  const [, secret] = await listener.waitFor(/signing secret is (whsec_[A-Za-z0-9+/=]+)/, 30_000);

  const { stdout } = await feiraCli(["trigger", "charge.paid"]);
  assert.match(stdout, /Created charge ch_\w+ .*paid/);
  const chargeId = stdout.match(/charge (ch_\w+)/)![1];

  const paid = await waitForRequest(receiver, (body) => body.event === "charge.paid");
  const body = new Webhook(secret!).verify(paid.body, paid.headers as Record<string, string>) as { event: string; data: { id: string } };
  assert.equal(body.data.id, chargeId);
  assert.equal(paid.path, "/webhooks");
  await listener.waitFor(/--> charge\.paid \[evt_\w+\]\s+<-- \[200\] POST/);

  // Other triggers: a Pix charge left pending, and a card charge refunded.
  await feiraCli(["trigger", "charge.pending"]);
  await waitForRequest(receiver, (b) => b.event === "charge.pending");
  await feiraCli(["trigger", "charge.refunded"]);
  const refunded = await waitForRequest(receiver, (b) => b.event === "charge.refunded");
  new Webhook(secret!).verify(refunded.body, refunded.headers as Record<string, string>);

  // The secret is stable per config: a second listener prints the same one.
  const second = startProcess(process.execPath, [...await cliEntry(), "listen", "--forward-to", `${receiver.url}/webhooks`], env());
  try {
    const [, again] = await second.waitFor(/signing secret is (whsec_[A-Za-z0-9+/=]+)/, 30_000);
    assert.equal(again, secret);
  } finally {
    await second.stop();
  }
});

test("listen forwards what an endpoint would receive: trigger charge.failed gives charge.failed, not the legacy charge.updated, unless --include-postback-events", async () => {
  const endpointView = startProcess(process.execPath, [...await cliEntry(), "listen", "--forward-to", `${receiver.url}/endpoint-view`], env());
  const withPostbacks = startProcess(process.execPath, [...await cliEntry(), "listen", "--forward-to", `${receiver.url}/with-postbacks`, "--include-postback-events"], env());
  try {
    await endpointView.waitFor(/signing secret is whsec_/, 30_000);
    await withPostbacks.waitFor(/signing secret is whsec_/, 30_000);
    // Printed right after the ready line, possibly in a later chunk of output.
    await endpointView.waitFor(/Forwarding what a webhook endpoint receives: not charge\.updated or submerchant\.status_changed, which go only to postback URLs \(--include-postback-events forwards them too\)/, 30_000);
    assert.doesNotMatch(withPostbacks.stdout(), /Forwarding what a webhook endpoint receives/);

    const { stdout } = await feiraCli(["trigger", "charge.failed"]);
    const [, chargeId] = stdout.match(/Created charge (ch_\w+) /) ?? assert.fail(stdout);
    const about = (path: string, event: string) => (req: { path: string; body: string }) =>
      req.path === path && (JSON.parse(req.body) as { event?: string; data?: { id?: string } }).event === event && req.body.includes(chargeId!);
    // The flag forwards the legacy event, with its postback envelope {event, data}.
    const legacy = await waitUntil(receiver, about("/with-postbacks", "charge.updated"));
    assert.deepEqual(Object.keys(JSON.parse(legacy.body)).sort(), ["data", "event"]);
    await waitUntil(receiver, about("/with-postbacks", "charge.failed"));
    await waitUntil(receiver, about("/endpoint-view", "charge.failed"));

    // Events are forwarded in order: once a later event has reached /endpoint-view, the legacy
    // event (made with the failed charge, before it) would have too.
    const later = await feiraCli(["trigger", "charge.paid"]);
    const [, paidId] = later.stdout.match(/Created charge (ch_\w+) /) ?? assert.fail(later.stdout);
    await waitUntil(receiver, (req) => req.path === "/endpoint-view" && req.body.includes(`"event":"charge.paid"`) && req.body.includes(paidId!));
    const seen = receiver.requests.filter((req) => req.path === "/endpoint-view").map((req) => (JSON.parse(req.body) as { event: string }).event);
    assert.ok(!seen.includes("charge.updated"), `no legacy event forwarded by default: ${seen.join(", ")}`);
    assert.doesNotMatch(endpointView.stdout(), /charge\.updated \[/);
  } finally {
    await endpointView.stop();
    await withPostbacks.stop();
  }

  // Asking for a postback-only event by name, without the flag, says what it is.
  await assert.rejects(feiraCli(["listen", "--forward-to", `${receiver.url}/x`, "--events", "charge.failed,charge.updated"]), (err: { stderr: string; code: number }) => {
    assert.match(err.stderr, /charge\.updated go only to postback URLs, never to webhook endpoints: add --include-postback-events to forward them/);
    assert.equal(err.code, 2);
    return true;
  });
});

test("trigger refuses production keys and unknown events", async () => {
  await assert.rejects(feiraCli(["trigger", "charge.paid", "--api-key", "sk_live_abc"]), (err: { stderr: string }) => /sandbox keys/.test(err.stderr));
  await assert.rejects(feiraCli(["trigger", "charge.exploded"]), (err: { stderr: string }) => /supported: charge\./.test(err.stderr));
});

async function waitForRequest(r: Receiver, match: (body: { event?: string }) => boolean) {
  for (let n = 1; ; n++) {
    const seen = await r.waitFor(n, 30_000);
    const found = seen.find((req) => match(JSON.parse(req.body) as { event?: string }));
    if (found) return found;
  }
}

async function waitUntil(r: Receiver, match: (req: { path: string; body: string }) => boolean) {
  for (let n = 1; ; n++) {
    const found = (await r.waitFor(n, 30_000)).find(match);
    if (found) return found;
  }
}
