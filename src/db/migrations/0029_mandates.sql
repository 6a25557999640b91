CREATE TABLE "mandates" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"subscription_id" text NOT NULL,
	"status" text NOT NULL,
	"journey" text NOT NULL,
	"retry_policy" text NOT NULL,
	"max_amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"qr_code" text NOT NULL,
	"qr_code_image" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"first_charge_id" text,
	"fail_debits" integer DEFAULT 0 NOT NULL,
	"provider_ref" text,
	"cancelled_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "mandates_subscription_uq" ON "mandates" USING btree ("subscription_id");--> statement-breakpoint
CREATE INDEX "mandates_scope_idx" ON "mandates" USING btree ("merchant_id","environment","id");