import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors } from "../../http/schemas.js";
import type { MailService } from "./mail.service.js";
import * as s from "./mail.schemas.js";

const tags = ["emails"];

export function mailRoutes(mail: MailService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const view = async (ctx: { merchantId: string; environment: "sandbox" | "production" }) =>
      ({ ...(await mail.settings(ctx)), sending: mail.sending(ctx.environment) });

    app.get("/v1/settings/notifications", {
      schema: {
        operationId: "getNotificationSettings", tags, summary: "Read the buyer e-mail settings",
        description: "Which e-mails buyers get in this environment and in which language, and whether they leave the machine (`sending`: production with SMTP_URL and MAIL_FROM set).",
        response: { 200: s.NotificationSettingsView, ...errors(401, 403) },
      },
    }, async (req) => view(req.ctx));

    app.put("/v1/settings/notifications", {
      schema: {
        operationId: "putNotificationSettings", tags, summary: "Set the buyer e-mail settings",
        description: "Replaces this environment's settings: receipts, reminders (`daysBefore` the due date, 0-10 or null; `overdue` the day after) and the language (pt-BR or en). Applies to e-mails queued after it.",
        body: s.NotificationSettings,
        response: { 200: s.NotificationSettingsView, ...errors(401, 403, 422) },
      },
    }, async (req) => {
      await mail.saveSettings(req.ctx, req.body);
      return view(req.ctx);
    });

    app.get("/v1/emails", {
      schema: {
        operationId: "listEmails", tags, summary: "List e-mails to buyers",
        description: "The e-mails sent or to be sent to buyers in this environment, newest first, optionally of one charge. In the sandbox nothing leaves the machine: this list is the outbox.",
        querystring: s.ListEmailsQuery,
        response: { 200: s.EmailList, ...errors(401, 403, 422) },
      },
    }, async (req) => mail.list(req.ctx, req.query));
  };
}
