ALTER TABLE "charges" ADD COLUMN "subscription_id" text;--> statement-breakpoint
-- Charges a subscription made before this column existed: found through the billing engine's own
-- link table (never through metadata, which a client may write).
UPDATE "charges" c SET "subscription_id" = sc."subscription_id" FROM "subscription_charges" sc WHERE sc."charge_id" = c."id";
