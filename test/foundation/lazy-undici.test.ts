import { spawnSync } from "node:child_process";
import { test } from "node:test";
import assert from "node:assert/strict";
import { ROOT } from "../helpers/process.js";

// undici (HTTP client and parser) is loaded on the first webhook delivery or live processor call
// (src/lib/undici-lazy.ts), not by building the app and its processors: an API process of a
// sandbox-only deployment never carries it. A resolve hook reports every import of it.

const HOOK = `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent("export async function resolve(s, c, n) { if (s === 'undici') console.error('undici imported by ' + c.parentURL); return n(s, c); }"));`;

const PROBE = `
import { NO_LIVE_PROCESSORS } from "./src/config.ts";
import { createProcessorRegistry } from "./src/processors/registry.ts";
await import("./src/app.ts");
await import("./src/modules/webhooks/delivery-http.ts");
const live = {
  ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme", "mercadopago"] },
  processors: {
    pagarme: { secretKey: "sk" },
    mercadopago: { accessToken: "at", webhookSecret: "ws", publicKey: "pk" },
  },
};
const registry = createProcessorRegistry({ live });
await registry.close();
console.log("built");
`;

test("building the app, the webhook sender and the live adapters does not import undici", () => {
  const run = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(HOOK)}`, "--import", "tsx", "--input-type=module", "-e", PROBE], {
    cwd: ROOT, encoding: "utf8", timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /built/);
  assert.doesNotMatch(run.stderr, /undici imported/, run.stderr);
});
