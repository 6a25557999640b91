import { eq } from "drizzle-orm";
import { insertInto, send } from "../../db/batch.js";
import type { Db } from "../../db/client.js";
import { sandboxProcessorRecords } from "../../db/schema.js";
import type { ProcessorRecords } from "../../processors/processor.js";

// The sandbox simulator's records in the database (sandbox_processor_records), so that a
// repeated call with the same idempotency key gets the first answer even from another process
// or after a restart. Each insert commits on its own, before the answer is used, as a remote
// processor records an authorization before it answers; the first writer wins a race.
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
