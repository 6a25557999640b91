import { and, asc, desc, eq, inArray, sql, type AnyColumn, type SQL } from "drizzle-orm";

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
export function inScopeSql(scope: Scope, owner: "merchant_id" | "owner" = "merchant_id", alias?: "s" | "c" | "p" | "d"): SQL {
  const prefix = alias ? `${alias}.` : "";
  return sql`${sql.raw(prefix + owner)} = ${scope.merchantId} and ${sql.raw(prefix)}environment = ${scope.environment}`;
}

/**
 * One scope's rows in the order of its index on (owner, environment, id), newest or oldest first,
 * from an id onward (`from` excluded; absent: from the newest or the oldest). For a list that
 * reads the whole scope. The owner is an equality; environment and id are row comparisons, so
 * that the order by `environment, id` keeps both keys and only the scope index delivers it. With
 * inScope instead, PostgreSQL drops the keys its equalities fix, `order by id` is left, and the
 * primary key delivers that too: a plan it takes for a merchant owning a large share of the
 * table with the oldest ids, which then reads every other merchant's newer rows first (150 ms at
 * 5,000,000 customers, bench/RESULTS.md). Both ends of the scan fall on the environment column,
 * the first of the row comparisons, where a B-tree scan stops; a bound decided by the id (a
 * second cursor) would only filter, so the caller applies a second bound to the rows read.
 */
export function inScopeOrdered(
  columns: ScopeColumns & { id: AnyColumn }, scope: Scope, opts: { direction: "asc" | "desc"; from?: string },
): { where: SQL; orderBy: SQL[] } {
  const { merchantId, environment, id } = columns;
  const e = scope.environment;
  // (environment, id) > (e, '') and environment <= e: exactly environment = e, ids being non-empty.
  const lower = opts.direction === "asc" && opts.from !== undefined ? opts.from : "";
  const upper = opts.direction === "desc" && opts.from !== undefined
    ? sql`(${environment}, ${id}) < (${e}, ${opts.from})`
    : sql`${environment} <= ${e}`;
  const by = opts.direction === "asc" ? asc : desc;
  return {
    where: and(eq(merchantId, scope.merchantId), sql`(${environment}, ${id}) > (${e}, ${lower})`, upper)!,
    orderBy: [by(environment), by(id)],
  };
}

/** Several merchants of one environment (a master's submerchants, a split's recipients). */
export function inScopes(columns: ScopeColumns, merchantIds: string[], environment: Environment): SQL {
  return and(inArray(columns.merchantId, merchantIds), eq(columns.environment, environment))!;
}

/** The scope part of a request context (or any object carrying one), as a plain value. */
export function scopeOf(s: Scope): Scope {
  return { merchantId: s.merchantId, environment: s.environment };
}
