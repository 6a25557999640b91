import type { Statement } from "../../db/batch.js";
import { withTx, type Db, type Queryable } from "../../db/client.js";
import type { Scope } from "../../db/scope.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import type { RequestCtx } from "../../core/context.js";
import type { PageQuery } from "../../db/pagination.js";
import { normalizeDocument } from "../../lib/documents.js";
import { newId } from "../../lib/ids.js";
import type { ChargeBuyer } from "../../db/schema.js";
import * as repo from "./customers.repo.js";
import { readForList } from "../../db/replica.js";

export type { CustomerRow } from "./customers.repo.js";
type CustomerRow = repo.CustomerRow;

export type DocumentKind = "cpf" | "cnpj" | "passport" | "rg";

/** A partial update: each field given replaces the stored one; `phone: null` removes it. */
export interface CustomerPatch {
  name?: string;
  email?: string;
  phone?: string | null;
  documentType?: DocumentKind;
  documentId?: string;
}

export interface CustomerInput {
  name: string;
  email?: string;
  phone?: string;
  document?: { type: DocumentKind; id: string };
  address?: Record<string, unknown>;
}

export function toCustomer(row: repo.CustomerRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    documentType: row.documentType,
    documentId: row.documentId,
    phoneNumber: row.phone,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * A phone as its digits, with the leading + when typed: "+55 (11) 91234-5678" and
 * "+5511912345678" are one buyer's phone, found again by it (contactLookup).
 */
const canonicalPhone = (raw: string) => `${raw.trim().startsWith("+") ? "+" : ""}${raw.replace(/\D/g, "")}`;

/** Checks and canonicalizes a document (CPF/CNPJ digits); `field` names it in the error. */
function checkDocument(doc: CustomerInput["document"], field: string) {
  if (!doc) return undefined;
  const result = normalizeDocument(doc.type, doc.id);
  if (!result.ok) throw invalid(result.message.replace(/^documentId/, field));
  return { type: doc.type, id: result.value };
}

export function createCustomerService(deps: { db: Db }) {
  const { db } = deps;

  function rowFor(ctx: RequestCtx, input: CustomerInput, field: string) {
    const document = checkDocument(input.document, field);
    return {
      id: newId("cus"),
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      name: input.name.trim(),
      email: input.email?.trim().toLowerCase() ?? null,
      phone: input.phone ? canonicalPhone(input.phone) : null,
      documentType: document?.type ?? null,
      documentId: document?.id ?? null,
      address: input.address ?? null,
    };
  }

  async function create(ctx: RequestCtx, input: CustomerInput) {
    return repo.insertCustomer(db, rowFor(ctx, input, "documentId"));
  }

  /** A customer of this scope; a deleted one only with `deleted` (a charge's view names its buyer). */
  async function get(ctx: RequestCtx, id: string, opts: { deleted?: boolean } = {}) {
    const row = await repo.findCustomer(db, ctx, id, opts);
    if (!row) throw notFound("Customer", id);
    return row;
  }

  /**
   * The customer an existing charge or subscription names, deleted or not: its events, refunds
   * and disputes still show the buyer after the merchant deleted the customer.
   */
  async function named(q: Queryable, scope: Scope, id: string) {
    const row = await repo.findCustomer(q, scope, id, { deleted: true });
    if (!row) throw notFound("Customer", id);
    return row;
  }

  /**
   * Updates the fields given, checked as on create. A document is checked whole: a new number
   * with the stored type, a new type with the stored number, or both.
   */
  async function update(ctx: RequestCtx, id: string, patch: CustomerPatch) {
    const row = await get(ctx, id);
    const set: Partial<CustomerRow> = {};
    if (patch.name !== undefined) set.name = patch.name.trim();
    if (patch.email !== undefined) set.email = patch.email.trim().toLowerCase();
    if (patch.phone !== undefined) set.phone = patch.phone === null ? null : canonicalPhone(patch.phone);
    if (patch.documentType !== undefined || patch.documentId !== undefined) {
      const type = patch.documentType ?? (row.documentType as DocumentKind | null);
      const number = patch.documentId ?? row.documentId;
      if (!type || !number) throw invalid("documentId and documentType: this customer has no document; give both");
      const document = checkDocument({ type, id: number }, "documentId")!;
      set.documentType = document.type;
      set.documentId = document.id;
    }
    if (Object.keys(set).length === 0) return row;
    const updated = await repo.updateCustomer(db, ctx, id, set);
    if (!updated) throw notFound("Customer", id); // deleted meanwhile
    return updated;
  }

  /**
   * Deletes a customer nothing still needs: not one with a charge awaiting payment or a
   * subscription that may bill again (its saved card is in use). The row stays, marked, for the
   * charges that name it (docs/decisions.md, "Deleting a customer"); its saved cards go.
   */
  async function remove(ctx: RequestCtx, id: string): Promise<{ id: string; deleted: true }> {
    await withTx(db, async (tx) => {
      if (!(await repo.lockCustomer(tx, ctx, id))) throw notFound("Customer", id);
      const used = await repo.customerInUse(tx, ctx, id);
      const reasons = [
        used.charges.length ? `charges awaiting payment (${used.charges.join(", ")})` : "",
        used.subscriptions.length ? `subscriptions that may still bill it (${used.subscriptions.join(", ")})` : "",
      ].filter(Boolean);
      if (reasons.length) {
        throw new AppError("conflict", `Customer ${id} is still needed by ${reasons.join(" and ")}: let the charges finish or fail, and cancel the subscriptions, before deleting it`);
      }
      await repo.markDeleted(tx, ctx, id);
    });
    return { id, deleted: true };
  }

  /**
   * The customer of a charge: an existing id (404 when it is not this merchant's), or the
   * inline data, matched to an earlier customer by e-mail, else phone, before creating one.
   */
  async function resolveForCharge(tx: Queryable, ctx: RequestCtx, input: { id?: string } & Partial<CustomerInput>) {
    if (input.id) {
      const row = await repo.findCustomer(tx, ctx, input.id);
      if (!row) throw notFound("Customer", input.id);
      return row;
    }
    const { found, fresh } = await matchInline(tx, ctx, input);
    return found ?? repo.insertCustomer(tx, fresh);
  }

  /**
   * A charge's inline customer: the earlier one with that e-mail (else phone), or a new one whose
   * INSERT (`write`) the charge path commits in the charge's own statement, so that a customer
   * is created only with a charge that names it, and without a commit of its own. `buyer` is the
   * customer as typed on this charge, which the charge keeps: an earlier customer found by its
   * e-mail keeps the name it was first saved with, and this charge shows the name typed now.
   */
  async function inlineForCharge(q: Queryable, ctx: RequestCtx, input: Partial<CustomerInput>, at: Date): Promise<{ row: CustomerRow; write?: Statement; buyer: ChargeBuyer }> {
    const { found, fresh } = await matchInline(q, ctx, input);
    const buyer = { name: fresh.name, email: fresh.email, phone: fresh.phone, documentType: fresh.documentType, documentId: fresh.documentId };
    if (found) return { row: found, buyer };
    const row = { ...fresh, createdAt: at, updatedAt: at, deletedAt: null };
    return { row, write: repo.customerInsert(row), buyer };
  }

  async function matchInline(q: Queryable, ctx: RequestCtx, input: Partial<CustomerInput>) {
    const fresh = rowFor(ctx, { name: input.name ?? "", ...input }, "customer.document.id");
    const found = await repo.findCustomerByContact(q, ctx, fresh);
    return { found, fresh };
  }

  /** The customers of these ids (a page of charges' buyers), by id; an unknown id is absent. */
  async function getMany(ctx: RequestCtx, ids: string[]) {
    const rows = await repo.findCustomers(db, ctx, [...new Set(ids)]);
    return new Map(rows.map((r) => [r.id, toCustomer(r)]));
  }

  async function list(ctx: RequestCtx, query: PageQuery & { email?: string; documentId?: string }) {
    const page = await readForList(db, ctx, (q) => repo.listCustomers(q, ctx, query));
    return { data: page.data.map(toCustomer), hasMore: page.hasMore };
  }

  /** Checks inline customer data before any payment is attempted. */
  function validateInline(input: Partial<CustomerInput>) {
    checkDocument(input.document, "customer.document.id");
  }

  return { create, get, named, update, remove, getMany, list, resolveForCharge, inlineForCharge, validateInline };
}

export type CustomerService = ReturnType<typeof createCustomerService>;
