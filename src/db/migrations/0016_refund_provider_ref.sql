ALTER TABLE "refunds" ADD COLUMN "refund_ref" text;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "provider_code" text;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "sent_at" timestamp with time zone;