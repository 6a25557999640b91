-- Provider webhooks find a live charge by the provider's own id (psp_ref_id) as well as by
-- feira's id: without an index that was a scan of every charge. Partial: sandbox charges never
-- reach a provider. On a large database run first, outside a transaction, the CONCURRENTLY
-- statement of docs/deploy.md: this migration then finds nothing left to do.
CREATE INDEX IF NOT EXISTS "charges_live_psp_ref_idx" ON "charges" USING btree ("psp_ref_id") WHERE "charges"."environment" = 'production' and "charges"."psp_ref_id" is not null;