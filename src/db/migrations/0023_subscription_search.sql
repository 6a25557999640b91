-- The subscription list's free-text search (a customer's name or e-mail, a plan's name, the text
-- anywhere in them) joined every subscription of the merchant before filtering: linear in its
-- subscriptions. Trigram indexes (pg_trgm, one of PostgreSQL's own extensions, trusted: the
-- database's owner may create it) find the matching customers; the plan index their
-- subscriptions. On a large database run first, outside a transaction, the CONCURRENTLY
-- statements of docs/deploy.md: this migration then finds nothing left to do.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "customers_name_trgm_idx" ON "customers" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "customers_email_trgm_idx" ON "customers" USING gin ("email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "subscriptions_plan_idx" ON "subscriptions" USING btree ("plan_id");
