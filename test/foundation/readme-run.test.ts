import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { childDatabaseEnv, childEnv, freePort, npmStart, ROOT, tempDir } from "../helpers/process.js";
// run-suite: waits: feira as processes, as the README runs it

// Every README walk-through (the tour, Connect, subscriptions, Pix Automático, disputes, payment links, a
// boleto with a due date), pasted into a
// shell as a newcomer pastes them on a fresh start with the demo history on: `npm start` on an
// empty DATA_DIR, the printed keys in place of the placeholder lines, every curl a 2xx
// (--fail-with-body), every captured id defined. Blocks that begin with "# keeps running" run
// in the background as in another terminal (receivers, `feira listen`, the fake Melhor Envio),
// except the one that restarts feira: the server here runs with its setting from the start.

const databaseEnv = childDatabaseEnv();
const run = promisify(execFile);

interface Keys { key: string; admin: string; master: string; password: string }

/** The README's walk-through sections, in order: the tour, then every "Walk-through: ...". */
function walkthroughBlocks(): { section: string; blocks: string[] }[] {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  return [...readme.matchAll(/\n## (Five-minute tour|Walk-through: [^\n]+)\n([\s\S]*?)(?=\n## )/g)].map((m) => ({
    section: m[1]!,
    blocks: [...m[2]!.matchAll(/```sh\n([\s\S]*?)```/g)].map((b) => b[1]!),
  }));
}

