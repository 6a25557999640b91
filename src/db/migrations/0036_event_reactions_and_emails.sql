CREATE TABLE "event_reactions" (
	"id" text PRIMARY KEY NOT NULL,
	"event_id" text NOT NULL,
	"subscriber" text NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "emails" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"charge_id" text NOT NULL,
	"kind" text NOT NULL,
	"to_address" text NOT NULL,
	"from_name" text NOT NULL,
	"subject" text NOT NULL,
	"text_body" text NOT NULL,
	"html_body" text NOT NULL,
	"message_id" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_settings" (
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"receipts" boolean DEFAULT true NOT NULL,
	"reminder_days_before" integer,
	"overdue" boolean DEFAULT false NOT NULL,
	"language" text DEFAULT 'pt-BR' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_settings_merchant_id_environment_pk" PRIMARY KEY("merchant_id","environment")
);
--> statement-breakpoint
CREATE INDEX "event_reactions_due_idx" ON "event_reactions" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE UNIQUE INDEX "event_reactions_event_subscriber_idx" ON "event_reactions" USING btree ("event_id","subscriber");--> statement-breakpoint
CREATE UNIQUE INDEX "emails_charge_kind_idx" ON "emails" USING btree ("charge_id","kind");--> statement-breakpoint
CREATE INDEX "emails_scope_idx" ON "emails" USING btree ("merchant_id","environment","id");--> statement-breakpoint
CREATE INDEX "emails_due_idx" ON "emails" USING btree ("status","next_attempt_at");