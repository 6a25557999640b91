import fastifyMultipart, { type Multipart } from "@fastify/multipart";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../core/errors.js";
import { findInputProblem } from "./input-guard.js";

// Multipart bodies (the KYC uploads of the API and of the panel) are registered and read here
// only. What goes wrong while reading one is the client's body: busboy's own errors are plain
// Errors with neither code nor status ("Multipart: Boundary not found", "Unexpected end of
// form", "Malformed part header"), and thrown as they are they reached the error handler as
// 500s. Every failure of a read is mapped here to its 4xx: a limit is 413, a body that is not
// multipart 415, anything else a broken body, 400.
//
// The input guard (input-guard.ts) checks a JSON or form body as a whole before validation; a
// multipart body is still unread then. Its parts meet the same checks here, as each arrives and
// before the route sees it: a NUL or a lone surrogate in a field's text, its name or a file's
// name (which PostgreSQL would refuse after a provider was called), and a card number anywhere
// but in a file's content (no multipart route has a card field: it would be stored and shown).

export interface UploadLimits {
  /** Bytes per file. */
  fileSize: number;
  /** Files per request. */
  files: number;
}

const NOT_MULTIPART = "send the files as multipart/form-data";
const NO_CARD_FIELDS: ReadonlySet<string> = new Set();

/** A part's text as the guard walks a body: a field by its name, a file's name as `<field>.filename`. */
function guardPart(part: Multipart): void {
  const text = part.type === "file" ? { [part.fieldname]: { filename: part.filename } } : { [part.fieldname]: part.value };
  const found = findInputProblem(text, "", { cardFields: NO_CARD_FIELDS });
  if (found) throw new AppError(found.code, found.message);
}

export function multipartUploads(limits: UploadLimits) {
  const failures: Record<string, () => AppError> = {
    FST_REQ_FILE_TOO_LARGE: () => new AppError("payload_too_large", `each file may be at most ${limits.fileSize / 1024 / 1024} MB`),
    FST_FILES_LIMIT: () => new AppError("payload_too_large", `at most ${limits.files} files per request`),
    FST_PARTS_LIMIT: () => new AppError("payload_too_large", "too many parts in the multipart body"),
    FST_FIELDS_LIMIT: () => new AppError("payload_too_large", "too many fields in the multipart body"),
    FST_INVALID_MULTIPART_CONTENT_TYPE: () => new AppError("unsupported_media_type", NOT_MULTIPART),
  };
  const failure = (err: unknown): AppError => {
    if (err instanceof AppError) return err;
    const code = typeof err === "object" && err !== null && "code" in err ? String(err.code) : "";
    return failures[code]?.() ?? new AppError("bad_request", "Malformed multipart body");
  };

  return {
    /** The multipart parser, in the calling plugin only: no other route accepts multipart bodies. */
    async register(app: FastifyInstance): Promise<void> {
      await app.register(fastifyMultipart, { limits: { ...limits, fields: 10, parts: 20, fieldNameSize: 100, headerPairs: 100 } });
    },
    /** Hands every part to `take`, in order, once guarded; an AppError (the guard's or `take`'s) ends the read as it is. */
    async read(req: FastifyRequest, take: (part: Multipart) => Promise<void>): Promise<void> {
      if (!req.isMultipart()) throw new AppError("unsupported_media_type", NOT_MULTIPART);
      try {
        for await (const part of req.parts()) {
          guardPart(part);
          await take(part);
        }
      } catch (err) {
        throw failure(err);
      }
    },
  };
}

export type MultipartUploads = ReturnType<typeof multipartUploads>;
