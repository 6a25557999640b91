-- Running balances (issue 12, target 6): GET /v1/balance and the payout check summed every ledger
-- entry of the owner (a Seq Scan of 7.5 M entries, 1.4 s at 5 M charges). The rollup job
-- (ledger.repo.ts rollUpEntries) marks entries rolled_up and adds them to ledger_rollups in one
-- statement; a balance is the rollup row plus the entries not rolled up yet, read through the
-- partial index. Existing entries start as not rolled up: balances are right at once, and the
-- job works through them after the deploy.
--
-- ADD COLUMN with a constant default is instant (PostgreSQL 11+, no rewrite). The partial index
-- holds every entry until the job has rolled them up, and CREATE INDEX blocks writes to
-- ledger_entries while it builds (about as long as ledger_entries_owner_idx: 21-30 s on 7.5 M
-- entries, bench/RESULTS.md). On a large database run these two first, each on its own (outside
-- a transaction), while writes go on; IF NOT EXISTS then makes the statements below no-ops:
--   ALTER TABLE ledger_entries ADD COLUMN IF NOT EXISTS rolled_up boolean DEFAULT false NOT NULL;
--   CREATE INDEX CONCURRENTLY IF NOT EXISTS ledger_entries_unrolled_idx ON ledger_entries (owner, environment) WHERE NOT rolled_up;
-- After the job has worked through the existing entries, VACUUM ledger_entries: every entry was
-- updated once, and the partial index keeps their old versions until then.
CREATE TABLE "ledger_rollups" (
	"owner" text NOT NULL,
	"environment" text NOT NULL,
	"currency" text NOT NULL,
	"account" text NOT NULL,
	"amount" bigint NOT NULL,
	CONSTRAINT "ledger_rollups_owner_environment_currency_account_pk" PRIMARY KEY("owner","environment","currency","account")
);
--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD COLUMN IF NOT EXISTS "rolled_up" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ledger_entries_unrolled_idx" ON "ledger_entries" USING btree ("owner","environment") WHERE not "ledger_entries"."rolled_up";
