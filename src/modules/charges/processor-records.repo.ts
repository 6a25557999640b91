import { eq } from "drizzle-orm";
import { insertInto, send, type Statement } from "../../db/batch.js";
import type { Db } from "../../db/client.js";
import { sandboxProcessorRecords } from "../../db/schema.js";
import type { PendingRecord, ProcessorRecords } from "../../processors/processor.js";

// The sandbox simulator's records in the database (sandbox_processor_records), so that a
// repeated call with the same idempotency key gets the first answer even from another process
// or after a restart. Each insert commits on its own, before the answer is used, as a remote
// processor records an authorization before it answers; the first writer wins a race. A
// charge's first authorization is the exception: its record goes into the charge's own
// statement (pendingRecordWrite), so both commit together.
export function createProcessorRecords(db: Db): ProcessorRecords {
  const find = async (key: string) => {
    const [row] = await db.select({ result: sandboxProcessorRecords.result }).from(sandboxProcessorRecords)
      .where(eq(sandboxProcessorRecords.key, key));
    return row?.result;
  };
  return {
    async once(operation, key, compute) {
      const k = `${operation}:${key}`;
      // Computed first and offered with one INSERT: the first call (nearly every call) is one
      // round trip; a repeated one computes an answer that loses to the recorded one.
      const result = JSON.parse(JSON.stringify(await compute())) as Record<string, unknown>;
      const [inserted] = await send(db, insertInto(sandboxProcessorRecords, [{ key: k, operation, result }], `on conflict do nothing returning "result"`));
      return (inserted?.result as Record<string, unknown> | undefined) ?? (await find(k))!;
    },
    find: (operation, key) => find(`${operation}:${key}`),
  };
}

/** The insert of a record handed over by `AuthorizeInput.recordWith`, for the charge's statement. */
export function pendingRecordWrite(record: PendingRecord): Statement {
  return insertInto(sandboxProcessorRecords, [{ key: `${record.operation}:${record.key}`, operation: record.operation, result: record.result }], "on conflict do nothing");
}
