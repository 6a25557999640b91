import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { ROOT } from "./process.js";

// The browser tests can take the README's and docs' pictures of the panel and the checkout, but
// only when asked (`npm run screenshots`). A full-page capture is a picture, not an assertion:
// under a loaded CI machine Chromium's capture can stall past Playwright's 30 s timeout, and a
// test run should not rewrite files of the repository.
const SCREENSHOTS = process.env.FEIRA_SCREENSHOTS === "1";

export async function screenshot(page: Page, file: string): Promise<void> {
  if (!SCREENSHOTS) return;
  const target = path.join(ROOT, file);
  mkdirSync(path.dirname(target), { recursive: true });
  await page.screenshot({ path: target, fullPage: true });
}
