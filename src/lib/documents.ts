// Customer identity documents, normalized to the unmasked form that is stored and compared.
// CPF/CNPJ check digits come from @brazilian-utils (which also rejects the repeated-digit
// numbers that pass the arithmetic, e.g. 111.111.111-11).
import { isValidCpf } from "@brazilian-utils/brazilian-utils/is-valid-cpf";
import { isValidCnpj } from "@brazilian-utils/brazilian-utils/is-valid-cnpj";

export const DOCUMENT_TYPES = ["cpf", "cnpj", "passport", "rg"] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export const isDocumentType = (type: string | null | undefined): type is DocumentType =>
  (DOCUMENT_TYPES as readonly (string | null | undefined)[]).includes(type);

export type NormalizedDocument = { ok: true; value: string } | { ok: false; message: string };

const invalid = (what: string): NormalizedDocument => ({ ok: false, message: `documentId is not a valid ${what}` });

export function normalizeDocument(type: DocumentType, value: string): NormalizedDocument {
  const trimmed = value.trim();
  switch (type) {
    case "cpf": {
      const cpf = trimmed.replace(/[.-]/g, "");
      if (!/^\d{11}$/.test(cpf) || !isValidCpf(cpf)) return invalid("CPF");
      return { ok: true, value: cpf };
    }
    case "cnpj": {
      // Alphanumeric CNPJ (Receita Federal, from July 2026): 12 chars of [0-9A-Z], then two
      // numeric DVs. Version 2 of the library validates both this and the numeric form.
      const cnpj = trimmed.replace(/[./-]/g, "").toUpperCase();
      if (!/^[0-9A-Z]{12}\d{2}$/.test(cnpj) || !isValidCnpj(cnpj, { version: 2 })) return invalid("CNPJ");
      return { ok: true, value: cnpj };
    }
    case "passport": {
      if (!/^[A-Za-z0-9]{5,20}$/.test(trimmed)) return invalid("passport number (5 to 20 letters or digits)");
      return { ok: true, value: trimmed.toUpperCase() };
    }
    case "rg": {
      // RG formats differ by state; only the shape is checked. X appears only as the
      // final check digit (e.g. SP), so it is accepted only there.
      const rg = trimmed.replace(/[.-]/g, "").toUpperCase();
      if (!/^\d{4,13}[\dX]$/.test(rg)) return invalid("RG (5 to 14 digits, optionally ending in X)");
      return { ok: true, value: rg };
    }
    default: {
      const unknown: never = type;
      return { ok: false, message: `documentType ${String(unknown)} is not supported` };
    }
  }
}

/** 529.982.247-25 and 11.222.333/0001-81; other documents as given. */
export function formatDocument(type: string | null, id: string | null): string {
  if (!id) return "—";
  if (type === "cpf" && /^\d{11}$/.test(id)) return id.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, "$1.$2.$3-$4");
  if ((type === "cnpj" || type === null) && /^[0-9A-Z]{12}\d{2}$/.test(id)) return id.replace(/^(.{2})(.{3})(.{3})(.{4})(.{2})$/, "$1.$2.$3/$4-$5");
  return id;
}
