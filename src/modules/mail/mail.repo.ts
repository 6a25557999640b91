import { eq, or, sql } from "drizzle-orm";
import { queryRows, type Queryable } from "../../db/client.js";
import { allOf, pageFilters, toPage, type PageQuery } from "../../db/pagination.js";
import { emails, notificationSettings } from "../../db/schema.js";
import { inScope, type Scope } from "../../db/scope.js";

export type EmailRow = typeof emails.$inferSelect;
export type SettingsRow = typeof notificationSettings.$inferSelect;

export async function settingsOf(q: Queryable, scope: Scope): Promise<SettingsRow | undefined> {
  const [row] = await q.select().from(notificationSettings).where(inScope(notificationSettings, scope));
  return row;
}

/** The saved settings of several scopes, in one statement. */
export async function settingsOfAll(q: Queryable, scopes: Scope[]): Promise<SettingsRow[]> {
  if (scopes.length === 0) return [];
  if (scopes.length === 1) return q.select().from(notificationSettings).where(inScope(notificationSettings, scopes[0]!));
  return q.select().from(notificationSettings).where(or(...scopes.map((scope) => inScope(notificationSettings, scope))));
}

export async function saveSettings(q: Queryable, row: typeof notificationSettings.$inferInsert): Promise<void> {
  const { merchantId: _m, environment: _e, ...set } = row;
  await q.insert(notificationSettings).values(row)
    .onConflictDoUpdate({ target: [notificationSettings.merchantId, notificationSettings.environment], set: { ...set, updatedAt: new Date() } });
}

/** What an e-mail about a charge needs: the charge, its buyer, its merchant. */
export interface ChargeForMail {
  id: string;
  merchant_id: string;
  environment: "sandbox" | "production";
  status: string;
  amount: number;
  currency: string;
  payment_method_type: string;
  payment_details: Record<string, unknown> | null;
  subscription_id: string | null;
  expires_at: string | Date | null;
  buyer_name: string | null;
  buyer_email: string | null;
  merchant_name: string;
  /** The buyer's page token (charges.page_token). */
  page_token: string | null;
}

export async function chargeForMail(q: Queryable, chargeId: string): Promise<ChargeForMail | undefined> {
  return (await chargesForMail(q, [chargeId])).get(chargeId);
}

/** Several charges' ChargeForMail in one statement, by id (a batch of events' charges). */
export async function chargesForMail(q: Queryable, chargeIds: string[]): Promise<Map<string, ChargeForMail>> {
  if (chargeIds.length === 0) return new Map();
  const rows = await queryRows<ChargeForMail>(q, sql`
    select c.id, c.merchant_id, c.environment, c.status, c.amount::float8 as amount, c.currency, c.payment_method_type,
      c.payment_details, c.subscription_id, c.expires_at, cu.name as buyer_name, cu.email as buyer_email, m.name as merchant_name,
      c.page_token
    from charges c
    join merchants m on m.id = c.merchant_id
    left join customers cu on cu.id = c.customer_id
    where c.id in (${sql.join(chargeIds.map((id) => sql`${id}`), sql`, `)})`);
  for (const row of rows) if (typeof row.payment_details === "string") row.payment_details = JSON.parse(row.payment_details) as Record<string, unknown>;
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Queues e-mails, each unless its charge already has one of its kind (then that one is not
 * written), in one statement; answers the ids written.
 */
export async function queueEmails(q: Queryable, rows: (typeof emails.$inferInsert)[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const written = await q.insert(emails).values(rows).onConflictDoNothing({ target: [emails.chargeId, emails.kind] }).returning({ id: emails.id });
  return new Set(written.map((r) => r.id));
}

export async function emailById(q: Queryable, id: string): Promise<EmailRow | undefined> {
  const [row] = await q.select().from(emails).where(eq(emails.id, id));
  return row;
}

export async function listEmails(q: Queryable, scope: Scope, query: PageQuery & { chargeId?: string }) {
  const { where, orderBy, limit, reversed } = pageFilters(query, emails);
  const rows = await q.select().from(emails)
    .where(allOf([inScope(emails, scope), query.chargeId ? eq(emails.chargeId, query.chargeId) : undefined, ...where]))
    .orderBy(orderBy).limit(limit);
  return toPage(rows, query, reversed);
}


/** An unpaid charge with a due date whose merchant asked for reminders or overdue notices. */
export interface DueCharge {
  id: string;
  environment: "sandbox" | "production";
  due_date: string;
  reminder_days_before: number | null;
  overdue: boolean;
  /** The merchant's sandbox clock offset (0 in production, where real time rules). */
  offset_ms: number;
  has_reminder: boolean;
  has_overdue: boolean;
}

/**
 * Pending boletos and Pix with a due date (the charge's dueDate term, else the boleto's
 * paymentDetails.dueDate) of merchants whose settings
 * ask for a reminder or an overdue notice, which still lack one of those e-mails; `merchantId`
 * narrows it to one merchant's sandbox (the test clock's advance).
 */
export async function dueCharges(q: Queryable, limit: number, merchantId?: string): Promise<DueCharge[]> {
  const one = merchantId ? sql`and c.merchant_id = ${merchantId} and c.environment = 'sandbox'` : sql``;
  return queryRows<DueCharge>(q, sql`
    select c.id, c.environment, coalesce(c.payment_method ->> 'dueDate', c.payment_details ->> 'dueDate') as due_date, s.reminder_days_before, s.overdue,
      case when c.environment = 'sandbox' then coalesce(k.offset_ms, 0)::float8 else 0 end as offset_ms,
      exists (select 1 from emails e where e.charge_id = c.id and e.kind = 'reminder') as has_reminder,
      exists (select 1 from emails e where e.charge_id = c.id and e.kind = 'overdue') as has_overdue
    from notification_settings s
    join charges c on c.merchant_id = s.merchant_id and c.environment = s.environment
    left join sandbox_clocks k on k.merchant_id = c.merchant_id
    where (s.reminder_days_before is not null or s.overdue)
      and c.status = 'pending' and c.payment_method_type in ('boleto', 'pix')
      and coalesce(c.payment_method ->> 'dueDate', c.payment_details ->> 'dueDate') is not null ${one}
      and not (exists (select 1 from emails e where e.charge_id = c.id and e.kind = 'reminder')
           and exists (select 1 from emails e where e.charge_id = c.id and e.kind = 'overdue'))
    order by c.id
    limit ${limit}`);
}
