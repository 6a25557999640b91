/**
 * Waits until `check` holds, asking again every few milliseconds; past `timeoutMs`, fails
 * naming `what`. Tests wait for a condition this way, never for a fixed time.
 */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
