// A provider call's failure, shared by the payment interface (processor.ts) and the capabilities.

/**
 * Why a call to a provider gave no answer to rely on. Only `connection_refused` proves that
 * nothing reached the provider; after any other kind the provider may have acted.
 */
export type ProcessorFailureKind =
  | "connection_refused" | "timeout" | "lost" | "http_429" | "http_5xx" | "http_4xx" | "bad_response";

export interface ProcessorFailure {
  kind: ProcessorFailureKind;
  /** The HTTP status, when one arrived. */
  status?: number;
  /** The provider's own error code, for support; never its raw body. */
  providerCode?: string;
  /** Written by feira (field names at most), safe to show a merchant. */
  message: string;
}
