ALTER TABLE "settlements" ADD COLUMN "held_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "submerchants" ADD COLUMN "hold_days" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "settlements_held_until_idx" ON "settlements" USING btree ("held_until") WHERE "settlements"."hold" = 'days';