/** A bash script of the walk-throughs for this server: its ports, its keys, its receivers. */
function script(keys: Keys, ports: { feira: number; tour: number; connect: number; fake: number }, dir: string): string {
  const sections = walkthroughBlocks();
  assert.deepEqual(sections.map((s) => s.section.replace(/:.*/, "")), ["Five-minute tour", "Walk-through", "Walk-through", "Walk-through", "Walk-through", "Walk-through", "Walk-through", "Walk-through"], "the README's walk-throughs");
  const lines: string[] = [];
  let bg = 0;
  for (const { blocks } of sections) {
    for (let block of blocks) {
      block = block
        .replace(/^KEY=sk_test_\.\.\..*$/m, `KEY=${keys.key}`)
        .replace(/^ADMIN=adm_\.\.\..*$/m, `ADMIN=${keys.admin}`)
        .replace(/^MASTER=mer_\.\.\..*$/m, `MASTER=${keys.master}`)
        .replace(/^PASSWORD=\.\.\..*$/m, `PASSWORD='${keys.password}'`)
        .replaceAll("localhost:3000", `localhost:${ports.feira}`)
        .replaceAll("127.0.0.1:4010", `127.0.0.1:${ports.fake}`)
        .replace(/\b4242\b/g, String(ports.tour))
        .replace(/(localhost:|listen\()4000\b/g, `$1${ports.connect}`);
      if (/^# keeps running/.test(block)) {
        if (/npm start/.test(block)) {
          // feira itself, restarted with a setting: this test's server has it from the start.
          assert.match(block, new RegExp(`SHIPPING_PROVIDER_URL=http://127\\.0\\.0\\.1:${ports.fake} npm start`));
          continue;
        }
        const log = `${dir}/bg-${bg}.log`;
        writeFileSync(`${dir}/bg-${bg}.sh`, block);
        // Each in a session of its own, so that all of it (npm, npx and the node under them)
        // stops at the end, as ^C stops a terminal's foreground processes; the next command
        // waits until it is ready, as a reader waits for the other terminal.
        const port = /fake:melhor-envio/.test(block) ? ports.fake : Number(/listen\((\d+)\)/.exec(block)?.[1]);
        const ready = /feira listen/.test(block)
          ? `until grep -q "Ready!" "${log}"; do sleep 0.1; done`
          : `until (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null; do sleep 0.1; done`;
        lines.push(`setsid bash "${dir}/bg-${bg}.sh" > "${log}" 2>&1 &`, 'BG="$BG $!"', ready);
        bg++;
        continue;
      }
      // The browser step of the payment-link walk-through: the buyer pays by Pix on /pay/$LINK.
      if (/\/payment-links\/\$LINK\/payments/.test(block)) lines.push(checkout(ports.feira));
      lines.push(block);
      // A captured id that came out empty or as "undefined" fails here, not three commands later.
      for (const [, name] of block.matchAll(/^([A-Z_]+)=\$\(/gm)) {
        lines.push(`case "$${name}" in ""|undefined|null) echo "${name} is '$${name}'" >&2; exit 1;; esac`);
      }
    }
  }
  return lines.join("\n");
}

const checkout = (port: number) => `curl -s http://localhost:${port}/v1/payment-links/$LINK/charge -H 'content-type: application/json' \\
  -d '{"customer":{"name":"Maria Silva","email":"maria@example.com","document":{"type":"cpf","id":"529.982.247-25"}},"paymentMethod":{"type":"pix"},
       "shippingAddress":{"postalCode":"20040-020","street":"Av. Rio Branco","number":"1","city":"Rio de Janeiro","state":"RJ","country":"BR"},"freightServiceId":1}'`;

test("every README walk-through runs as pasted on a fresh start, whose keys are printed before the API answers", { timeout: 600_000 }, async (t) => {
  if (spawnSync("sh", ["-c", "command -v curl && command -v bash && command -v setsid"]).status !== 0) {
    t.diagnostic("curl, bash or setsid not installed: README walk-throughs not run");
    return;
  }
  const ports = { feira: await freePort(), tour: await freePort(), connect: await freePort(), fake: await freePort() };
  const base = `http://127.0.0.1:${ports.feira}`;
  const feira = npmStart(childEnv({
    DATA_DIR: tempDir(), PORT: String(ports.feira), LOG_LEVEL: "warn", SHIPPING_PROVIDER_URL: `http://127.0.0.1:${ports.fake}`, ...databaseEnv(),
  }));
  t.after(() => feira.stop());

  // /health asked from the start: its first 200 comes after the keys were printed.
  let printedAtFirstAnswer: string | undefined;
  while (printedAtFirstAnswer === undefined) {
    if (feira.child.exitCode !== null) assert.fail(`feira exited:\n${feira.output()}`);
    const health = await fetch(`${base}/health`).then((r) => r.status, () => 0);
    if (health === 200) printedAtFirstAnswer = feira.stderr();
    else await new Promise((r) => setTimeout(r, 20));
  }
  const key = /sandbox key:\s+(sk_test_\w+)/.exec(printedAtFirstAnswer)?.[1];
  const admin = /Admin key \(shown once, store it\): (adm_\w+)/.exec(printedAtFirstAnswer)?.[1];
  const master = /Demo merchant (mer_\w+)/.exec(printedAtFirstAnswer)?.[1];
  const password = /login:\s+\S+ \/ (\S+)/.exec(printedAtFirstAnswer)?.[1];
  assert.ok(key && admin && master && password, `the first-start lines were printed before /health answered 200:\n${feira.output()}`);

  const dir = tempDir("feira-walkthroughs-");
  const code = script({ key, admin, master, password }, ports, dir);
  assert.doesNotMatch(code, /localhost:3000|sk_test_\.\.\.|adm_\.\.\.|mer_\.\.\.|PASSWORD=\.\.\./, "every placeholder was replaced");
  const tourLog = `${dir}/bg-1.log`; // the receiver is bg-0, `feira listen` bg-1, the Connect receiver bg-2
  const connectLog = `${dir}/bg-2.log`;
  const result = await run("bash", ["-c", [
    "set -euo pipefail",
    'BG=""',
    "cleanup() { for p in $BG; do kill -- -$p 2>/dev/null || true; done; }",
    "trap cleanup EXIT",
    "trap 'exit 143' TERM INT",
    'curl() { command curl --fail-with-body --show-error "$@"; echo; }',
    code,
    // What the README says the receivers print has reached them (within a bound, to show why not).
    `arrived() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; echo "never arrived: $*" >&2; cat "${tourLog}" "${connectLog}" >&2; exit 1; }`,
    `tour_done() { grep -q -- "--> charge.refunded" "${tourLog}" && [ "$(grep -c -- "--> charge.paid" "${tourLog}")" -ge 2 ]; }`,
    "arrived tour_done",
    // The boleto's receipt, sent by the worker after the payment: in the sandbox's outbox.
    `receipt_sent() { command curl -s -u "$KEY:" "http://localhost:${ports.feira}/v1/emails?chargeId=$BOLETO" | grep -q '"kind":"receipt"'; }`,
    "arrived receipt_sent",
    `command curl -s -u "$KEY:" "http://localhost:${ports.feira}/v1/emails?chargeId=$BOLETO"; echo`,
    `arrived grep -q '^/notifications {.*"status":"active","merchantId":"sm_' "${connectLog}"`,
    `arrived grep -q '^/webhooks .*"event":"payout.approved"' "${connectLog}"`,
    `cat "${tourLog}" "${connectLog}"`,
  ].join("\n")], {
    cwd: ROOT, timeout: 300_000, maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, FEIRA_CONFIG: `${dir}/config.json`, FAKE_MELHOR_ENVIO_PORT: String(ports.fake), FEIRA_URL: `http://localhost:${ports.feira}` },
  }).catch((err: { stdout?: string; stderr?: string }) => assert.fail(`a README walk-through failed:\n${code}\n--- output\n${err.stdout}\n${err.stderr}`));
  const out = result.stdout;
  assert.doesNotMatch(out, /"statusCode":\s*[45]\d\d/, out);
  assert.match(out, /Your webhook signing secret is whsec_/);
  assert.match(out, /"id":"cus_/, "the tour's customer");
  assert.match(out, /"action":"renewed"[^}]*"chargeStatus":"paid"/, "the subscription's renewal");
  assert.match(out, /"action":"debited"[^}]*"chargeStatus":"refused"/, "the Pix Automático debit that failed");
  assert.match(out, /"cancellationType":"mandate_cancelled"/, "the payer's cancel in the bank app");
  assert.match(out, /"id":"dp_\w+","chargeId":"ch_\w+","kind":"chargeback","status":"needs_response"/, "the dispute opened in the sandbox");
  assert.match(out, /"kind":"chargeback","status":"under_review"[^\n]*"files":\[\{[^\n]*"contentType":"application\/pdf"/, "the evidence, with its file");
  assert.match(out, /"kind":"chargeback","status":"won"[^\n]*"closedAt":"20/, "the dispute decided");
  assert.ok(out.includes(`http://localhost:${ports.feira}/panel?shipping=connected`), "the OAuth round trip");
  assert.match(out, /"endToEndId":"E99999999/, "the approved payout");
  assert.match(out, /"status":"pending"[^\n]*"amountDue":102\.23/, "the boleto seven days late: the amount, the fine and the interest");
  assert.match(out, /"paidAmount":102\.23,"paidBreakdown":\{"principal":100,"discount":0,"fine":2,"interest":0\.23\}/, "paid by the boleto's Pix, with its breakdown");
  assert.match(out, /"kind":"receipt","to":"maria@example\.com"/, "the receipt in the sandbox's outbox");
  assert.match(out, /"atProvider":\[\{"processor":"sandbox","currency":"BRL","amount":2970\}\]/, "the seller's share at the processor, in provider settlement");
});
