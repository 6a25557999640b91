import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { basicAuth, childDatabaseEnv, childEnv, freePort, nodeMain, npmStart, ROOT, tempDir, waitForHttp } from "../helpers/process.js";

// The README walkthrough, run for real: `npm start` on an empty DATA_DIR prints the admin key
// and the demo merchant once, answers /health, and the printed key creates a customer.
// The child follows the suite's engine: PGlite in DATA_DIR, or, when DATABASE_URL is set, a
// fresh PostgreSQL database of its own.

const databaseEnv = childDatabaseEnv();

test("npm start: first start prints the keys once, /health answers, the printed key works, a restart keeps the data", async (t) => {
  const dataDir = tempDir();
  const port = await freePort();
  const env = childEnv({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn", ...databaseEnv() });
  const base = `http://127.0.0.1:${port}`;

  const first = npmStart(env);
  t.after(() => first.stop());
  const [, sandboxKey] = await first.waitFor(/sandbox key:\s+(sk_test_[A-Za-z0-9]+)/);
  // Piped, as here, the first-start lines go to stderr (stdout is the JSON log).
  const out = first.stderr();
  const adminKey = /Admin key \(shown once, store it\): (adm_[A-Za-z0-9]+)/.exec(out)?.[1];
  const login = /login:\s+(\S+) \/ (\S+)/.exec(out);
  const tryIt = /try it:\s+curl -u (\S+): (\S+)/.exec(out);
  assert.ok(adminKey, `admin key printed:\n${out}`);
  assert.ok(login, `demo login printed:\n${out}`);
  assert.ok(tryIt, `try-it command printed:\n${out}`);
  assert.equal(tryIt[1], sandboxKey);
  assert.equal(tryIt[2], `http://localhost:${port}/v1/customers`);

  await waitForHttp(`${base}/health`);
  const health = await fetch(`${base}/health`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: "ok" });

  // The printed "try it" command, as curl would send it (localhost, Basic with an empty password).
  const listed = await fetch(tryIt[2]!, { headers: { authorization: basicAuth(tryIt[1]!) } });
  assert.equal(listed.status, 200, await listed.clone().text());
  // The first start gave the demo merchant its sandbox history (DEMO_HISTORY, on by default).
  const demoCustomers = (await listed.json()) as { data: { name: string }[] };
  assert.ok(demoCustomers.data.some((c) => c.name === "Mariana Costa"), JSON.stringify(demoCustomers));

  const created = await fetch(`${base}/v1/customers`, {
    method: "POST",
    headers: { authorization: basicAuth(sandboxKey!), "content-type": "application/json" },
    body: JSON.stringify({ name: "Maria Silva", email: "maria@example.com", documentId: "529.982.247-25", documentType: "cpf" }),
  });
  const createdBody = await created.text();
  assert.equal(created.status, 201, createdBody);
  const customerId = JSON.parse(createdBody).id as string;
  assert.match(customerId, /^cus_/);

  const token = await fetch(`${base}/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: login[1], password: login[2] }),
  });
  assert.equal(token.status, 200, await token.clone().text());

  await runReadmeWalkthrough(t, port, sandboxKey!);

  const merchant = await fetch(`${base}/v1/admin/merchants`, {
    method: "POST",
    headers: { authorization: basicAuth(adminKey), "content-type": "application/json" },
    body: JSON.stringify({ name: "Loja Dois", email: "dois@example.com", password: "a long enough password" }),
  });
  assert.equal(merchant.status, 201, await merchant.clone().text());

  await first.stop();
  if (!env.DATABASE_URL) assert.equal(existsSync(path.join(dataDir, "feira.lock")), false, "the lock file is removed on shutdown");

  // Second start on the same data: nothing is printed again, the data and the keys are still there.
  const second = nodeMain(env);
  t.after(() => second.stop());
  await waitForHttp(`${base}/health`);
  assert.doesNotMatch(second.output(), /Admin key|sandbox key/, "first-start lines are printed only once");
  const got = await fetch(`${base}/v1/customers/${customerId}`, { headers: { authorization: basicAuth(sandboxKey!) } });
  assert.equal(got.status, 200, await got.clone().text());
  assert.equal((await got.json()).documentId, "52998224725");
  assert.equal(await second.stop(), 0);
});

/**
 * The README's five-minute tour, pasted into a shell as the README says (with this server's
 * port, a free port for the receiver and a config file of its own): every curl must get a 2xx
 * (--fail-with-body), or the script stops and the test shows why. Blocks that start with
 * "# keeps running" (the receiver, `feira listen`) run in the background, as in another
 * terminal, and the events of the tour must reach the receiver through `feira listen`.
 */
async function runReadmeWalkthrough(t: TestContext, port: number, key: string): Promise<void> {
  if (spawnSync("sh", ["-c", "command -v curl && command -v bash"]).status !== 0) {
    t.diagnostic("curl or bash not installed: README walk-through not run");
    return;
  }
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const section = /\n## Five-minute tour\n([\s\S]*?)\n## /.exec(readme)?.[1];
  assert.ok(section, "README has a Five-minute tour section");
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((b) => b[1]!);
  assert.ok(blocks.length >= 4, "the tour has shell blocks");
  const dir = tempDir("feira-tour-");
  const receiverPort = await freePort();
  // Each in a session of its own, so that the whole of it (npx and the node under it) can be
  // stopped at the end, as ^C stops a terminal's foreground processes.
  const background = (block: string, i: number) => {
    writeFileSync(`${dir}/bg-${i}.sh`, block);
    const log = `${dir}/bg-${i}.log`;
    const ready = /feira listen/.test(block) ? `\nuntil grep -q "Ready!" "${log}"; do sleep 0.1; done` : "";
    return `setsid bash "${dir}/bg-${i}.sh" > "${log}" 2>&1 &\nBG="$BG $!"${ready}`;
  };
  const script = blocks.map((b, i) => (/^# keeps running/.test(b) ? background(b, i) : b)).join("\n")
    .replace(/^KEY=sk_test_\.\.\..*$/m, `KEY=${key}`)
    .replaceAll("http://localhost:3000", `http://localhost:${port}`)
    .replaceAll("4242", String(receiverPort));
  assert.doesNotMatch(script, /localhost:3000|sk_test_\.\.\./, "every placeholder was replaced");
  const listenLog = `${dir}/bg-${blocks.findIndex((b) => /feira listen/.test(b))}.log`;
  const run = spawnSync("bash", ["-c", [
    "set -euo pipefail",
    'BG=""',
    "cleanup() { for p in $BG; do kill -- -$p 2>/dev/null || true; done; }",
    "trap cleanup EXIT",
    "trap 'exit 143' TERM INT",
    'curl() { command curl --fail-with-body --show-error "$@"; echo; }',
    script,
    // The tour's last event has reached the receiver through feira listen.
    `until grep -q -- "--> charge.paid" "${listenLog}" && grep -q -- "--> charge.refunded" "${listenLog}" && [ "$(grep -c -- "--> charge.paid" "${listenLog}")" -ge 2 ]; do sleep 0.1; done`,
    `cat "${listenLog}"`,
  ].join("\n")], {
    cwd: ROOT, encoding: "utf8", timeout: 60_000, env: { ...process.env, FEIRA_CONFIG: `${dir}/config.json` },
  });
  assert.equal(run.status, 0, `README tour failed:\n${script}\n--- output\n${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /"id":"cus_/);
  assert.doesNotMatch(run.stdout, /"statusCode":\s*[45]\d\d/);
  assert.match(run.stdout, /Your webhook signing secret is whsec_/);
  assert.match(run.stdout, /--> charge\.refunded \[evt_\w+\]\s+<-- \[200\] POST/);
}
