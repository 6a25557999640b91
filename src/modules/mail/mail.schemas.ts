import { Type, type Static } from "typebox";
import { ListOf, ListQuery } from "../../http/schemas.js";
import { MAIL_KINDS } from "./mail.templates.js";

export const NotificationSettings = Type.Object({
  receipts: Type.Boolean({ description: "Send the buyer a receipt when a charge is paid (default true)." }),
  reminders: Type.Object({
    daysBefore: Type.Union([Type.Integer({ minimum: 0, maximum: 10 }), Type.Null()], { description: "Days before the due date to remind an unpaid boleto or due-date Pix; null: no reminder (default)." }),
    overdue: Type.Boolean({ description: "Tell the buyer the day after the due date when still unpaid (default false)." }),
  }, { additionalProperties: false }),
  language: Type.Union([Type.Literal("pt-BR"), Type.Literal("en")], { description: "The e-mails' language (default pt-BR)." }),
}, { additionalProperties: false, examples: [{ receipts: true, reminders: { daysBefore: 3, overdue: true }, language: "pt-BR" }] });
export type NotificationSettingsBody = Static<typeof NotificationSettings>;

export const NotificationSettingsView = Type.Object({
  ...NotificationSettings.properties,
  sending: Type.Boolean({ description: "Whether this environment's e-mails leave the machine: production with SMTP_URL and MAIL_FROM set. The sandbox never sends; its e-mails are listed by GET /v1/emails (its outbox)." }),
}, { examples: [{ receipts: true, reminders: { daysBefore: null, overdue: false }, language: "pt-BR", sending: false }] });

export const EMAIL_EXAMPLE = {
  id: "eml_01jd3k5x7m9q2r4t6v8w0y2z4a", chargeId: "ch_01jd3k5x7m9q2r4t6v8w0y2z4b", kind: "receipt", to: "maria@example.com",
  subject: "Recibo do seu pagamento a Loja Exemplo", status: "sent", sentAt: "2026-11-24T10:15:02.000Z", createdAt: "2026-11-24T10:15:00.000Z",
};

export const Email = Type.Object({
  id: Type.String(),
  chargeId: Type.String(),
  kind: Type.String({ enum: [...MAIL_KINDS], description: "receipt, payment_instructions, reminder, overdue, refund or renewal_failed." }),
  to: Type.String({ description: "The buyer's e-mail." }),
  subject: Type.String(),
  status: Type.String({ enum: ["queued", "sent", "failed"], description: "queued (waiting, or retrying after an SMTP failure), sent, or failed (refused by the server, or out of retries)." }),
  sentAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  createdAt: Type.String({ format: "date-time" }),
});

export const ListEmailsQuery = Type.Object({
  ...ListQuery,
  chargeId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Only this charge's e-mails." })),
}, { additionalProperties: false });

export const EmailList = ListOf(Email, { data: [EMAIL_EXAMPLE], hasMore: false });
