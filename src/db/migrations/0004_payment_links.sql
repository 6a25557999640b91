CREATE TABLE "freight_quotes" (
	"key" text PRIMARY KEY NOT NULL,
	"payment_link_id" text NOT NULL,
	"options" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_links" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"currency" text NOT NULL,
	"freight_mode" text NOT NULL,
	"fixed_freight_amount" bigint,
	"products" jsonb NOT NULL,
	"success_url" text,
	"active" boolean DEFAULT true NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shipping_integrations" (
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"provider" text DEFAULT 'melhor_envio' NOT NULL,
	"status" text DEFAULT 'inactive' NOT NULL,
	"client_id" text,
	"client_secret_sealed" text,
	"access_token_sealed" text,
	"refresh_token_sealed" text,
	"token_expires_at" timestamp with time zone,
	"origin_postal_code" text,
	"enabled_services" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "shipping_integrations_merchant_id_environment_pk" PRIMARY KEY("merchant_id","environment")
);
--> statement-breakpoint
CREATE TABLE "shipping_oauth_states" (
	"nonce" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "charges" ADD COLUMN "payment_link_id" text;--> statement-breakpoint
CREATE INDEX "freight_quotes_expiry_idx" ON "freight_quotes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "payment_links_scope_idx" ON "payment_links" USING btree ("merchant_id","environment","id");--> statement-breakpoint
CREATE INDEX "charges_payment_link_idx" ON "charges" USING btree ("merchant_id","environment","payment_link_id","id");