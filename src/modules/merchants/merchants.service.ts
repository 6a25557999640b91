import { randomUUID } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";
import { sql, withTx, type Db, type Queryable } from "../../db/client.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import { canonicalTimeZone } from "../../lib/calendar.js";
import type { Authenticator, Environment, KeyPrincipal, Scope } from "../../core/context.js";
import { safeEqual, sha256Hex, type Sealer } from "../../lib/crypto.js";
import { newId, randomToken } from "../../lib/ids.js";
import type { FeeDefinition } from "../ledger/index.js";
import { DEFAULT_INSTALLMENT_TERMS, type InstallmentTerms } from "../../lib/price-table.js";
import * as repo from "./merchants.repo.js";
import { createConfigChanges, createTtlCache, type ConfigChanges } from "../../db/config-changes.js";

export interface MerchantServiceDeps {
  db: Db;
  sealer: Sealer;
  /** ADMIN_API_KEY from the configuration, when set; otherwise keys live in admin_keys. */
  adminApiKey: string | undefined;
  /** Keys, a merchant's row and fees are cached per process; changes are announced here. */
  configChanges?: ConfigChanges;
}

export interface CreateMerchantInput {
  name: string;
  email: string;
  password: string;
  connectEnabled?: boolean;
  pixKey?: string;
  city?: string;
}

/** A merchant's new keys; null for an environment it does not exist in (a submerchant's other one). */
export type ApiKeyPair = { sandbox: string | null; production: string | null };

const KEY_PREFIX: Record<Environment, string> = { sandbox: "sk_test_", production: "sk_live_" };
// Verified against when the e-mail is unknown, so that login takes the same time either way.
const DUMMY_HASH = hash("feira-timing-equalizer");

export function publicMerchant(m: repo.MerchantRow) {
  return {
    id: m.id,
    name: m.name,
    email: m.email,
    status: m.status,
    connectEnabled: m.connectEnabled,
    parentId: m.parentId,
    createdAt: m.createdAt.toISOString(),
  };
}

export function profileOf(m: repo.MerchantRow) {
  return { ...publicMerchant(m), softDescriptor: m.softDescriptor, timezone: m.timezone, updatedAt: m.updatedAt.toISOString() };
}

