import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Task } from "../../jobs/runner.js";
import type { Reactions } from "../webhooks/index.js";
import { createMailSender } from "./mail.sender.js";
import { mailRoutes } from "./mail.routes.js";
import { createMailService } from "./mail.service.js";

/**
 * E-mails to buyers (CONTRACT.md section 13): the outbox's `mail` subscriber queues them, once
 * per charge and kind; the `mail.send` task sends them over SMTP.
 */
export function createMailModule(deps: { db: Db; config: Config; reactions: Reactions; leaseMs?: number }) {
  const service = createMailService(deps);
  // The lease outlasts an SMTP exchange (nodemailer's timeouts: 10 s to connect and greet,
  // 20 s of silence) with room to record it.
  const sender = createMailSender({ db: deps.db, config: deps.config, options: { leaseMs: deps.leaseMs ?? 60_000 } });
  deps.reactions.subscribe("mail", service.onEvent);
  const tasks: Task[] = [sender.task()];
  return {
    routes: async (app: FastifyInstance) => {
      await app.register(mailRoutes(service));
    },
    tasks,
    workerTasks: (log: FastifyBaseLogger): Task[] => [sender.task(log)],
    service,
    sender,
  };
}

export type MailModule = ReturnType<typeof createMailModule>;
