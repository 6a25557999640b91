// Webhook delivery for the payment provider fakes: each notification is POSTed to the configured
// URL after the API answered (never inline), retried on a non-2xx answer or a network error, and
// logged. Faults reproduce what real providers do to receivers: drop a notification, send it
// twice, or send it after the one that followed it.

export type WebhookFault = "none" | "drop" | "duplicate" | "out-of-order";
export const WEBHOOK_FAULTS: readonly WebhookFault[] = ["none", "drop", "duplicate", "out-of-order"];

export interface OutgoingWebhook {
  /** What it is about, for the log and for tests (e.g. "order.paid", "payment.updated"). */
  label: string;
  url: string;
  body: string;
  /** Called for each attempt, so that a signature can carry that attempt's timestamp and request id. */
  headers(): Record<string, string>;
}

export interface SentWebhook {
  label: string;
  url: string;
  body: string;
  /** The headers of the last attempt. */
  headers: Record<string, string>;
  attempts: number;
  /** Status of the last attempt (0 = network error). */
  status?: number;
  /** Why the last attempt failed: the network error, or the start of the receiver's refusal. */
  error?: string;
  dropped?: boolean;
  /** Set on the second copy of a duplicated notification. */
  duplicate?: boolean;
  /** Set on a notification sent after the one that followed it. */
  reordered?: boolean;
  at: number;
}

export interface WebhookSender {
  sent: SentWebhook[];
  send(hook: OutgoingWebhook): void;
  /** Unknown mode or bad count -> an error message; else undefined. */
  setFault(mode: WebhookFault, times?: number): string | undefined;
  /** Releases a held (out-of-order) notification and waits until every delivery and retry ended. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function startWebhookSender(opts: { retries: number; retryDelayMs: number }): WebhookSender {
  const sent: SentWebhook[] = [];
  const pending = new Set<Promise<void>>();
  const timers = new Map<NodeJS.Timeout, () => void>();
  let fault: { mode: WebhookFault; times?: number } = { mode: "none" };
  let held: OutgoingWebhook | undefined;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;
  const stop = new AbortController();

  const wait = (ms: number) => new Promise<void>((r) => { const t = setTimeout(() => { timers.delete(t); r(); }, ms); timers.set(t, r); });

  async function attempt(hook: OutgoingWebhook, entry: SentWebhook): Promise<boolean> {
    entry.attempts++;
    entry.headers = { "content-type": "application/json", ...hook.headers() };
    try {
      const res = await fetch(hook.url, { method: "POST", headers: entry.headers, body: hook.body, signal: AbortSignal.any([AbortSignal.timeout(5000), stop.signal]) });
      const answer = await res.text();
      const ok = res.status >= 200 && res.status < 300;
      entry.status = res.status;
      // A refusal keeps the start of what the receiver said, for a failing test to show.
      entry.error = ok ? undefined : answer.slice(0, 300);
      return ok;
    } catch (err) {
      entry.status = 0;
      entry.error = (err as Error).message;
      return false;
    }
  }

  // First attempts go out one after another, in order, so that "out of order" means something;
  // retries run on their own and do not hold up the next notification.
  function deliver(hook: OutgoingWebhook, marks: Partial<SentWebhook> = {}): void {
    const entry: SentWebhook = { label: hook.label, url: hook.url, body: hook.body, headers: {}, attempts: 0, at: Date.now(), ...marks };
    sent.push(entry);
    let firstDone!: () => void;
    const first = new Promise<void>((r) => { firstDone = r; });
    const previous = chain;
    chain = first;
    const run = (async () => {
      await previous;
      let ok = closed ? false : await attempt(hook, entry);
      firstDone();
      for (let i = 1; !ok && !closed && i < opts.retries; i++) {
        await wait(opts.retryDelayMs * i);
        if (!closed) ok = await attempt(hook, entry);
      }
    })();
    pending.add(run);
    void run.finally(() => pending.delete(run));
  }

  function takeFault(): WebhookFault {
    const mode = fault.mode;
    if (mode !== "none" && fault.times !== undefined && --fault.times <= 0) fault = { mode: "none" };
    return mode;
  }

  return {
    sent,
    send(hook) {
      const mode = takeFault();
      if (mode === "drop") { sent.push({ label: hook.label, url: hook.url, body: hook.body, headers: {}, attempts: 0, dropped: true, at: Date.now() }); return; }
      if (mode === "out-of-order" && !held) { held = hook; return; }
      deliver(hook);
      if (mode === "duplicate") deliver(hook, { duplicate: true });
      if (held && held !== hook) { const h = held; held = undefined; deliver(h, { reordered: true }); }
    },
    setFault(mode, times) {
      if (!WEBHOOK_FAULTS.includes(mode)) return `mode must be one of ${WEBHOOK_FAULTS.join(", ")}`;
      if (times !== undefined && !(Number.isSafeInteger(times) && times > 0)) return "times must be a positive integer";
      fault = { mode, times };
      return undefined;
    },
    async flush() {
      if (held) { const h = held; held = undefined; deliver(h, { reordered: true }); }
      while (pending.size > 0) await Promise.all([...pending]);
    },
    async close() {
      closed = true;
      held = undefined;
      stop.abort();
      // A retry waiting for its turn ends now instead of after its delay.
      for (const [t, resolve] of timers) { clearTimeout(t); resolve(); }
      timers.clear();
      await Promise.allSettled([...pending]);
    },
  };
}
