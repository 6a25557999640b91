-- A submerchant belongs to the environment of the key that registered it (issue 22): it keeps
-- only that environment's key, and its CNPJ is unique per master and environment.
-- A submerchant registered before this change stays in the environment that registered it: its
-- key of the other environment is revoked here, so that key stops working and is never shown
-- again. What that key created (charges, ledger entries) stays in the database, since the ledger
-- is never rewritten, but no key reaches it any more.
DROP INDEX IF EXISTS "submerchants_tax_id_uq";--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "submerchants_tax_id_env_uq" ON "submerchants" USING btree ("parent_id","environment","company_tax_id");--> statement-breakpoint
UPDATE "api_keys" k SET "revoked_at" = now()
  FROM "submerchants" s
  WHERE s."id" = k."merchant_id" AND k."environment" <> s."environment" AND k."revoked_at" IS NULL;
