-- The panel's sessions, so that signing out ends one on the server (src/db/schema/core.ts). New
-- code finds no row for a cookie signed before it: everyone signs in once again after the upgrade.
CREATE TABLE "panel_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "panel_sessions" ADD CONSTRAINT "panel_sessions_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "panel_sessions_expires_idx" ON "panel_sessions" USING btree ("expires_at");