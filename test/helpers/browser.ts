import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { ROOT } from "./process.js";

// What the browser tests share: Debian's Chromium driven by playwright-core (never a downloaded
// browser), and axe-core's accessibility check of the page that is open.
export const CHROMIUM = "/usr/bin/chromium";
/** The `skip` option of a browser test: false, or why it cannot run here. */
export const skipWithoutChromium = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install -y chromium)`;
const AXE = path.join(ROOT, "node_modules/axe-core/axe.min.js");

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** axe-core on the page (its context needs bypassCSP to let axe in): no serious or critical violation. */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => {
    const r = await (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe.run();
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
  });
  assert.deepEqual(result, [], `axe on ${label}`);
}
