CREATE TABLE "submerchant_provider_accounts" (
	"submerchant_id" text NOT NULL,
	"processor" text NOT NULL,
	"parent_id" text NOT NULL,
	"environment" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"external_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"state_nonce" text,
	"access_token_sealed" text,
	"refresh_token_sealed" text,
	"token_expires_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "submerchant_provider_accounts_submerchant_id_processor_pk" PRIMARY KEY("submerchant_id","processor")
);
--> statement-breakpoint
ALTER TABLE "connect_settings" ALTER COLUMN "default_split" SET DEFAULT '[]'::jsonb;--> statement-breakpoint
ALTER TABLE "charges" ADD COLUMN "settlement" text DEFAULT 'platform' NOT NULL;--> statement-breakpoint
ALTER TABLE "connect_settings" ADD COLUMN "settlement" text DEFAULT 'platform' NOT NULL;--> statement-breakpoint
ALTER TABLE "submerchant_provider_accounts" ADD CONSTRAINT "submerchant_provider_accounts_submerchant_id_submerchants_id_fk" FOREIGN KEY ("submerchant_id") REFERENCES "public"."submerchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "submerchant_provider_accounts_parent_idx" ON "submerchant_provider_accounts" USING btree ("parent_id","environment");--> statement-breakpoint
CREATE UNIQUE INDEX "submerchant_provider_accounts_nonce_uq" ON "submerchant_provider_accounts" USING btree ("state_nonce");