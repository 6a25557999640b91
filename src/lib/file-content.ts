// What an uploaded file is, judged by its bytes (magic numbers), never by its name or declared
// type: the KYC documents and a dispute's evidence take PDF, JPEG and PNG only.

export type DocumentType = "application/pdf" | "image/jpeg" | "image/png";
const ALLOWED: ReadonlySet<string> = new Set<DocumentType>(["application/pdf", "image/jpeg", "image/png"]);

/** The file's type when its content is a PDF, JPEG or PNG; undefined otherwise. */
export async function documentTypeOf(content: Buffer): Promise<DocumentType | undefined> {
  // Loaded on the first upload: an API process that never takes one does not hold it.
  const { fileTypeFromBuffer } = await import("file-type");
  const type = await fileTypeFromBuffer(content);
  return type && ALLOWED.has(type.mime) ? (type.mime as DocumentType) : undefined;
}