export function createMerchantService(deps: MerchantServiceDeps) {
  const { db, sealer } = deps;
  const configChanges = deps.configChanges ?? createConfigChanges();

  /** One key per environment given (a submerchant exists, and so has a key, in one only). */
  async function issueKey(tx: Queryable, merchantId: string, environment: Environment): Promise<string> {
    const key = KEY_PREFIX[environment] + randomToken(32);
    await repo.insertApiKey(tx, {
      id: newId("key"),
      merchantId,
      environment,
      keyHash: sha256Hex(key),
      keySealed: sealer.seal(key, `apikey:${merchantId}`),
      last4: key.slice(-4),
    });
    return key;
  }

  async function issueKeys(tx: Queryable, merchantId: string, environments: readonly Environment[]): Promise<ApiKeyPair> {
    const out: ApiKeyPair = { sandbox: null, production: null };
    for (const environment of environments) out[environment] = await issueKey(tx, merchantId, environment);
    return out;
  }

  async function createMerchant(input: CreateMerchantInput, parentId: string | null = null) {
    const email = input.email.trim().toLowerCase();
    const passwordHash = await hash(input.password);
    return withTx(db, async (tx) => {
      const merchant = await repo.insertMerchant(tx, {
        id: newId("mer"),
        name: input.name,
        email,
        passwordHash,
        connectEnabled: input.connectEnabled ?? false,
        parentId,
        pixKey: input.pixKey ?? randomUUID(),
        city: input.city ?? "SAO PAULO",
      });
      if (!merchant) throw new AppError("conflict", `A merchant with email ${email} already exists`);
      const apiKeys = { sandbox: await issueKey(tx, merchant.id, "sandbox"), production: await issueKey(tx, merchant.id, "production") };
      return { ...publicMerchant(merchant), apiKeys };
    });
  }

  /**
   * A submerchant's account (Connect), in the caller's transaction: a merchant row linked to
   * its master, with no login (login refuses accounts with a parent), its own key of the
   * environment that registered it (it exists in no other), and copies of the master's fee definitions as its own rows, so later
   * changes to the master's fees do not alter it.
   */
  async function createSubmerchantAccount(tx: Queryable, input: { id: string; parentId: string; environment: Environment; name: string; pixKey: string }) {
    const parent = await repo.findMerchant(tx, input.parentId);
    if (!parent) throw notFound("Merchant", input.parentId);
    const merchant = await repo.insertMerchant(tx, {
      id: input.id,
      name: input.name,
      // Unique and never a deliverable address: the account has no login.
      email: `${input.id}@submerchants.invalid`,
      passwordHash: "!",
      connectEnabled: false,
      parentId: parent.id,
      pixKey: input.pixKey,
      city: parent.city,
    });
    if (!merchant) throw new AppError("conflict", `Merchant ${input.id} already exists`);
    await issueKey(tx, merchant.id, input.environment);
    const now = Date.now();
    const inherited = await repo.listFees(tx, parent.id);
    await repo.replaceFees(tx, merchant.id, inherited.map((f, i) => ({
      id: newId("fee", now + i), merchantId: merchant.id, feeType: f.feeType, paymentMethod: f.paymentMethod,
      currencyCode: f.currencyCode, brand: f.brand, definition: f.definition,
    })));
    return merchant;
  }

  /** New keys for the merchant, in every environment it has keys in, or in `only` (the panel rolls the one shown). */
  async function rotateKeys(merchantId: string, only?: Environment) {
    return configChanges.change(db, async (tx) => {
      if (!(await repo.findMerchant(tx, merchantId))) throw notFound("Merchant", merchantId);
      // Every merchant was given a key in each environment it exists in, so the environments
      // of its keys, revoked ones included, are where it gets new ones.
      const environments = (await repo.keyEnvironments(tx, merchantId)).filter((e) => !only || e === only);
      await repo.revokeApiKeys(tx, merchantId, new Date(), environments);
      return { id: merchantId, apiKeys: await issueKeys(tx, merchantId, environments) };
    });
  }

  /**
   * Full keys of one environment, for the Connect api-keys endpoint (a master reading its
   * submerchant's keys): a key of the other environment is never read, let alone opened.
   */
  async function revealKeys(scope: Scope): Promise<{ id: string; environment: Environment; key: string; createdAt: string }[]> {
    const rows = await repo.activeApiKeys(db, scope);
    return rows.map((r) => ({
      id: r.id,
      environment: r.environment,
      key: sealer.open(r.keySealed, `apikey:${scope.merchantId}`),
      createdAt: r.createdAt.toISOString(),
    }));
  }

  async function updateMerchant(merchantId: string, patch: { connectEnabled?: boolean; status?: "active" | "inactive" | "blocked" }) {
    return publicMerchant(await applyPatch(merchantId, patch));
  }

  /**
   * The merchant's own profile (PATCH /v1/merchant, the panel's Settings): its name, default
   * soft descriptor and time zone, one row shared by both environments. Card charges send the
   * descriptor to the live processors (statementDescriptor()). The zone is checked against the runtime's
   * IANA database (Intl) and stored by its canonical name.
   */
  async function updateProfile(merchantId: string, patch: { name?: string; softDescriptor?: string | null; timezone?: string }) {
    const timezone = patch.timezone === undefined ? undefined : canonicalTimeZone(patch.timezone.trim());
    if (timezone === null) throw invalid(`timezone: ${JSON.stringify(patch.timezone)} is not an IANA time zone, such as America/Sao_Paulo`);
    return profileOf(await applyPatch(merchantId, { ...patch, ...(patch.name !== undefined ? { name: patch.name.trim() } : {}), ...(timezone ? { timezone } : {}) }));
  }

  async function getProfile(merchantId: string) {
    return profileOf(await getMerchant(merchantId));
  }

  async function applyPatch(merchantId: string, patch: Partial<Pick<repo.MerchantRow, "connectEnabled" | "status" | "name" | "softDescriptor" | "timezone">>) {
    // A key lookup carries its merchant's status; the charge profile its Connect flag.
    const row = await configChanges.change(db, async (tx) => {
      const updated = await repo.updateMerchant(tx, merchantId, patch);
      if (!updated) throw notFound("Merchant", merchantId);
      return updated;
    });
    return row;
  }

  async function getMerchant(merchantId: string) {
    const row = await repo.findMerchant(db, merchantId);
    if (!row) throw notFound("Merchant", merchantId);
    return row;
  }

  async function setFees(merchantId: string, defs: FeeDefinition[]): Promise<FeeDefinition[]> {
    const seen = new Set<string>();
    for (const [i, f] of defs.entries()) {
      const k = [f.feeType, f.paymentMethod, f.currencyCode, f.brand ?? ""].join("|").toLowerCase();
      if (seen.has(k)) throw new AppError("validation_failed", `fees.${i} repeats feeType, paymentMethod, currencyCode and brand of an earlier fee`);
      seen.add(k);
    }
    // Ids one millisecond apart, in the request's order: fees are read back ORDER BY id, and
    // ids made within one millisecond would otherwise sort by their random part.
    const now = Date.now();
    await configChanges.change(db, async (tx) => {
      if (!(await repo.findMerchant(tx, merchantId))) throw notFound("Merchant", merchantId);
      await repo.replaceFees(tx, merchantId, defs.map((f, i) => ({
        id: newId("fee", now + i),
        merchantId,
        feeType: f.feeType,
        paymentMethod: f.paymentMethod,
        currencyCode: f.currencyCode.toUpperCase(),
        brand: f.brand ? f.brand.toLowerCase() : null,
        definition: f.definition,
      })));
    });
    return getFees(merchantId);
  }

  async function getFees(merchantId: string): Promise<FeeDefinition[]> {
    const rows = await repo.listFees(db, merchantId);
    return rows.map((r) => ({
      feeType: r.feeType as FeeDefinition["feeType"],
      paymentMethod: r.paymentMethod,
      currencyCode: r.currencyCode,
      brand: r.brand,
      definition: r.definition,
    }));
  }

  /** Checks e-mail and password; returns the merchant id or throws 401. */
  async function login(email: string, password: string): Promise<string> {
    const found = await repo.findMerchantByEmail(db, email.trim().toLowerCase());
    // Submerchants have no login; they answer like an unknown e-mail, in the same time.
    const merchant = found?.parentId ? undefined : found;
    const ok = await verify(merchant?.passwordHash ?? (await DUMMY_HASH), password);
    if (!merchant || !ok) throw new AppError("unauthorized", "Unauthorized");
    if (merchant.status !== "active") throw new AppError("forbidden", "Forbidden: the merchant account is not active");
    return merchant.id;
  }

  const keyCache = createTtlCache<KeyPrincipal>();
  const profiles = createTtlCache<ChargeProfile>();
  configChanges.onForget(() => {
    keyCache.clear();
    profiles.clear();
  });

  /**
   * What a charge needs of its merchant (the row for the processor, the fees), cached for a few
   * seconds: read on every charge, changed by an admin now and then (configChanges forgets it).
   */
  async function chargeProfile(merchantId: string) {
    const found = await profiles.get(merchantId, async () => {
      const found = await repo.findMerchantForCharge(db, merchantId);
      return found ? { merchant: found.merchant, installments: termsByEnvironment(found.installments), fees: await getFees(merchantId) } : null;
    });
    if (!found) throw notFound("Merchant", merchantId);
    return found;
  }

  /** PUT /v1/settings/installments: every process forgets the profile it kept (configChanges). */
  async function setInstallmentTerms(scope: Scope, terms: InstallmentTerms): Promise<void> {
    await configChanges.change(db, (tx) => repo.upsertInstallmentSettings(tx, { merchantId: scope.merchantId, environment: scope.environment, ...terms }));
  }

  const authenticator: Authenticator = {
    async findKey(key) {
      if (!key.startsWith("sk_test_") && !key.startsWith("sk_live_")) return null;
      const keyHash = sha256Hex(key);
      // A key of a merchant that is not active is answered 403 and not kept: reactivated, it works
      // at once in every process.
      return keyCache.get(keyHash, async () => {
        const row = await repo.findKeyPrincipal(db, keyHash);
        return row ? { ...row, environment: row.environment as Environment } : null;
      }, (principal) => principal.merchantStatus === "active");
    },
    async isAdminKey(key) {
      if (deps.adminApiKey) return safeEqual(sha256Hex(key), sha256Hex(deps.adminApiKey));
      return Boolean(await repo.findAdminKey(db, sha256Hex(key)));
    },
    async merchantStatus(merchantId) {
      return (await repo.findMerchant(db, merchantId))?.status ?? null;
    },
  };

  /**
   * First start on an empty database: an admin key when ADMIN_API_KEY is unset (stored
   * hashed, shown once) and, outside production, a demo merchant with its login and keys.
   */
  async function bootstrap(opts: { demoMerchant: boolean }) {
    const out: { adminKey?: string; demo?: { email: string; password: string; sandboxKey: string; merchantId: string } } = {};
    if (!deps.adminApiKey) {
      // Processes started together on a fresh database would each count no key and each make
      // (and print) one: the count and the insert hold one transaction-scoped advisory lock.
      const key = await withTx(db, async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('feira_admin_key_bootstrap'))`);
        if ((await repo.countAdminKeys(tx)) > 0) return undefined;
        const made = "adm_" + randomToken(40);
        await repo.insertAdminKey(tx, { id: newId("adm"), keyHash: sha256Hex(made) });
        return made;
      });
      if (key) out.adminKey = key;
    }
    if (opts.demoMerchant && (await repo.countMerchants(db)) === 0) {
      const password = randomToken(16);
      try {
        const created = await createMerchant({ name: "Loja Demo", email: "demo@feira.dev", password, connectEnabled: true });
        out.demo = { email: created.email, password, sandboxKey: created.apiKeys.sandbox, merchantId: created.id };
      } catch (err) {
        // API processes started together on a fresh database all count no merchant; the first
        // makes (and prints) the demo merchant, the others must start without it, not die.
        if (!(err instanceof AppError && err.code === "conflict")) throw err;
      }
    }
    return out;
  }

  return {
    createMerchant, createSubmerchantAccount, rotateKeys, revealKeys, updateMerchant, updateProfile, getProfile, getMerchant, chargeProfile, setInstallmentTerms, setFees, getFees, login, authenticator, bootstrap,
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;

/** What a charge needs of its merchant, kept a few seconds per process. */
export interface ChargeProfile {
  merchant: repo.MerchantRow;
  /** The card installments buyers may choose in each environment (the default where none is set). */
  installments: Record<Environment, InstallmentTerms>;
  fees: FeeDefinition[];
}

function termsByEnvironment(rows: readonly repo.StoredInstallmentTerms[]): Record<Environment, InstallmentTerms> {
  const of = (environment: Environment): InstallmentTerms => {
    const row = rows.find((r) => r.environment === environment);
    return row
      ? { maxInstallments: row.maxInstallments, interestFreeInstallments: row.interestFreeInstallments, monthlyInterestBasisPoints: row.monthlyInterestBasisPoints }
      : DEFAULT_INSTALLMENT_TERMS;
  };
  return { sandbox: of("sandbox"), production: of("production") };
}
