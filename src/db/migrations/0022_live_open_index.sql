-- Reconciliation reads the live charges still waiting for the provider's word every round, in id
-- order from where the last round stopped: without an index that was a Seq Scan of every charge.
-- Partial: it holds only the open production charges of live processors. On a large database run
-- first, outside a transaction, the CONCURRENTLY statement of docs/deploy.md: this migration then
-- finds nothing left to do.
CREATE INDEX IF NOT EXISTS "charges_live_open_idx" ON "charges" USING btree ("id") WHERE "charges"."environment" = 'production' and "charges"."status" in ('pending', 'in_analysis', 'authentication_required') and "charges"."processor" <> 'sandbox';
