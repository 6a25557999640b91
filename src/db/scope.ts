import { and, eq, inArray, sql, type AnyColumn, type SQL } from "drizzle-orm";

export type Environment = "sandbox" | "production";

/**
 * Whose data a query may touch: one merchant in one environment. Every repository function that
 * reads or writes an environment-scoped table takes a Scope and builds its filter with inScope,
 * so a query of such a table cannot be written without both halves (test/foundation/scope-rule
 * checks that no repository compares `environment` on its own). A request's ctx is a Scope; a
 * submerchant's registration is scoped by its master (parent_id) and the master's environment.
 */
export interface Scope {
  readonly merchantId: string;
  readonly environment: Environment;
}

/** The columns that hold a scope: the owner (merchant_id, owner or parent_id) and environment. */
export interface ScopeColumns {
  merchantId: AnyColumn;
  environment: AnyColumn;
}

export function inScope(columns: ScopeColumns, scope: Scope): SQL {
  return and(eq(columns.merchantId, scope.merchantId), eq(columns.environment, scope.environment))!;
}

/**
 * The same filter for a statement written as text: `<alias.><owner> = $1 and <alias.>environment
 * = $2`. The column names are the caller's constants, never input.
 */
export function inScopeSql(scope: Scope, owner: "merchant_id" | "owner" = "merchant_id", alias?: "s"): SQL {
  const prefix = alias ? `${alias}.` : "";
  return sql`${sql.raw(prefix + owner)} = ${scope.merchantId} and ${sql.raw(prefix)}environment = ${scope.environment}`;
}

/** Several merchants of one environment (a master's submerchants, a split's recipients). */
export function inScopes(columns: ScopeColumns, merchantIds: string[], environment: Environment): SQL {
  return and(inArray(columns.merchantId, merchantIds), eq(columns.environment, environment))!;
}

/** The scope part of a request context (or any object carrying one), as a plain value. */
export function scopeOf(s: Scope): Scope {
  return { merchantId: s.merchantId, environment: s.environment };
}
