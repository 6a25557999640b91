CREATE TABLE "provider_reconciliations" (
	"submerchant_id" text NOT NULL,
	"processor" text NOT NULL,
	"currency" text NOT NULL,
	"day" date NOT NULL,
	"parent_id" text NOT NULL,
	"environment" text NOT NULL,
	"feira_amount" bigint NOT NULL,
	"processor_amount" bigint NOT NULL,
	"status" text NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "provider_reconciliations_submerchant_id_processor_currency_day_pk" PRIMARY KEY("submerchant_id","processor","currency","day")
);
--> statement-breakpoint
CREATE INDEX "provider_reconciliations_parent_idx" ON "provider_reconciliations" USING btree ("parent_id","environment");