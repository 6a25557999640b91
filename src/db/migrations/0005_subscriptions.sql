CREATE TABLE "plans" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"price" bigint NOT NULL,
	"currency" text NOT NULL,
	"interval" text NOT NULL,
	"interval_count" integer DEFAULT 1 NOT NULL,
	"trial_days" integer DEFAULT 0 NOT NULL,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sandbox_clocks" (
	"merchant_id" text PRIMARY KEY NOT NULL,
	"offset_ms" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscription_charges" (
	"charge_id" text PRIMARY KEY NOT NULL,
	"invoice_id" text NOT NULL,
	"subscription_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscription_invoices" (
	"id" text PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"cycle" integer NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"plan_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"current_charge_id" text,
	"in_flight" boolean DEFAULT false NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscription_settings" (
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"retry_days" jsonb NOT NULL,
	"on_exhausted" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"plan_id" text NOT NULL,
	"next_plan_id" text,
	"customer_id" text NOT NULL,
	"payment_method" jsonb NOT NULL,
	"status" text NOT NULL,
	"billing_day" integer NOT NULL,
	"anchor_at" timestamp with time zone NOT NULL,
	"cycle" integer DEFAULT 0 NOT NULL,
	"current_period_start" timestamp with time zone NOT NULL,
	"current_period_end" timestamp with time zone NOT NULL,
	"trial_end" timestamp with time zone,
	"cancel_at_period_end" boolean DEFAULT false NOT NULL,
	"cancelled_at" timestamp with time zone,
	"cancellation_type" text,
	"refunded" boolean DEFAULT false NOT NULL,
	"paused_at" timestamp with time zone,
	"open_invoice_id" text,
	"next_run_at" timestamp with time zone,
	"claimed_until" timestamp with time zone,
	"split" jsonb,
	"metadata" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "plans_scope_idx" ON "plans" USING btree ("merchant_id","environment","id");--> statement-breakpoint
CREATE INDEX "subscription_charges_sub_idx" ON "subscription_charges" USING btree ("subscription_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_invoices_period_uq" ON "subscription_invoices" USING btree ("subscription_id","period_start");--> statement-breakpoint
CREATE UNIQUE INDEX "subscription_settings_uq" ON "subscription_settings" USING btree ("merchant_id","environment");--> statement-breakpoint
CREATE INDEX "subscriptions_scope_idx" ON "subscriptions" USING btree ("merchant_id","environment","id");--> statement-breakpoint
CREATE INDEX "subscriptions_customer_idx" ON "subscriptions" USING btree ("merchant_id","environment","customer_id");--> statement-breakpoint
CREATE INDEX "subscriptions_due_idx" ON "subscriptions" USING btree ("next_run_at");