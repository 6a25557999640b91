-- The outbox's wake-up (0001) fired for every INSERT statement on webhook_deliveries, even one
-- that queued nothing. The charge path now queues endpoint deliveries with INSERT ... SELECT
-- from the merchant's endpoints in the charge's own statement, which inserts no row for a
-- merchant without endpoints: the workers are woken only when something was queued.
DROP TRIGGER webhook_deliveries_notify ON webhook_deliveries;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION feira_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM queued) THEN
    PERFORM pg_notify('feira_outbox', '');
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
  REFERENCING NEW TABLE AS queued
  FOR EACH STATEMENT EXECUTE FUNCTION feira_notify_outbox();
