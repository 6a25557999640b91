import { invalid } from "../../core/errors.js";
import { MAX_EVIDENCE_BYTES, MAX_EVIDENCE_FILES, MAX_EVIDENCE_TEXT } from "./disputes.schemas.js";

// The rules of an evidence submission that do not depend on the dispute: the text, how many files
// and how large. The service applies them, so the API's multipart route and the panel's form
// (whose shared multipart parser has the KYC upload's larger limits) are held to the same ones.

export interface EvidenceFile { name: string; content: Buffer }

/** The evidence as it will be stored (file names made safe to show), or a 422 naming the field. */
export function checkEvidence(text: string, files: readonly EvidenceFile[]): EvidenceFile[] {
  if (text.trim() === "") throw invalid("text is required: the merchant's account of the sale");
  if (text.length > MAX_EVIDENCE_TEXT) throw invalid(`text must be at most ${MAX_EVIDENCE_TEXT} characters`);
  if (files.length > MAX_EVIDENCE_FILES) throw invalid(`files: at most ${MAX_EVIDENCE_FILES} files`);
  return files.map((f, i) => {
    if (f.content.length > MAX_EVIDENCE_BYTES) throw invalid(`files[${i}] (${f.name}) must be at most ${MAX_EVIDENCE_BYTES / 1024 / 1024} MB`);
    // The name is only shown back: kept short and free of path and control characters.
    return { name: (f.name || "file").replace(/[\u0000-\u001f\u007f/\\]/g, "_").slice(0, 255), content: f.content };
  });
}
