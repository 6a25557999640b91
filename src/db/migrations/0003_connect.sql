CREATE TABLE "connect_settings" (
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"default_split" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "connect_settings_merchant_id_environment_pk" PRIMARY KEY("merchant_id","environment")
);
--> statement-breakpoint
CREATE TABLE "payout_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"parent_id" text NOT NULL,
	"environment" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"payout_fee" bigint NOT NULL,
	"net_amount" bigint NOT NULL,
	"status" text NOT NULL,
	"pix_key" text NOT NULL,
	"reason" text,
	"processor_ref" text,
	"processed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "submerchant_documents" (
	"id" text PRIMARY KEY NOT NULL,
	"submerchant_id" text NOT NULL,
	"kind" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"content_sealed" text NOT NULL,
	"uploaded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "submerchants" (
	"id" text PRIMARY KEY NOT NULL,
	"parent_id" text NOT NULL,
	"environment" text NOT NULL,
	"trade_name" text NOT NULL,
	"legal_name" text NOT NULL,
	"company_tax_id" text NOT NULL,
	"average_monthly_revenue" bigint NOT NULL,
	"average_order_value" bigint NOT NULL,
	"product_type" text NOT NULL,
	"website" text NOT NULL,
	"contact_email" text NOT NULL,
	"product_description" text NOT NULL,
	"soft_descriptor" text,
	"postback_url" text,
	"currency" text DEFAULT 'BRL' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"status_reason" text,
	"pre_approved_at" timestamp with time zone,
	"approved_at" timestamp with time zone,
	"rejected_at" timestamp with time zone,
	"blocked_at" timestamp with time zone,
	"inactivated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "submerchant_documents" ADD CONSTRAINT "submerchant_documents_submerchant_id_submerchants_id_fk" FOREIGN KEY ("submerchant_id") REFERENCES "public"."submerchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "submerchants" ADD CONSTRAINT "submerchants_id_merchants_id_fk" FOREIGN KEY ("id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "submerchants" ADD CONSTRAINT "submerchants_parent_id_merchants_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payout_requests_merchant_idx" ON "payout_requests" USING btree ("merchant_id","environment","created_at");--> statement-breakpoint
CREATE INDEX "payout_requests_parent_idx" ON "payout_requests" USING btree ("parent_id","environment","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "submerchant_documents_kind_uq" ON "submerchant_documents" USING btree ("submerchant_id","kind");--> statement-breakpoint
CREATE INDEX "submerchants_parent_idx" ON "submerchants" USING btree ("parent_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "submerchants_tax_id_uq" ON "submerchants" USING btree ("parent_id","company_tax_id");