-- Fewer index entries per charge (issue 12). events_object_idx: no query reads events by
-- object_id. The expiry janitor reads only pending charges and a payment link's list only its
-- own charges, so their indexes become partial: a card charge paid at once writes neither.
-- On a large database run first, outside a transaction, the CONCURRENTLY statements of
-- docs/deploy.md: this migration then finds nothing left to do.
CREATE INDEX IF NOT EXISTS "charges_pending_expiry_idx" ON "charges" USING btree ("expires_at") WHERE "charges"."status" = 'pending';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "charges_link_id_idx" ON "charges" USING btree ("merchant_id","environment","payment_link_id","id") WHERE "charges"."payment_link_id" is not null;--> statement-breakpoint
DROP INDEX IF EXISTS "charges_expiry_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "charges_payment_link_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "events_object_idx";
