-- A charge's inline customer is found again by e-mail, or by phone when the buyer gave no e-mail;
-- never by document alone (a new e-mail with a known CPF is a new customer). The phone lookup
-- reads one index range, like the e-mail one of 0024. The charge keeps the buyer as typed
-- (`buyer`: name, e-mail, phone, document), so that a customer found by e-mail under an earlier
-- name still shows on this charge the name typed for it. A nullable column is instant. On a large
-- database run first, outside a transaction, the CONCURRENTLY statement of docs/deploy.md.
ALTER TABLE "charges" ADD COLUMN IF NOT EXISTS "buyer" jsonb;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "customers_phone_id_idx" ON "customers" USING btree ("merchant_id","environment","phone","id") WHERE "customers"."phone" is not null;
