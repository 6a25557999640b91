-- ledger_entries_account_idx (owner, environment, currency, account) served the balance sums,
-- which read ledger_rollups and the partial index ledger_entries_unrolled_idx since 0009; no
-- query uses it any more, and every posting (two to four entries per paid charge) paid for its
-- upkeep. Dropping it takes a brief exclusive lock; `DROP INDEX CONCURRENTLY IF EXISTS
-- ledger_entries_account_idx;` run first, outside a transaction, makes this a no-op.
DROP INDEX IF EXISTS "ledger_entries_account_idx";
