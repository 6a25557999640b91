ALTER TABLE "payout_requests" ADD COLUMN "transfer_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payout_requests" ADD COLUMN "transfer_lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payout_requests" ADD COLUMN "transfer_refusal" text;--> statement-breakpoint
ALTER TABLE "payout_requests" ADD COLUMN "returned_amount" bigint DEFAULT 0 NOT NULL;