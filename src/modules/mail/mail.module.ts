import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Scope } from "../../db/scope.js";
import type { Task } from "../../jobs/runner.js";
import type { Reactions } from "../webhooks/index.js";
import { createReminders } from "./mail.reminders.js";
import { createMailSender } from "./mail.sender.js";
import { mailRoutes } from "./mail.routes.js";
import { createMailService } from "./mail.service.js";

/**
 * E-mails to buyers: the outbox's `mail` subscriber queues them, once
 * per charge and kind; the `mail.send` task sends them over SMTP.
 */
export function createMailModule(deps: {
  db: Db; config: Config; reactions: Reactions; leaseMs?: number;
  /** The sandbox's test clock: its advance runs the reminders of the merchant's sandbox before it answers. */
  clock: { onAdvance(listener: (scope: Scope) => Promise<unknown>): void };
}) {
  const service = createMailService(deps);
  // The lease outlasts an SMTP exchange (mail.sender.ts's timeouts: 5 s to connect, 5 s for the
  // greeting, 10 s of silence per step) with room to record it; a worker that died holds its
  // e-mails this long before another sends them.
  const sender = createMailSender({ db: deps.db, config: deps.config, options: { leaseMs: deps.leaseMs ?? 30_000 } });
  deps.reactions.subscribe("mail", service.onEvents);
  const reminders = createReminders({ db: deps.db, queue: service.queue });
  deps.clock.onAdvance((scope) => reminders.run(scope.merchantId));
  // Due dates are days: a look a minute is plenty, and cheap (settings with reminders first).
  const remind: Task = { name: "mail.remind", intervalMs: 60_000, run: () => reminders.run() };
  const tasks: Task[] = [sender.task(), remind];
  return {
    routes: async (app: FastifyInstance) => {
      await app.register(mailRoutes(service));
    },
    tasks,
    workerTasks: (log: FastifyBaseLogger): Task[] => [sender.task(log), remind],
    service,
    sender,
    reminders,
  };
}

export type MailModule = ReturnType<typeof createMailModule>;
