import type { FastifyInstance, FastifyRequest } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { invalid } from "../../core/errors.js";
import { multipartUploads } from "../../http/multipart.js";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import * as s from "./connect.schemas.js";
import type { ConnectService } from "./connect.service.js";
import { isDocumentKind, type DocumentService } from "./documents.js";
import type { PayoutSchedules } from "./payout-schedules.js";
import type { DocumentKind } from "./connect.schemas.js";

const KINDS = s.DOCUMENT_KINDS.join(", ");
const MAX_MB = s.MAX_DOCUMENT_BYTES / 1024 / 1024;

const uploads = multipartUploads(s.DOCUMENT_UPLOAD_LIMITS);

/** Reads every part (checked by name; content is checked by the service) before anything is stored. */
async function readDocumentParts(req: FastifyRequest): Promise<{ kind: DocumentKind; content: Buffer }[]> {
  const files: { kind: DocumentKind; content: Buffer }[] = [];
  await uploads.read(req, async (part) => {
    if (part.type !== "file" || !isDocumentKind(part.fieldname)) {
      throw invalid(`${part.fieldname} is not a recognized field; send files named ${KINDS}`);
    }
    const kind = part.fieldname;
    if (files.some((f) => f.kind === kind)) throw invalid(`${kind} is sent more than once`);
    files.push({ kind, content: await part.toBuffer() });
  });
  return files;
}

