-- Disputes: the dispute and its sealed evidence files, what a charge's
-- disputes took from the balance (charges.amount_disputed), and a dispute's hold and return posted
-- once each (ledger_tx_once_idx).
CREATE TABLE "dispute_files" (
	"id" text PRIMARY KEY NOT NULL,
	"dispute_id" text NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"content_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "disputes" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"charge_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"reason" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"held" bigint DEFAULT 0 NOT NULL,
	"evidence_due_by" timestamp with time zone NOT NULL,
	"evidence" jsonb,
	"processor" text NOT NULL,
	"dispute_ref" text,
	"submitted_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "ledger_tx_once_idx";--> statement-breakpoint
ALTER TABLE "charges" ADD COLUMN "amount_disputed" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "dispute_files" ADD CONSTRAINT "dispute_files_dispute_id_disputes_id_fk" FOREIGN KEY ("dispute_id") REFERENCES "public"."disputes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dispute_files_dispute_idx" ON "dispute_files" USING btree ("dispute_id");--> statement-breakpoint
CREATE INDEX "disputes_scope_idx" ON "disputes" USING btree ("merchant_id","environment","id");--> statement-breakpoint
CREATE INDEX "disputes_charge_idx" ON "disputes" USING btree ("charge_id");--> statement-breakpoint
CREATE INDEX "disputes_due_idx" ON "disputes" USING btree ("evidence_due_by") WHERE "disputes"."status" = 'needs_response';--> statement-breakpoint
CREATE UNIQUE INDEX "disputes_ref_uq" ON "disputes" USING btree ("processor","dispute_ref");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_tx_once_idx" ON "ledger_transactions" USING btree ("type","source_id") WHERE "ledger_transactions"."type" in ('chargeback', 'late_payment', 'late_payment_refund', 'dispute', 'dispute_won');