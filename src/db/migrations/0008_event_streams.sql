CREATE TABLE "event_streams" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"environment" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "event_streams_scope_idx" ON "event_streams" USING btree ("merchant_id","environment");