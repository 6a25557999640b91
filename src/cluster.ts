import cluster, { type Worker as ClusterProcess } from "node:cluster";
import type pino from "pino";

// WEB_CONCURRENCY > 1 (PostgreSQL only): the primary process holds the port and hands each new
// connection to one of N API processes (node:cluster, round robin). It serves no request and
// runs no job itself, so a bug in a request cannot take it down; it only keeps the count:
// - a process that dies is replaced (after a pause if it died young, so a crash loop does not spin);
// - a process told to stop (SIGTERM, a rolling restart) says so first, and its replacement is
//   started at once, while it drains, so capacity never drops by more than one process;
// - if no API process ever listened (port taken, bad configuration), the primary gives up with
//   exit code 1 instead of restarting it forever.

export type ChildRole = "api" | "worker";
const ROLE_ENV = "FEIRA_CLUSTER_ROLE";

type ChildMessage = { feira?: "listening" | "draining" };
/** The primary's one message: the first-start keys are printed, serve requests. */
type PrimaryMessage = { feira?: "serve" };

/** In a child of the cluster, the role the primary gave it; undefined in a plain process. */
export function clusterChildRole(): ChildRole | undefined {
  return cluster.isWorker ? (process.env[ROLE_ENV] as ChildRole) : undefined;
}

/** Tells the primary (if any) that this process listens, or has begun to drain. */
export function tellPrimary(what: "listening" | "draining"): void {
  if (cluster.isWorker) process.send?.({ feira: what } satisfies ChildMessage);
}

/** In an API process of the cluster: calls `open` once the primary says to serve requests. */
export function whenPrimaryServes(open: () => void): void {
  process.on("message", (m: PrimaryMessage) => { if (m?.feira === "serve") open(); });
}

export function superviseCluster(opts: { apiProcesses: number; withWorker: boolean; log: pino.Logger }): { firstListening: Promise<void>; serve(): void } {
  const { log } = opts;
  let stopping = false;
  let everListened = false;
  // API processes hold their requests until the primary has printed the first-start keys;
  // those that listen after that are told at once.
  let serving = false;
  const listening = new Set<ClusterProcess>();
  const tellServe = (child: ClusterProcess) => { if (child.isConnected()) child.send({ feira: "serve" } satisfies PrimaryMessage); };
  const replaced = new WeakSet<ClusterProcess>();
  let resolveFirst!: () => void;
  const firstListening = new Promise<void>((resolve) => { resolveFirst = resolve; });

  function fork(role: ChildRole): void {
    const child = cluster.fork({ [ROLE_ENV]: role });
    const startedAt = Date.now();
    child.on("message", (m: ChildMessage) => {
      if (m?.feira === "listening") {
        everListened = true;
        log.info({ childPid: child.process.pid }, "API process listening");
        listening.add(child);
        if (serving) tellServe(child);
        resolveFirst();
      } else if (m?.feira === "draining" && !stopping && !replaced.has(child)) {
        replaced.add(child);
        log.info({ childPid: child.process.pid, role }, "process draining; starting its replacement");
        fork(role);
      }
    });
    child.on("exit", (code, signal) => {
      listening.delete(child);
      if (stopping || replaced.has(child)) return;
      if (role === "api" && !everListened) {
        log.error({ childPid: child.process.pid, code, signal }, "API process exited before listening; stopping");
        stop(1);
        return;
      }
      log.error({ childPid: child.process.pid, code, signal, role }, "process died; starting another");
      const pause = Date.now() - startedAt < 5_000 ? 1_000 : 0;
      setTimeout(() => { if (!stopping) fork(role); }, pause);
    });
  }

  function stop(code: number): void {
    if (stopping) return;
    stopping = true;
    const living = () => Object.values(cluster.workers ?? {}).filter((w): w is ClusterProcess => Boolean(w));
    const exitWhenAlone = () => { if (living().length === 0) process.exit(code); };
    cluster.on("exit", exitWhenAlone);
    for (const w of living()) w.process.kill("SIGTERM");
    exitWhenAlone();
  }

  for (let i = 0; i < opts.apiProcesses; i++) fork("api");
  if (opts.withWorker) fork("worker");
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      log.info({ signal }, "stopping every process of the cluster");
      stop(0);
    });
  }
  const serve = () => {
    serving = true;
    for (const child of listening) tellServe(child);
  };
  return { firstListening, serve };
}
