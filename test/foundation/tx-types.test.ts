import { test } from "node:test";
import assert from "node:assert/strict";
import { withTx, type Db } from "../../src/db/client.js";
import { recordEvent } from "../../src/modules/webhooks/outbox.js";
import { buildTestApp } from "../helpers/app.js";

// The outbox, the ledger's postings and a charge's status moves write only inside a transaction
// (a `Tx`, from withTx) or a one-statement WriteBatch, never on the outer database handle: the
// compiler refuses it. `npm run typecheck` (run by CI before the tests) compiles this file: if
// recordEvent ever accepted the outer handle, the @ts-expect-error below would be unused, which
// is itself a compile error.

const event = { merchantId: "mer_tx_types", environment: "sandbox" as const, type: "charge.paid" as const, objectId: "ch_tx_types", data: {} };

export async function onTheOuterHandle(db: Db) {
  // @ts-expect-error the outer handle is not a transaction
  await recordEvent(db, event);
}

test("inside withTx an event is recorded, and it commits with the transaction", async () => {
  const t = await buildTestApp();
  try {
    const id = await withTx(t.database.db, (tx) => recordEvent(tx, event));
    assert.match(id, /^evt_/);
  } finally {
    await t.close();
  }
});
