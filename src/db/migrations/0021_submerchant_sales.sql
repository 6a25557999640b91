-- Submerchants' total sales: totalSales counted every paid or refunded charge of the
-- page's submerchants on each call, linear in their charges (one with 262,500 sales: 1,944 buffers,
-- 160 to 500 ms). Now triggers on charges append +1 / -1 to charge_sales_tail when a submerchant's
-- charge becomes or stops being a sale (status paid or refunded), and the worker task
-- connect.sales-rollup folds the tail into charge_sales_rollups. A count is its rollup row plus
-- its tail (connect.repo.ts totalSales, one statement, so one snapshot of both).
--
-- Only charges of a submerchant (a submerchants row with the charge's merchant and environment)
-- write to the tail: an ordinary merchant's charge pays one primary-key probe of submerchants
-- and writes nothing. A submerchant's row is committed with its merchant row and its keys, in
-- the transaction that registers it (connect.service.ts create), so it exists before any charge
-- of it can be written.
--
-- The backfill at the end counts the sales that exist. CREATE TRIGGER takes a SHARE ROW
-- EXCLUSIVE lock on charges, held until the migration's transaction commits: no charge is
-- written between the triggers and the count (a write already running finishes first, and its
-- charge is in the count), so no sale is missed or counted twice. The count reads the
-- submerchants' paid and refunded charges once, from an index (docs/deploy.md: its cost on a
-- large database).
CREATE TABLE "charge_sales_rollups" (
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"sales" bigint NOT NULL,
	CONSTRAINT "charge_sales_rollups_merchant_id_environment_pk" PRIMARY KEY("merchant_id","environment")
);
--> statement-breakpoint
CREATE TABLE "charge_sales_tail" (
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"delta" smallint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "charge_sales_tail_scope_idx" ON "charge_sales_tail" USING btree ("merchant_id","environment");--> statement-breakpoint
CREATE FUNCTION feira_charge_sales() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    IF OLD.status IN ('paid', 'refunded')
      AND EXISTS (SELECT 1 FROM submerchants WHERE id = OLD.merchant_id AND environment = OLD.environment) THEN
      INSERT INTO charge_sales_tail (merchant_id, environment, delta) VALUES (OLD.merchant_id, OLD.environment, -1);
    END IF;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    IF NEW.status IN ('paid', 'refunded')
      AND EXISTS (SELECT 1 FROM submerchants WHERE id = NEW.merchant_id AND environment = NEW.environment) THEN
      INSERT INTO charge_sales_tail (merchant_id, environment, delta) VALUES (NEW.merchant_id, NEW.environment, 1);
    END IF;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER charges_sales_insert AFTER INSERT ON charges
  FOR EACH ROW WHEN (NEW.status IN ('paid', 'refunded'))
  EXECUTE FUNCTION feira_charge_sales();
--> statement-breakpoint
-- paid -> refunded stays a sale: no call. A move in or out of the sales, or to another owner, is one.
CREATE TRIGGER charges_sales_update AFTER UPDATE OF status, merchant_id, environment ON charges
  FOR EACH ROW WHEN (
    (OLD.status IN ('paid', 'refunded')) IS DISTINCT FROM (NEW.status IN ('paid', 'refunded'))
    OR OLD.merchant_id IS DISTINCT FROM NEW.merchant_id
    OR OLD.environment IS DISTINCT FROM NEW.environment)
  EXECUTE FUNCTION feira_charge_sales();
--> statement-breakpoint
CREATE TRIGGER charges_sales_delete AFTER DELETE ON charges
  FOR EACH ROW WHEN (OLD.status IN ('paid', 'refunded'))
  EXECUTE FUNCTION feira_charge_sales();
--> statement-breakpoint
-- Under the lock the triggers took (above): the sales that exist, once. Per submerchant, so that
-- each count is an index-only scan of its own entries in charges_status_id_idx; a join of charges
-- to submerchants is planned as a Seq Scan of every charge (65,752 buffers against 4,316 on
-- 2.7 M charges, bench/RESULTS.md).
INSERT INTO charge_sales_rollups (merchant_id, environment, sales)
SELECT s.id, s.environment, n.sales
FROM submerchants s CROSS JOIN LATERAL (
  SELECT count(*) AS sales FROM charges c
  WHERE c.merchant_id = s.id AND c.environment = s.environment AND c.status IN ('paid', 'refunded')
) n
WHERE n.sales > 0;
