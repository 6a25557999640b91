CREATE TABLE "admin_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"key_hash" text NOT NULL,
	"key_sealed" text NOT NULL,
	"last4" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "cards" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"customer_id" text NOT NULL,
	"brand" text NOT NULL,
	"first_six" text NOT NULL,
	"last_four" text NOT NULL,
	"expiration_month" text NOT NULL,
	"expiration_year" text NOT NULL,
	"holder_name" text NOT NULL,
	"number_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "charges" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"customer_id" text,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"is_blocked" boolean DEFAULT false NOT NULL,
	"payment_method_type" text NOT NULL,
	"payment_method" jsonb NOT NULL,
	"payment_details" jsonb,
	"installments" integer DEFAULT 1 NOT NULL,
	"processor" text NOT NULL,
	"psp_ref_id" text,
	"spread" bigint DEFAULT 0 NOT NULL,
	"anticipation_fee" bigint DEFAULT 0 NOT NULL,
	"net" bigint DEFAULT 0 NOT NULL,
	"amount_refunded" bigint DEFAULT 0 NOT NULL,
	"items" jsonb,
	"shipping_address" jsonb,
	"tracking_info" jsonb,
	"metadata" jsonb,
	"postback_url" text,
	"split" jsonb,
	"freight_amount" bigint,
	"freight_details" jsonb,
	"paid_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "customers" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"phone" text,
	"document_type" text,
	"document_id" text,
	"address" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"type" text NOT NULL,
	"envelope" text NOT NULL,
	"object_id" text,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fees" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"fee_type" text NOT NULL,
	"payment_method" text NOT NULL,
	"currency_code" text NOT NULL,
	"brand" text,
	"definition" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"environment" text NOT NULL,
	"route" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" text NOT NULL,
	"response_status" integer,
	"response_body" text,
	"response_type" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_scope_environment_route_key_pk" PRIMARY KEY("scope","environment","route","key")
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"transaction_id" text NOT NULL,
	"owner" text NOT NULL,
	"environment" text NOT NULL,
	"currency" text NOT NULL,
	"account" text NOT NULL,
	"amount" bigint NOT NULL,
	"type" text NOT NULL,
	"source_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"environment" text NOT NULL,
	"type" text NOT NULL,
	"source_id" text,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "merchants" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"connect_enabled" boolean DEFAULT false NOT NULL,
	"parent_id" text,
	"pix_key" text NOT NULL,
	"city" text DEFAULT 'SAO PAULO' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "postback_secrets" (
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "postback_secrets_merchant_id_environment_pk" PRIMARY KEY("merchant_id","environment")
);
--> statement-breakpoint
CREATE TABLE "refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"charge_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"amount" bigint NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settlements" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"environment" text NOT NULL,
	"currency" text NOT NULL,
	"charge_id" text NOT NULL,
	"installment" integer NOT NULL,
	"amount" bigint NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"settled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"response_status" integer,
	"error" text,
	"response_excerpt" text
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"endpoint_id" text,
	"url" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_status" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"url" text NOT NULL,
	"events" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"description" text,
	"secret_sealed" text NOT NULL,
	"disabled_reason" text,
	"failing_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fees" ADD CONSTRAINT "fees_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_charge_id_charges_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charges"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_uq" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_merchant_idx" ON "api_keys" USING btree ("merchant_id","environment");--> statement-breakpoint
CREATE INDEX "cards_customer_idx" ON "cards" USING btree ("merchant_id","environment","customer_id");--> statement-breakpoint
CREATE INDEX "charges_scope_idx" ON "charges" USING btree ("merchant_id","environment","id");--> statement-breakpoint
CREATE INDEX "charges_customer_idx" ON "charges" USING btree ("merchant_id","environment","customer_id");--> statement-breakpoint
CREATE INDEX "charges_status_idx" ON "charges" USING btree ("merchant_id","environment","status");--> statement-breakpoint
CREATE INDEX "customers_scope_idx" ON "customers" USING btree ("merchant_id","environment","id");--> statement-breakpoint
CREATE INDEX "customers_email_idx" ON "customers" USING btree ("merchant_id","environment","email");--> statement-breakpoint
CREATE INDEX "customers_document_idx" ON "customers" USING btree ("merchant_id","environment","document_id");--> statement-breakpoint
CREATE INDEX "events_scope_idx" ON "events" USING btree ("merchant_id","environment","id");--> statement-breakpoint
CREATE INDEX "events_object_idx" ON "events" USING btree ("object_id");--> statement-breakpoint
CREATE INDEX "fees_merchant_idx" ON "fees" USING btree ("merchant_id");--> statement-breakpoint
CREATE INDEX "ledger_entries_account_idx" ON "ledger_entries" USING btree ("owner","environment","currency","account");--> statement-breakpoint
CREATE INDEX "ledger_entries_tx_idx" ON "ledger_entries" USING btree ("transaction_id");--> statement-breakpoint
CREATE INDEX "ledger_tx_source_idx" ON "ledger_transactions" USING btree ("source_id");--> statement-breakpoint
CREATE UNIQUE INDEX "merchants_email_uq" ON "merchants" USING btree ("email");--> statement-breakpoint
CREATE INDEX "refunds_charge_idx" ON "refunds" USING btree ("charge_id");--> statement-breakpoint
CREATE INDEX "settlements_due_idx" ON "settlements" USING btree ("settled_at","due_at");--> statement-breakpoint
CREATE INDEX "settlements_charge_idx" ON "settlements" USING btree ("charge_id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event_idx" ON "webhook_deliveries" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries" USING btree ("endpoint_id","id");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_scope_idx" ON "webhook_endpoints" USING btree ("merchant_id","environment");