ALTER TABLE "submerchants" ADD COLUMN "payout_schedule" jsonb;--> statement-breakpoint
ALTER TABLE "submerchants" ADD COLUMN "payout_due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "submerchants" ADD COLUMN "payout_claimed_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "submerchants_payout_due_idx" ON "submerchants" USING btree ("payout_due_at") WHERE "submerchants"."payout_due_at" is not null;