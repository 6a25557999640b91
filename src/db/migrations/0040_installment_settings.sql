CREATE TABLE "installment_settings" (
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"max_installments" integer NOT NULL,
	"interest_free_installments" integer NOT NULL,
	"monthly_interest_basis_points" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "installment_settings_merchant_id_environment_pk" PRIMARY KEY("merchant_id","environment")
);
--> statement-breakpoint
ALTER TABLE "charges" ADD COLUMN "total_amount" bigint;--> statement-breakpoint
ALTER TABLE "charges" ADD COLUMN "installment_amount" bigint;--> statement-breakpoint
ALTER TABLE "installment_settings" ADD CONSTRAINT "installment_settings_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;