#!/usr/bin/env bash
# Issue 50's targets (issue 41's before them) in one run, on one machine, so that every ratio compares figures of the same
# minutes (bench/RESULTS.md, "Issue 50"). Compiled, as docs/deploy.md runs production (`npm run
# build` first), with the production defaults; PostgreSQL 15 at DATABASE_URL and pgbench on PATH.
#
#   npm run build && DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira_ci bash bench/targets.sh
#
# 1. pgbench TPC-B (scale 10, 16 clients), then card charges with the limits counting, then pgbench
#    again: the ratio to the mean of the two pgbench runs. Then card charges at a fixed 80 % of
#    that peak for p99.
# 2-3. bench/slow-processor.ts: production card charges against the Pagar.me fake at 300 ms / 256
#    clients and 1 s / 1,024 clients, and the hold of 1,024 charges waiting (the API's RSS).
# 4. Card charges through PgBouncer in transaction mode (--pooler) and direct, alternated, twice.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${DATABASE_URL:?set DATABASE_URL to a PostgreSQL 15 database (its server gets scratch databases)}"
export BENCH_COMPILED=1
[ -f dist/main.js ] || { echo "npm run build first" >&2; exit 1; }
pg_url=$(node -e 'const u=new URL(process.argv[1]);console.log(JSON.stringify({h:u.hostname,p:u.port||"5432",U:decodeURIComponent(u.username),w:decodeURIComponent(u.password)}))' "$DATABASE_URL")
field() { node -e "console.log(JSON.parse(process.argv[1]).$1)" "$pg_url"; }
export PGHOST=$(field h) PGPORT=$(field p) PGUSER=$(field U) PGPASSWORD=$(field w)
psql -qAt -d postgres -c "select 1 from pg_database where datname = 'feira_pgbench'" | grep -q 1 || {
  createdb feira_pgbench && pgbench -i -s 10 -q feira_pgbench >/dev/null 2>&1
}
# The server's own background work inside a measured window counts as the charges' CPU (bench/
# RESULTS.md, "What the swings are made of"): pgbench's dead rows are vacuumed and analyzed right
# after each pgbench run, and every measured run starts once no autovacuum worker is running.
quiet() {
  vacuumdb -q -z -d feira_pgbench >/dev/null 2>&1 || true
  for _ in $(seq 1 60); do
    [ "$(psql -qAt -d postgres -c "select count(*) from pg_stat_activity where backend_type = 'autovacuum worker'")" = 0 ] && return 0
    sleep 1
  done
}
pgb() { local tps; tps=$(pgbench -c 16 -j 2 -T 10 -n feira_pgbench 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p'); quiet; echo "$tps"; }
# 15 s of warm-up: a 10 s run after 3 s spent a fifth of the API's CPU in TurboFan compiling
# (bench/RESULTS.md, issue 50); a running server is past that.
card() { quiet; npx tsx bench/run.ts charge-card --warmup 15 --duration 10 --connections 16 "$@" 2>/dev/null | grep '^| charge-card'; }
rate_of() { echo "$1" | awk -F'|' '{gsub(/ /,"",$3); print $3}'; }
load() { uptime | sed 's/.*average: //'; }

echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD) node $(node --version) $(nproc) cores; load $(load)"
echo "## 1. card charges next to pgbench (limits counting: RATE_LIMIT_PER_KEY=1000000)"
before=$(pgb)
direct=$(RATE_LIMIT_PER_KEY=1000000 card)
after=$(pgb)
peak=$(rate_of "$direct")
echo "pgbench tps: $before, $after"
echo "| scenario | req/s | p50 ms | p99 ms | requests | vs ceiling | server CPU ms | db CPU ms |"
echo "$direct"
node -e 'const [p,a,b]=process.argv.slice(1).map(Number);console.log(`card / pgbench: ${(p/((a+b)/2)).toFixed(2)} (target 0.5)`)' "$peak" "$before" "$after"
fixed=$(node -e 'console.log(Math.round(Number(process.argv[1])*0.8))' "$peak")
echo "at a fixed ${fixed}/s (80 % of the peak; target p99 <= 25 ms):"
RATE_LIMIT_PER_KEY=1000000 card --rate "$fixed"
echo "load $(load)"

echo "## 2-3. slow processor (target: 0.9 of min(clients / latency, card rate), p99 <= the processor's + 50 ms), and 1,024 charges waiting (target <= 150 MB)"
quiet
BENCH_LATENCIES="300" BENCH_CONNECTIONS="256" npx tsx bench/slow-processor.ts 2>/dev/null | grep -v -e '^\s*$' -e '^{' || true
quiet
BENCH_LATENCIES="1000" BENCH_CONNECTIONS="1024" BENCH_HOLD=0 npx tsx bench/slow-processor.ts 2>/dev/null | grep -v -e '^\s*$' -e '^{' || true
echo "load $(load)"

echo "## 4. through PgBouncer (transaction mode) and direct, alternated"
for i in 1 2; do
  pooled=$(RATE_LIMIT_PER_KEY=1000000 card --pooler)
  plain=$(RATE_LIMIT_PER_KEY=1000000 card)
  echo "pooled: $pooled"
  echo "direct: $plain"
  node -e 'const [a,b]=process.argv.slice(1).map(Number);console.log(`pooled / direct: ${(a/b).toFixed(2)} (target 0.9)`)' "$(rate_of "$pooled")" "$(rate_of "$plain")"
done
echo "# end $(date -u +%FT%TZ); load $(load)"
