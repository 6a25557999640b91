-- GET /v1/charges is newest first by creation, (created_at, id), not by id (issue 46 item 19): a
-- renewal's id kept its subscription's time, so a year-old subscription's renewal made today was
-- filed a year deep, and the charges already made that way stay misfiled under any id order. The
-- list's indexes end in (created_at, id) instead of id; the created-date window is a range of the
-- same indexes, so the partial index of charges created apart from their id goes. On a large
-- database run first, outside a transaction, the CONCURRENTLY statements of docs/deploy.md: this
-- migration then finds nothing left to do. The old indexes are dropped after the new ones exist.
CREATE INDEX IF NOT EXISTS "charges_scope_created_idx" ON "charges" USING btree ("merchant_id","environment","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "charges_customer_created_idx" ON "charges" USING btree ("merchant_id","environment","customer_id","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "charges_status_created_idx" ON "charges" USING btree ("merchant_id","environment","status","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "charges_method_created_idx" ON "charges" USING btree ("merchant_id","environment","payment_method_type","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "charges_link_created_idx" ON "charges" USING btree ("merchant_id","environment","payment_link_id","created_at","id") WHERE "charges"."payment_link_id" is not null;--> statement-breakpoint
DROP INDEX IF EXISTS "charges_scope_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "charges_customer_id_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "charges_status_id_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "charges_method_id_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "charges_created_apart_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "charges_link_id_idx";
