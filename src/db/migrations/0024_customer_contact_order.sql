-- A charge's inline customer is the merchant's oldest customer with that e-mail or document
-- (`order by id limit 1`). On (merchant, environment, email) the planner could only filter and
-- sort, so with no statistics (PGlite, which has no autovacuum; a PostgreSQL table before its
-- first analyze, and the plans its connections kept from then) it read the merchant's customers
-- in id order through the scope index instead: every customer, 3 to 4 ms at 20,000, on every charge
-- of a new buyer. With the id last, the oldest match is the first entry of one index range.
-- Partial (a lookup's equality implies the column is not null), so that the whole-scope list
-- never takes them for its order. The old indexes are prefixes of the new ones. On a large
-- database run first, outside a transaction, the CONCURRENTLY statements of docs/deploy.md: this
-- migration then only drops.
CREATE INDEX IF NOT EXISTS "customers_email_id_idx" ON "customers" USING btree ("merchant_id","environment","email","id") WHERE "customers"."email" is not null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "customers_document_id_idx" ON "customers" USING btree ("merchant_id","environment","document_id","id") WHERE "customers"."document_id" is not null;--> statement-breakpoint
DROP INDEX IF EXISTS "customers_email_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "customers_document_idx";
