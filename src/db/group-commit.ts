import pg from "pg";

// Group commit of independent statements (bench/RESULTS.md, issue 50). Concurrent charges each
// send one statement of the same shape: their charge, events, ledger and records as data-modifying
// CTEs. While `limit` statements of a shape are in flight from this process, the next ones wait;
// when one comes back, those waiting go together as ONE statement (their CTEs side by side, their
// rows told apart by a `feira_member` column): one round trip, one snapshot and one commit for
// all of them, instead of one each. Nothing waits while fewer than `limit` are in flight, so a
// quiet server sends each statement as it comes, with the same text as without grouping.
//
// Each member keeps its own answer: its rows. A member that fails the statement (a unique
// violation of a concurrent retry's id, a foreign key) fails it whole, and PostgreSQL committed
// nothing of it; then every member is sent again alone, so only the failing one fails. When the
// connection is lost instead (no answer from the server), whether the statement committed is not
// known: each member gets the error, as it would alone, and its caller finds its charge again
// by id, as after any lost answer.
//
// Only statements that insert new rows (WriteBatch.runReturning on the pool, never in a
// transaction) and reads of the hot path (the charge's customer: selectRows' `grouped`) are
// grouped: two members that changed the same existing row in one statement would see the same
// snapshot and lose one change. Members are grouped only with members of the same shape, in
// groups of 2, 4, 8 or 16, so a shape has at most five texts, each prepared once per connection.

/** A statement as batch.ts makes it: its shape names its text, `make` writes the text. */
export interface Piece {
  readonly shape: string;
  readonly make: (p: (i: number) => string) => string;
  readonly values: unknown[];
}

type Rows = Record<string, unknown>[];
interface Member { parts: Piece[]; resolve(rows: Rows): void; reject(err: unknown): void }
interface Lane { inFlight: number; waiting: Member[] }

const SIZES = [16, 8, 4, 2];

export class GroupCommit {
  private readonly lanes = new Map<string, Lane>();
  /** Statements sent, and members they carried (for the tests and the benchmark's account). */
  readonly sent = { statements: 0, members: 0 };

  constructor(private readonly limit: number, private readonly send: (s: Piece) => Promise<Rows>) {}

  /** Sends `parts` (a main statement with RETURNING, then the rest) as one statement; its rows. */
  run(parts: Piece[]): Promise<Rows> {
    const shape = parts.map((p) => p.shape).join("\u0002");
    let lane = this.lanes.get(shape);
    if (!lane) {
      lane = { inFlight: 0, waiting: [] };
      this.lanes.set(shape, lane);
    }
    const promise = new Promise<Rows>((resolve, reject) => lane.waiting.push({ parts, resolve, reject }));
    this.pump(shape, lane);
    return promise;
  }

  private pump(shape: string, lane: Lane): void {
    while (lane.inFlight < this.limit && lane.waiting.length > 0) {
      const size = SIZES.find((s) => s <= lane.waiting.length) ?? 1;
      const members = lane.waiting.splice(0, size);
      lane.inFlight += 1;
      void this.flush(members).finally(() => {
        lane.inFlight -= 1;
        if (lane.inFlight === 0 && lane.waiting.length === 0) this.lanes.delete(shape);
        else this.pump(shape, lane);
      });
    }
  }

  private async alone(m: Member): Promise<void> {
    this.sent.statements += 1;
    this.sent.members += 1;
    try {
      m.resolve(await this.send(single(m.parts)));
    } catch (err) {
      m.reject(err);
    }
  }

  private async flush(members: Member[]): Promise<void> {
    if (members.length === 1) return this.alone(members[0]!);
    let rows: Rows;
    try {
      this.sent.statements += 1;
      this.sent.members += members.length;
      rows = await this.send(together(members.map((m) => m.parts)));
    } catch (err) {
      // The server refused the statement: nothing of it committed, so each goes alone.
      if (err instanceof pg.DatabaseError) {
        await Promise.all(members.map((m) => this.alone(m)));
        return;
      }
      for (const m of members) m.reject(err);
      return;
    }
    const byMember: Rows[] = members.map(() => []);
    for (const row of rows) {
      const k = Number(row.feira_member);
      delete row.feira_member;
      byMember[k]?.push(row);
    }
    members.forEach((m, k) => m.resolve(byMember[k]!));
  }
}

/**
 * One member alone: a lone statement as it is; else `with main as (main), w0 as (part 0), ...
 * select * from main`.
 */
export function single(parts: Piece[]): Piece {
  if (parts.length === 1) return parts[0]!;
  return combine([parts], (k) => (k === 0 ? "main" : `w${k - 1}`), () => "select * from main");
}

/** The members' CTEs side by side (m3_0 is member 3's main), their mains' rows tagged by member. */
function together(members: Piece[][]): Piece {
  return combine(members, (k, m) => `m${m}_${k}`, (n) =>
    Array.from({ length: n }, (_, m) => `select ${m} as feira_member, * from m${m}_0`).join(" union all "));
}

function combine(members: Piece[][], name: (k: number, m: number) => string, tail: (n: number) => string): Piece {
  const all = members.flat();
  const offsets: number[] = [];
  let n = 0;
  for (const p of all) { offsets.push(n); n += p.values.length; }
  const shape = `${members.length === 1 ? "with main" : `group ${members.length}`} ${all.map((p) => p.shape).join("\u0002")}`;
  return {
    shape,
    make: (p) => {
      let i = 0;
      const ctes = members.flatMap((parts, m) => parts.map((s, k) => {
        const at = offsets[i++]!;
        return `${name(k, m)} as (${s.make((j) => p(at + j))})`;
      }));
      return `with ${ctes.join(", ")} ${tail(members.length)}`;
    },
    values: all.flatMap((p) => p.values),
  };
}
