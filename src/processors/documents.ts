import { isDocumentType, normalizeDocument, type DocumentType } from "../lib/documents.js";
import type { CustomerInput, PaymentMethodType } from "./processor.js";

// What a provider takes of the buyer's identity document. Each adapter declares its own table
// (its folder's documents.ts); these two functions are the only readers,
// so "what document goes to provider X" and "which charge it refuses" are decided in one place
// and agree: a document is sent exactly when the check lets the charge through with it.

export interface DocumentRules<Wire extends string> {
  /** The processor's name, as the 422 message names it. */
  processor: string;
  /** feira's document types the provider takes, each with the provider's name for it. */
  types: Readonly<Partial<Record<DocumentType, Wire>>>;
  /**
   * The methods whose payment the provider refuses without the buyer's document, and the types
   * that serve each (a subset of `types`). A method not listed takes the charge without one.
   */
  needs: Readonly<Partial<Record<PaymentMethodType, readonly DocumentType[]>>>;
}

export interface ProviderDocument<Wire extends string> {
  type: Wire;
  /** As stored: a CPF's 11 digits, a CNPJ's 14 characters (letters upper case), a passport as typed. */
  number: string;
  kind: DocumentType;
}

/**
 * The buyer's document as the provider takes it, or null when there is none or its type is not
 * one the provider takes (then it is left out of the request). The number is normalized again
 * with the rule that validated it, so an inline document typed with its mask (12.ABC.345/01DE-35)
 * reaches the provider as stored (12ABC34501DE35), never stripped of its letters.
 */
export function providerDocument<Wire extends string>(rules: DocumentRules<Wire>, customer: CustomerInput | null): ProviderDocument<Wire> | null {
  const kind = customer?.documentType;
  if (!customer?.documentId || !isDocumentType(kind)) return null;
  const type = rules.types[kind];
  if (!type) return null;
  const normalized = normalizeDocument(kind, customer.documentId);
  return normalized.ok ? { type, number: normalized.value, kind } : null;
}

/**
 * Why this provider would refuse the method for this buyer's document, as a message naming
 * `customer.document` (answered 422 before any provider call), or null.
 */
export function documentProblem<Wire extends string>(rules: DocumentRules<Wire>, method: PaymentMethodType, customer: CustomerInput | null): string | null {
  const serving = rules.needs[method];
  if (!serving) return null;
  const sent = providerDocument(rules, customer);
  if (sent && serving.includes(sent.kind)) return null;
  const wanted = serving.map((k) => k.toUpperCase()).join(" or ");
  const given = customer?.documentId ? customer.documentType : null;
  return given
    ? `customer.document of type ${given} cannot pay a ${method} through ${rules.processor}, which needs a ${wanted}`
    : `customer.document is required for a ${method} through ${rules.processor} (a ${wanted})`;
}
