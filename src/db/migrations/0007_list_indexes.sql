-- Indexes for the filtered and paginated list queries (bench/growth.ts, "How cost grows" in
-- bench/RESULTS.md): each filter of a list is followed by id, the list's order, so a page reads
-- its rows in index order however rare the filtered value. New indexes are built before the
-- ones they replace are dropped, so no list is left without one during the migration.
--
-- CREATE INDEX blocks writes to its table while it builds (minutes on millions of rows), and the
-- migrator runs in a transaction, where CREATE INDEX CONCURRENTLY is refused. On a large
-- production database, build them first with CONCURRENTLY by hand (docs/deploy.md): IF NOT
-- EXISTS then makes these statements no-ops.
CREATE INDEX IF NOT EXISTS "charges_customer_id_idx" ON "charges" USING btree ("merchant_id","environment","customer_id","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "charges_status_id_idx" ON "charges" USING btree ("merchant_id","environment","status","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "charges_method_id_idx" ON "charges" USING btree ("merchant_id","environment","payment_method_type","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "charges_created_idx" ON "charges" USING btree ("merchant_id","environment","created_at");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "events_type_idx" ON "events" USING btree ("merchant_id","environment","type","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ledger_entries_owner_idx" ON "ledger_entries" USING btree ("owner","environment","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "submerchants_parent_created_idx" ON "submerchants" USING btree ("parent_id","created_at" DESC NULLS LAST,"id" DESC NULLS FIRST);--> statement-breakpoint
DROP INDEX IF EXISTS "charges_customer_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "charges_status_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "submerchants_parent_idx";
