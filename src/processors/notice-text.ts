// A reference taken from a provider's notice: a short text or a whole number, else nothing. The
// notice is the provider's word, not trusted: a reference only picks the object to read again,
// and one that names nothing costs one indexed read of feira's own database.
export const noticeText = (v: unknown): string | undefined =>
  (typeof v === "string" && v.length > 0 && v.length <= 64 ? v : typeof v === "number" && Number.isSafeInteger(v) ? String(v) : undefined);
