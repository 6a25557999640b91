// The database's primary lost under load: feira on a three-node Patroni cluster (etcd and
// PostgreSQL 15 from Debian's packages, synchronous mode, ttl 10 s; test/helpers/patroni/), its
// DATABASE_URL naming the three hosts with target_session_attrs=read-write; clients send card
// charges with Idempotency-Keys and retry 503 and 409 under the same key; the primary's
// postmaster is killed (kill -9) after a third of them. Reports the unavailability window (from
// the kill to the first 201 of a request sent after it), the promotion time, the answers by
// status, and what was lost, duplicated or left undelivered. Runs as root (Patroni as the
// postgres user) or as any user that can run PostgreSQL.
//
//   node --import tsx bench/failover.ts [runs] [charges] [clients] [--host]
//
// --host kills the primary's Patroni with its postmaster, as when the whole host is lost: the
// leader key then has to expire (ttl) before a standby is promoted.
// Defaults: 3 runs of 150 charges from 8 clients. Each run makes its own cluster in a temporary
// directory and removes it.
import { runFailover } from "../test/helpers/patroni/failover-run.js";

const host = process.argv.includes("--host");
const args = process.argv.slice(2).filter((a) => a !== "--host");
const runs = Number(args[0] ?? 3);
const charges = Number(args[1] ?? 150);
const clients = Number(args[2] ?? 8);
const windows: number[] = [];
for (let i = 1; i <= runs; i++) {
  const r = await runFailover({ charges, clients, host, log: (line) => console.error(`  ${line}`) });
  const { feiraOutput: _f, clusterLogs: _c, ...report } = r;
  console.log(JSON.stringify({ run: i, ...report }));
  windows.push(r.window_ms);
}
const sorted = [...windows].sort((a, b) => a - b);
console.log(JSON.stringify({ runs, charges, clients, host, window_ms: { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1) } }));
