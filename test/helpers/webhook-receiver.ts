import http from "node:http";
import type { AddressInfo } from "node:net";

// A real HTTP server on 127.0.0.1 standing in for a merchant's webhook endpoint or postback
// URL. Tests fake only what leaves the process (STYLE 12), and doing it with a socket means
// the signing, SSRF pinning, timeouts and retries are exercised for real.

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  receivedAt: number;
}

export interface ReceiverResponse { status: number; delayMs?: number; body?: string }

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

interface Waiter { count: number; resolve: (r: ReceivedRequest[]) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }

export async function startReceiver(opts?: {
  respond?: (req: ReceivedRequest, index: number) => ReceiverResponse;
}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<Waiter>();
  const delays = new Set<NodeJS.Timeout>();

  const settleWaiters = () => {
    for (const w of waiters) {
      if (requests.length >= w.count) {
        clearTimeout(w.timer);
        waiters.delete(w);
        w.resolve(requests.slice());
      }
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const received: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: { ...req.headers },
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      };
      const index = requests.length;
      // Recorded on arrival, before any response delay, so a test can see a request whose
      // response is still pending (e.g. one the sender is about to time out on).
      requests.push(received);
      settleWaiters();

      let answer: ReceiverResponse;
      try {
        answer = opts?.respond?.(received, index) ?? { status: 200 };
      } catch (err) {
        answer = { status: 500, body: `receiver respond() threw: ${String(err)}` };
      }
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { "content-type": "text/plain; charset=utf-8" });
        res.end(answer.body ?? "ok");
      };
      if (answer.delayMs !== undefined && answer.delayMs > 0) {
        const t = setTimeout(() => {
          delays.delete(t);
          send();
        }, answer.delayMs);
        delays.add(t);
      } else {
        send();
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    waitFor(count, timeoutMs = 5000) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          count,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            reject(new Error(`webhook receiver: expected ${count} request(s) within ${timeoutMs}ms, got ${requests.length}`));
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    async close() {
      for (const t of delays) clearTimeout(t);
      delays.clear();
      for (const w of waiters) {
        clearTimeout(w.timer);
        w.reject(new Error(`webhook receiver closed after ${requests.length} request(s), waiting for ${w.count}`));
      }
      waiters.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // server.close() alone waits for keep-alive and in-flight sockets; drop them so a test
      // ends now, not when an idle connection times out.
      server.closeAllConnections();
      await closed;
    },
  };
}
