import type { FastifyReply, FastifyRequest } from "fastify";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Db } from "../db/client.js";
import { callerOf, readRouterOf } from "../db/replica.js";

// With DATABASE_REPLICA_URL (src/db/replica.ts): every request that may write marks its caller
// (the merchant and environment it acts for, which covers each of its API keys and its panel
// session) as writing from the moment its answer is ready (onSend: whatever it wrote is committed,
// and the caller cannot have read the answer yet) until the primary's WAL position is kept for it,
// after the answer is sent (onResponse), so the write's answer is not delayed by that query. The
// caller's lists read the primary meanwhile, and the standby afterwards only once it has replayed
// that far. onSend, not onRequest: a panel request has its ctx only from its plugin's preHandler.

const READS = new Set(["GET", "HEAD", "OPTIONS"]);
const marked = new WeakSet<FastifyRequest>();

export function readYourWritesHooks(db: Db) {
  const router = readRouterOf(db);
  return {
    /** onSend: the handler is done (req.ctx is set, its writes committed), the answer not yet sent. */
    began: async (req: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
      if (!router || READS.has(req.method) || marked.has(req)) return payload;
      const caller = callerOf(req.ctx);
      if (!caller) return payload;
      router.writeBegan(caller);
      marked.add(req);
      return payload;
    },
    /** onResponse: the request committed whatever it did. */
    ended: async (req: FastifyRequest, _reply: FastifyReply) => {
      if (!router || !marked.has(req)) return;
      marked.delete(req);
      const caller = callerOf(req.ctx);
      if (caller) await router.writeEnded(caller);
    },
  };
}

/** What /health says of the standby: how far its replay is behind the primary, in bytes and seconds. */
export async function replicaHealth(db: Db): Promise<{ replica: { lagBytes: number | null; lagSeconds: number | null } } | Record<string, never>> {
  const router = readRouterOf(db);
  if (!router) return {};
  const lag = await router.lag();
  // A standby that does not answer (or is no standby) shows no lag: the lists read the primary.
  return { replica: { lagBytes: lag?.bytes ?? null, lagSeconds: lag?.seconds ?? null } };
}

/**
 * The list reads the standby served and those sent to the primary (the standby behind, down, or a
 * write of the caller in flight), and the standby's lag when scraped. A share of primary reads that
 * rises says the standby falls behind, or the callers write as often as they list.
 */
export function registerReplicaMetrics(registry: Registry, db: Db): void {
  const router = readRouterOf(db);
  if (!router) return;
  const seen = { replica: 0, primary: 0 };
  new Counter({
    name: "feira_list_reads_total", help: "List and search reads by the database that served them (replica or primary)",
    labelNames: ["database"], registers: [registry],
    collect() {
      const now = router.stats();
      for (const [label, value] of [["replica", now.replicaReads], ["primary", now.primaryReads]] as const) {
        if (value > seen[label]) this.inc({ database: label }, value - seen[label]);
        seen[label] = value;
      }
    },
  });
  new Gauge({
    name: "feira_replica_lag_bytes", help: "Bytes of WAL the standby of DATABASE_REPLICA_URL has still to replay (-1 when it does not answer)",
    registers: [registry],
    async collect() { this.set((await router.lag())?.bytes ?? -1); },
  });
}
