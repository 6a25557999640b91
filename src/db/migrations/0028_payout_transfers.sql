ALTER TABLE "payout_requests" ADD COLUMN "transfer_status" text;--> statement-breakpoint
ALTER TABLE "payout_requests" ADD COLUMN "transfer_processor" text;--> statement-breakpoint
ALTER TABLE "payout_requests" ADD COLUMN "transfer_id" text;--> statement-breakpoint
ALTER TABLE "payout_requests" ADD COLUMN "transfer_started_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "payout_requests_transfer_uq" ON "payout_requests" USING btree ("transfer_processor","transfer_id");--> statement-breakpoint
CREATE INDEX "payout_requests_sending_idx" ON "payout_requests" USING btree ("transfer_started_at") WHERE "payout_requests"."transfer_status" = 'sending';