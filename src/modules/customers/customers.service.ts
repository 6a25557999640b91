import type { Statement } from "../../db/batch.js";
import type { Db, Queryable } from "../../db/client.js";
import { invalid, notFound } from "../../core/errors.js";
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

  async function get(ctx: RequestCtx, id: string) {
    const row = await repo.findCustomer(db, ctx, id);
    if (!row) throw notFound("Customer", id);
    return row;
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
    const row = { ...fresh, createdAt: at, updatedAt: at };
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

  return { create, get, getMany, list, resolveForCharge, inlineForCharge, validateInline };
}

export type CustomerService = ReturnType<typeof createCustomerService>;
