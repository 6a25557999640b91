import { createHash } from "node:crypto";
import { withTx, type Db } from "../../db/client.js";
import type { submerchantDocuments } from "../../db/schema.js";
import { invalid, notFound } from "../../core/errors.js";
import type { RequestCtx } from "../../core/context.js";
import type { Sealer } from "../../lib/crypto.js";
import { documentTypeOf } from "../../lib/file-content.js";
import { newId } from "../../lib/ids.js";
import * as repo from "./connect.repo.js";
import { DOCUMENT_KINDS, REQUIRED_DOCUMENTS, type DocumentKind } from "./connect.schemas.js";

// KYC documents of a submerchant. A file is accepted by what its bytes are (magic numbers), not
// by its name or declared type: PDF, JPEG or PNG. It is stored sealed (AES-256-GCM, the AAD
// naming the submerchant and the kind, so a sealed file copied to another row does not open),
// and only its metadata is listed; the master can download it explicitly.

const aad = (submerchantId: string, kind: string) => `kyc:${submerchantId}:${kind}`;

export function isDocumentKind(value: string): value is DocumentKind {
  return (DOCUMENT_KINDS as readonly string[]).includes(value);
}

type Meta = Pick<repo.DocumentRow, "id" | "kind" | "contentType" | "size" | "sha256" | "uploadedAt">;

export function documentsView(submerchantId: string, rows: Meta[]) {
  const kinds = new Set(rows.map((r) => r.kind));
  const missing = REQUIRED_DOCUMENTS.filter((k) => !kinds.has(k));
  return {
    submerchantId,
    documents: rows.map((r) => ({
      id: r.id, kind: r.kind as DocumentKind, contentType: r.contentType as "application/pdf" | "image/jpeg" | "image/png",
      size: r.size, sha256: r.sha256, uploadedAt: r.uploadedAt.toISOString(),
    })),
    missing,
    complete: missing.length === 0,
  };
}

/** What documents need of the Connect service (which owns the submerchant), by shape: no import back. */
interface SubmerchantOwner { ownSubmerchant(ctx: RequestCtx, id: string): Promise<unknown> }

export function createDocumentService(deps: { db: Db; sealer: Sealer; connect: SubmerchantOwner }) {
  const { db, sealer } = deps;

  /**
   * Stores the uploaded files (the latest of each kind replaces the earlier one) after checking
   * every one of them: nothing is written when any file is refused.
   */
  async function upload(submerchantId: string, files: { kind: DocumentKind; content: Buffer }[]) {
    if (files.length === 0) throw invalid(`at least one file is required: ${DOCUMENT_KINDS.join(", ")}`);
    const rows: (typeof submerchantDocuments.$inferInsert)[] = [];
    for (const f of files) {
      const type = await documentTypeOf(f.content);
      if (!type) throw invalid(`${f.kind} must be a PDF, JPEG or PNG file (judged by its content)`);
      rows.push({
        id: newId("doc"), submerchantId, kind: f.kind, contentType: type, size: f.content.length,
        sha256: createHash("sha256").update(f.content).digest("hex"),
        contentSealed: sealer.seal(f.content.toString("base64"), aad(submerchantId, f.kind)), uploadedAt: new Date(),
      });
    }
    await withTx(db, (tx) => repo.upsertDocuments(tx, rows));
    return list(submerchantId);
  }

  async function list(submerchantId: string) {
    return documentsView(submerchantId, await repo.listDocuments(db, submerchantId));
  }

  async function download(ctx: RequestCtx, submerchantId: string, documentId: string) {
    await deps.connect.ownSubmerchant(ctx, submerchantId);
    const row = await repo.findDocumentContent(db, submerchantId, documentId);
    if (!row) throw notFound("Document", documentId);
    return { contentType: row.contentType, kind: row.kind, content: Buffer.from(sealer.open(row.contentSealed, aad(submerchantId, row.kind)), "base64") };
  }

  return { upload, list, download };
}

export type DocumentService = ReturnType<typeof createDocumentService>;