export function connectRoutes(connect: ConnectService, documents: DocumentService, schedules: Pick<PayoutSchedules, "set">) {
  return async (base: FastifyInstance) => {
    await uploads.register(base);
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/submerchants", {
      schema: {
        operationId: "createSubmerchant", tags: ["connect"], summary: "Create a submerchant",
        description:
          "Masters with Connect enabled only. Registers a company (valid CNPJ, formatted or not) as a submerchant linked to the master, in status pending, " +
          "with its own sandbox and production secret keys (read them with the api-keys endpoint) and no login. It receives copies of the master's fee definitions " +
          "and settings: later changes to the master do not alter it. postbackUrl receives the accreditation status notifications. A CNPJ already registered in this Connect: 409.",
        headers: IdempotencyHeaders, body: s.CreateSubmerchantBody,
        response: { 201: s.Submerchant, ...errors(400, 401, 403, 422, { 409: ["conflict", "A submerchant with companyTaxId 11222333000181 already exists in this Connect"] }) },
      },
    }, async (req, reply) => reply.code(201).send(await connect.create(req.ctx, req.body)));

    app.get("/v1/submerchants", {
      schema: {
        operationId: "listSubmerchants", tags: ["connect"], summary: "List submerchants",
        description: "The master's submerchants, newest first by default, filtered and ordered as asked; name filters are case-insensitive substrings, date filters match one UTC day.",
        querystring: s.ListSubmerchantsQuery,
        response: { 200: s.SubmerchantList, ...errors(401, 403, 422) },
      },
    }, async (req) => connect.list(req.ctx, req.query));

    app.get("/v1/submerchants/:id", {
      schema: {
        operationId: "getSubmerchant", tags: ["connect"], summary: "Retrieve a submerchant",
        description: "One of the master's submerchants; another master's answers 404.",
        params: IdParams,
        response: { 200: s.Submerchant, ...errors(401, 403, 404) },
      },
    }, async (req) => connect.get(req.ctx, req.params.id));

    app.patch("/v1/submerchants/:id", {
      schema: {
        operationId: "updateSubmerchant", tags: ["connect"], summary: "Update a submerchant",
        description:
          "The master changes a submerchant's settings. payoutSchedule: manual (the default: payouts only when requested), daily, weekly (weekDay, " +
          "1 = Monday .. 7 = Sunday) or monthly (monthDay, 1 to 28); on each due day at 06:00 Brasília time feira requests the payout of the whole " +
          "available balance if it reaches minimumAmount (cents), once per day, approved like any other request (sent at once with PAYOUT_AUTO_APPROVE). " +
          "In the sandbox the test clock drives it. A due day missed while no worker ran is paid once, as the latest due day, when a worker runs again. " +
          "In provider settlement the schedule is the processor's own transfers of the seller's balance there (the simulator's in the sandbox, on the test clock), " +
          "each listed as a read-only payout with source provider. " +
          "holdDays: the submerchant's split shares stay held that many days after payment (platform settlement; the sandbox's test clock counts them), then settle as usual.",
        params: IdParams, body: s.UpdateSubmerchantBody,
        response: { 200: s.Submerchant, ...errors(401, 403, 404, { 422: "payoutSchedule.weekDay is required when interval is weekly (1 = Monday .. 7 = Sunday)" }) },
      },
    }, async (req) => {
      let target = await connect.ownSubmerchant(req.ctx, req.params.id);
      if (req.body.payoutSchedule) target = await schedules.set(req.ctx, target, req.body.payoutSchedule);
      if (req.body.holdDays !== undefined) target = await connect.setHoldDays(target, req.body.holdDays);
      return connect.viewOne(req.ctx, target);
    });

    const upload = (path: string, operationId: string, summary: string) => app.post(path, {
      // An upload replaces the documents of the kinds it carries, so repeating it is harmless;
      // request bodies of files are not fingerprinted for Idempotency-Key.
      config: { auth: "secretKey", idempotent: false },
      // The files are read by the handler; the body schema documents the form for OpenAPI.
      preValidation: async (req) => { if (req.isMultipart()) req.body = {}; },
      schema: {
        operationId, tags: ["connect"], summary,
        description:
          `multipart/form-data with one or more of the file fields ${KINDS}. Each file must be a PDF, JPEG or PNG, judged by its content (not its name or declared type), ` +
          `of at most ${MAX_MB} MB (413 above). Files are stored encrypted; a new file of a kind replaces the earlier one. ` +
          "Required for review: every field but responsible_document_back (one-sided IDs). Any other field: 422.",
        params: IdParams,
        consumes: ["multipart/form-data"],
        // Not a JSON body: @fastify/swagger takes `content` as the request body of each media type.
        body: Type.Unsafe<Record<string, never>>({ content: { "multipart/form-data": { schema: s.UploadDocumentsBody } } }),
        response: {
          201: s.DocumentsResponse,
          ...errors(401, 403, 404, 500, {
            400: "Malformed multipart body", 413: `each file may be at most ${MAX_MB} MB`, 415: "send the files as multipart/form-data",
            422: `colour is not a recognized field; send files named ${KINDS}`,
          }),
        },
      },
    }, async (req, reply) => {
      const target = await connect.ownSubmerchant(req.ctx, req.params.id);
      const files = await readDocumentParts(req);
      return reply.code(201).send(await documents.upload(target.id, files));
    });
    upload("/v1/submerchants/:id/document", "uploadSubmerchantDocuments", "Upload KYC documents");
    // The plural spelling some clients use reaches the same handler.
    upload("/v1/submerchants/:id/documents", "uploadSubmerchantDocumentsPlural", "Upload KYC documents (plural path)");

    app.get("/v1/submerchants/:id/documents", {
      schema: {
        operationId: "listSubmerchantDocuments", tags: ["connect"], summary: "List a submerchant's documents",
        description: "Metadata of the KYC documents on file (never their content) and which required ones are missing.",
        params: IdParams,
        response: { 200: s.DocumentsResponse, ...errors(401, 403, 404) },
      },
    }, async (req) => documents.list((await connect.ownSubmerchant(req.ctx, req.params.id)).id));

    app.get("/v1/submerchants/:id/documents/:documentId/content", {
      schema: {
        operationId: "downloadSubmerchantDocument", tags: ["connect"], summary: "Download a submerchant's document",
        description: "The master's explicit download of one KYC file, decrypted, with its detected content type.",
        params: s.DocumentParams,
        response: {
          200: Type.Unsafe<Buffer>({ type: "string", format: "binary", description: "The file.", examples: ["%PDF-1.4\n%âãÏÓ\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n(... the rest of cartao-cnpj.pdf ...)"] }),
          ...errors(401, 403, 404),
        },
      },
    }, async (req, reply) => {
      const doc = await documents.download(req.ctx, req.params.id, req.params.documentId);
      const ext = { "application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png" }[doc.contentType] ?? "bin";
      return reply.type(doc.contentType).header("content-disposition", `attachment; filename="${doc.kind}.${ext}"`).send(doc.content);
    });

    app.get("/v1/submerchants/:id/api-keys", {
      schema: {
        operationId: "getSubmerchantApiKeys", tags: ["connect"], summary: "Read a submerchant's secret keys",
        description:
          "The submerchant's active keys in full, for its master only: a request made with one of them acts as the submerchant " +
          "(a charge made with it has the submerchant as originator).",
        params: IdParams,
        response: { 200: s.ApiKeysResponse, ...errors(401, 403, 404) },
      },
    }, async (req) => connect.apiKeys(req.ctx, req.params.id));

    app.get("/v1/connect/sub-accounts/:id/fees-info", {
      config: { auth: "keyOrJwt" },
      schema: {
        operationId: "getSubAccountFeesInfo", tags: ["connect"], summary: "Fees and registration data of a sub-account",
        description:
          "The sub-account's own fee definitions as stored (brand overrides included, nothing merged or defaulted) with its id, legal name and CNPJ. " +
          "A master names a linked submerchant in the path (its own id, an unknown id or another master's submerchant: 404; Connect not enabled: 403); " +
          "a submerchant always gets its own data, whatever the path says. Secret key (Basic) or login token (Bearer).",
        params: IdParams,
        response: { 200: s.FeesInfo, ...errors(401, 403, 404) },
      },
    }, async (req) => connect.feesInfo(req.ctx, req.params.id));

    app.get("/v1/connect/settings", {
      schema: {
        operationId: "getConnectSettings", tags: ["connect"], summary: "Read the default split and the settlement",
        description:
          "The split applied to this merchant's charges in this environment when a charge carries none, and the settlement of its Connect " +
          "(the master's: platform, the operator's account receives and pays sellers by payout; provider, the processor pays each seller's share to the seller's own account).",
        response: { 200: s.ConnectSettings, ...errors(401, 403) },
      },
    }, async (req) => connect.getSettings(req.ctx));

    app.put("/v1/connect/settings", {
      schema: {
        operationId: "putConnectSettings", tags: ["connect"], summary: "Set the default split or the settlement",
        description:
          "Replaces the default split of this merchant (a master or a submerchant) in this environment. Recipients must belong to the same Connect: " +
          "master to its submerchants, a submerchant to its master or to another submerchant of the same master. A split sent with a charge overrides it. " +
          "settlement is the master's alone (a submerchant's key: 403) and applies to charges created after it. A field left out keeps its value.",
        body: s.ConnectSettingsBody,
        response: { 200: s.ConnectSettings, ...errors(401, 403, 422) },
      },
    }, async (req) => connect.putSettings(req.ctx, req.body));

    app.post("/v1/admin/submerchants/:id/status", {
      config: { auth: "admin" },
      schema: {
        operationId: "adminSetSubmerchantStatus", tags: ["connect"], summary: "Accredit, reject, block or deactivate a submerchant",
        description:
          "Moves a submerchant along pending -> pre_approved -> active, to rejected, blocked or inactive (a move the table does not allow: 409). " +
          "pre_approved and active need the required documents. The submerchant's postbackUrl is notified with {merchantId, status, date} for pre_approved, active, blocked and rejected.",
        headers: IdempotencyHeaders, params: IdParams, body: s.AdminStatusBody,
        response: { 200: s.Submerchant, ...errors(401, 404, 409, 422) },
      },
    }, async (req) => connect.setStatus(req.params.id, req.body.status, req.body.reason));
  };
}
