-- Wakes the delivery workers when deliveries are queued. NOTIFY inside a transaction is sent at
-- commit (and not at all on rollback), and PostgreSQL folds repeated identical notifications of
-- one transaction into one, so a charge with several events wakes the workers once. Workers
-- also poll, so a lost notification only delays a delivery by one poll interval.
CREATE FUNCTION feira_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('feira_outbox', '');
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION feira_notify_outbox();
