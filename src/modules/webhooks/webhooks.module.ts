import type { FastifyInstance } from "fastify";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Sealer } from "../../lib/crypto.js";
import type { Task } from "../../jobs/runner.js";

// Placeholder wiring, replaced by the webhooks module (endpoints, events, delivery worker).
export function createWebhookModule(_deps: { db: Db; config: Config; sealer: Sealer }) {
  return {
    routes: async (_app: FastifyInstance) => undefined,
    tasks: [] as Task[],
  };
}

export type WebhookModule = ReturnType<typeof createWebhookModule>;
