-- The charge list's created-date window becomes a range of ids (ids begin with their creation
-- time), read through the indexes every page uses: charges_created_idx is no longer read and
-- its entry is no longer written per charge. A charge whose created_at is more than a minute
-- from its id's time (a retry that took over an idempotency claim long after the first attempt
-- made the id) is marked created_apart and found through the small partial index instead.
-- The UPDATE reads every charge once (the id's 10 time characters decoded, Crockford base32,
-- milliseconds) and writes only the few that are apart.
DROP INDEX IF EXISTS "charges_created_idx";--> statement-breakpoint
ALTER TABLE "charges" ADD COLUMN IF NOT EXISTS "created_apart" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "charges" SET "created_apart" = true
WHERE abs(extract(epoch from "created_at") * 1000 - (
  SELECT sum((strpos('0123456789abcdefghjkmnpqrstvwxyz', substr("charges"."id", 3 + i, 1)) - 1)::numeric * power(32::numeric, 10 - i))
  FROM generate_series(1, 10) AS i
)) > 60000;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "charges_created_apart_idx" ON "charges" USING btree ("merchant_id","environment","created_at") WHERE "charges"."created_apart";
