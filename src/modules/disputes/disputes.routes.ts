import type { FastifyInstance, FastifyRequest } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { invalid } from "../../core/errors.js";
import { multipartUploads } from "../../http/multipart.js";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import type { DisputeService, EvidenceFile } from "./disputes.service.js";
import * as s from "./disputes.schemas.js";

const uploads = multipartUploads({ fileSize: s.MAX_EVIDENCE_BYTES, files: s.MAX_EVIDENCE_FILES });
const MAX_MB = s.MAX_EVIDENCE_BYTES / 1024 / 1024;

/** Reads the evidence form's parts; what they must be is the service's (disputes.evidence.ts). */
async function readEvidence(req: FastifyRequest): Promise<{ text: string; files: EvidenceFile[] }> {
  let text: string | undefined;
  const files: EvidenceFile[] = [];
  await uploads.read(req, async (part) => {
    if (part.type === "field" && part.fieldname === "text") {
      if (text !== undefined) throw invalid("text is sent more than once");
      text = String(part.value);
      return;
    }
    if (part.type !== "file" || part.fieldname !== "files") throw invalid(`${part.fieldname} is not a recognized field; send text and files`);
    files.push({ name: part.filename, content: await part.toBuffer() });
  });
  return { text: text ?? "", files };
}

export function disputeRoutes(disputes: DisputeService) {
  return async (base: FastifyInstance) => {
    await uploads.register(base);
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.get("/v1/disputes", {
      schema: {
        operationId: "listDisputes", tags: ["disputes"], summary: "List disputes",
        description: "The caller's disputes, newest first, by page, filtered by status, chargeId and kind.",
        querystring: s.ListDisputesQuery,
        response: { 200: s.DisputeList, ...errors(401, 403, 422) },
      },
    }, async (req) => disputes.list(req.ctx, req.query));

    app.get("/v1/disputes/:id", {
      schema: {
        operationId: "getDispute", tags: ["disputes"], summary: "Retrieve a dispute",
        description: "One of the caller's disputes; another merchant's answers 404.",
        params: IdParams,
        response: { 200: s.Dispute, ...errors(401, 403, 404) },
      },
    }, async (req) => disputes.get(req.ctx, req.params.id));

    app.post("/v1/disputes/:id/evidence", {
      // Submitted once (a second submission is a 422), so a repeat is harmless; request bodies
      // of files are not fingerprinted for Idempotency-Key.
      config: { auth: "secretKey", idempotent: false },
      preValidation: async (req) => { if (req.isMultipart()) req.body = {}; },
      schema: {
        operationId: "submitDisputeEvidence", tags: ["disputes"], summary: "Submit a dispute's evidence",
        description:
          `multipart/form-data with \`text\` (required, at most ${s.MAX_EVIDENCE_TEXT} characters) and up to ${s.MAX_EVIDENCE_FILES} \`files\`, each a PDF, PNG or JPEG judged by its content ` +
          `(not its name or declared type) of at most ${MAX_MB} MB (413 above). Files are stored encrypted. Accepted once, while the dispute needs_response and before its evidenceDueBy: ` +
          "the dispute goes under_review (charge.dispute.updated). A Mercado Pago dispute's files are sent to Mercado Pago first (its documentation upload; at least one file, 10 MB in all): " +
          "its refusal is a 422 naming it and no answer a 503, and either leaves the dispute needs_response. After the deadline, in another status, or for a dispute answered in the provider's own dashboard (Pagar.me, Efí): 422.",
        params: IdParams,
        consumes: ["multipart/form-data"],
        body: Type.Unsafe<Record<string, never>>({ content: { "multipart/form-data": { schema: s.EvidenceForm } } }),
        response: {
          200: s.Dispute,
          ...errors(401, 403, 404, 503, {
            400: "Malformed multipart body", 413: `each file may be at most ${MAX_MB} MB`, 415: "send the files as multipart/form-data",
            422: "files[0] (notes.txt) must be a PDF, PNG or JPEG file (judged by its content)",
          }),
        },
      },
    }, async (req) => {
      const d = await disputes.find(req.ctx, req.params.id);
      const { text, files } = await readEvidence(req);
      return disputes.submitEvidence(req.ctx, d.id, text, files);
    });

    app.post("/v1/disputes/:id/accept", {
      schema: {
        operationId: "acceptDispute", tags: ["disputes"], summary: "Accept (concede) a dispute",
        description: "The merchant concedes: the dispute is lost, its amount stays taken and the charge becomes charged_back (a Pix MED: refunded to the payer). charge.dispute.closed. A dispute already closed: 409.",
        headers: IdempotencyHeaders, params: IdParams,
        response: { 200: s.Dispute, ...errors(401, 403, 404, 409) },
      },
    }, async (req) => disputes.accept(req.ctx, req.params.id));

    app.post("/v1/sandbox/charges/:id/dispute", {
      schema: {
        operationId: "sandboxDisputeCharge", tags: ["sandbox", "disputes"], summary: "Open a dispute on a paid charge (sandbox)",
        description:
          "Stands in for the payer's bank: opens a dispute on a paid sandbox charge for what it still has paid, a chargeback on a card charge or a pix_med on a Pix one, " +
          "due 7 days ahead on the test clock. Its amount leaves the balance (split recipients their share) and charge.dispute.created is sent. " +
          "A charge that is not paid, or already has an open dispute: 409; another method, or a kind that does not match it: 422. Sandbox keys only. " +
          "A retry with the same Idempotency-Key whose first attempt opened the dispute before its answer was lost answers 201 with that dispute.",
        headers: IdempotencyHeaders, params: IdParams, body: s.SandboxDisputeBody,
        response: { 201: s.Dispute, ...errors(401, 403, 404, 409, 422) },
      },
    }, async (req, reply) => reply.code(201).send(await disputes.openSandbox(req.ctx, req.params.id, req.body ?? {})));

    app.post("/v1/sandbox/disputes/:id/close", {
      schema: {
        operationId: "sandboxCloseDispute", tags: ["sandbox", "disputes"], summary: "Decide a dispute under review (sandbox)",
        description: "Stands in for the issuer: won gives the amount back to the balance; lost keeps it taken and ends the charge (charged_back; a Pix MED: refunded). charge.dispute.closed. A dispute not under_review: 409. Sandbox keys only.",
        headers: IdempotencyHeaders, params: IdParams, body: s.CloseDisputeBody,
        response: { 200: s.Dispute, ...errors(401, 403, 404, 409, 422) },
      },
    }, async (req) => disputes.closeSandbox(req.ctx, req.params.id, req.body.outcome));
  };
}
