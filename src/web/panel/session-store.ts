import { and, eq, gt, lt } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { panelSessions } from "../../db/schema.js";
import { sha256Hex } from "../../lib/crypto.js";
import type { Session } from "./session.js";

// The server's side of a panel session (session.ts signs the cookie). A session is open while
// its row exists and has not expired: sign-in writes it, sign-out deletes it, and every panel
// request reads it by primary key. Not cached: the panel is a person clicking, one indexed read
// a page costs nothing next to the page's own queries, and a row in the database is seen by every
// API process the moment it is deleted, with no notification to miss.

export function createSessionStore(db: Db) {
  // The nonce is the cookie's secret part: what is stored is its digest, so the table alone
  // (a backup, a read replica) names no usable session.
  const idOf = (nonce: string) => sha256Hex(`panel-session:${nonce}`);
  return {
    async open(s: Session): Promise<void> {
      // Sessions that ended without a sign-out go when anyone signs in (an index range of
      // expired rows); nothing else has to sweep the table.
      await db.delete(panelSessions).where(lt(panelSessions.expiresAt, new Date()));
      await db.insert(panelSessions).values({ id: idOf(s.nonce), merchantId: s.merchantId, expiresAt: new Date(s.expiresAt * 1000) });
    },
    async isOpen(s: Session): Promise<boolean> {
      const rows = await db.select({ id: panelSessions.id }).from(panelSessions)
        .where(and(eq(panelSessions.id, idOf(s.nonce)), eq(panelSessions.merchantId, s.merchantId), gt(panelSessions.expiresAt, new Date())))
        .limit(1);
      return rows.length > 0;
    },
    async close(s: Session): Promise<void> {
      await db.delete(panelSessions).where(eq(panelSessions.id, idOf(s.nonce)));
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
