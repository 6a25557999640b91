import { Type } from "typebox";

// Wire schemas of disputes. Amounts in currency units, like charges.
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const MAX_EVIDENCE_FILES = 5;
export const MAX_EVIDENCE_BYTES = 5 * 1024 * 1024;
export const MAX_EVIDENCE_TEXT = 20_000;

const Kind = Type.Union([Type.Literal("chargeback"), Type.Literal("pix_med")], { description: "chargeback (a card's issuer) or pix_med (the Central Bank's Pix special return mechanism, MED)." });
const Status = Type.Union([Type.Literal("needs_response"), Type.Literal("under_review"), Type.Literal("won"), Type.Literal("lost")], {
  description: "needs_response: evidence may be submitted until evidenceDueBy; under_review: evidence submitted, awaiting the decision; won: the amount went back to the balance; lost: it stays taken (final).",
});
const Reason = Type.String({ minLength: 1, maxLength: 100, pattern: "^[a-z0-9_]+$", description: "Why the payer disputed, e.g. fraudulent, product_not_received, duplicate." });

const EXAMPLE = {
  id: "dp_01jd3q8r2t4v6x8z0b2d4f6h8k", chargeId: "ch_01m83z4fb49ymhph6hwrvbtqq2", kind: "chargeback", status: "under_review", reason: "fraudulent",
  amount: 49.9, currency: "BRL", evidenceDueBy: "2026-11-30T12:00:00.000Z",
  evidence: { text: "The buyer signed for the delivery on 2026-11-25.", files: [{ id: "dpf_01jd3qa0c2e4g6j8m0p2r4t6w8", name: "receipt.pdf", contentType: "application/pdf", size: 48213 }] },
  submittedAt: "2026-11-24T09:30:00.000Z", closedAt: null, createdAt: "2026-11-23T12:00:00.000Z",
};

export const Dispute = Type.Object({
  id: Type.String(),
  chargeId: Type.String(),
  kind: Kind,
  status: Status,
  reason: Type.String(),
  amount: Type.Number({ description: "Currency units: what the payer disputes, taken from the balance while the dispute is open." }),
  currency: Type.String(),
  evidenceDueBy: Type.String({ format: "date-time", description: "Evidence is accepted until then; an unanswered dispute past it is lost. In sandbox it follows the test clock." }),
  evidence: Nullable(Type.Object({
    text: Type.String(),
    files: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), contentType: Type.String(), size: Type.Integer({ description: "Bytes." }) })),
  }, { description: "What the merchant submitted (the files' metadata; their content is stored encrypted)." })),
  submittedAt: Nullable(Type.String({ format: "date-time" })),
  closedAt: Nullable(Type.String({ format: "date-time" })),
  createdAt: Type.String({ format: "date-time" }),
}, { examples: [EXAMPLE] });

export const ListDisputesQuery = Type.Object({
  status: Type.Optional(Status),
  chargeId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  kind: Type.Optional(Kind),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1, description: "Starts at 1." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "Page size, 1 to 100." })),
}, { additionalProperties: false });

export const DisputeList = Type.Object({
  data: Type.Array(Dispute),
  meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer(), totalPages: Type.Integer() }),
}, { examples: [{ data: [EXAMPLE], meta: { total: 1, page: 1, limit: 10, totalPages: 1 } }] });

export const SandboxDisputeBody = Type.Object({
  kind: Type.Optional(Kind),
  reason: Type.Optional(Reason),
}, { additionalProperties: false, examples: [{ reason: "product_not_received" }] });

export const CloseDisputeBody = Type.Object({
  outcome: Type.Union([Type.Literal("won"), Type.Literal("lost")]),
}, { additionalProperties: false, examples: [{ outcome: "won" }] });

/**
 * The multipart form of an evidence submission, for the OpenAPI document. The handler reads and
 * checks the parts (text is required there): Fastify validates this schema against the body the
 * route's preValidation leaves, which is empty.
 */
export const EvidenceForm = Type.Object({
  text: Type.Optional(Type.String({ maxLength: MAX_EVIDENCE_TEXT, description: "Required: the merchant's account of the sale, at most 20,000 characters." })),
  files: Type.Optional(Type.Array(Type.String({ format: "binary" }), {
    maxItems: MAX_EVIDENCE_FILES, description: "Up to 5 files, each a PDF, PNG or JPEG (judged by content) of at most 5 MB.",
  })),
}, { examples: [{ text: "The buyer signed for the delivery on 2026-11-25.", files: ["(contents of receipt.pdf)"] }] });
