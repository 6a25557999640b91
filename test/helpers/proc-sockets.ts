import { readdirSync, readFileSync, readlinkSync } from "node:fs";

// Who holds a TCP socket, read from Linux's /proc: which process a listening port belongs to
// (feira-process.ts) and which process of a cluster a connection was handed to
// (foundation/cluster.test.ts). Each function answers undefined where /proc cannot tell.

const hexPort = (port: number) => `:${port.toString(16).toUpperCase().padStart(4, "0")}`;

/** The inodes of the TCP sockets whose local port is `local`, and whose remote port is `remote` when given ("0A": listening). */
export function socketInodes(local: number, opts: { remote?: number; listening?: boolean }): Set<string> | undefined {
  try {
    const inodes = new Set<string>();
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
        const f = line.trim().split(/\s+/);
        if (f.length <= 9 || !f[1]!.endsWith(hexPort(local))) continue;
        if (opts.remote !== undefined && !f[2]!.endsWith(hexPort(opts.remote))) continue;
        if (opts.listening && f[3] !== "0A") continue;
        inodes.add(`socket:[${f[9]}]`);
      }
    }
    return inodes;
  } catch {
    return undefined;
  }
}

/** `pid` and every process below it (a cluster primary's workers, a wrapper's node). */
export function withDescendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const d of readdirSync("/proc").filter((x) => /^\d+$/.test(x))) {
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, "utf8").replace(/^.*\) /, "").split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(d)]);
    } catch { /* gone meanwhile */ }
  }
  const out: number[] = [];
  for (let queue = [pid]; queue.length > 0;) {
    const p = queue.shift()!;
    out.push(p);
    queue = [...queue, ...(parents.get(p) ?? [])];
  }
  return out;
}

/** Whether `pid` holds one of `inodes`; undefined when its descriptors cannot be read. */
export function holdsSocket(pid: number, inodes: ReadonlySet<string>): boolean | undefined {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  for (const fd of fds) {
    try { if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return true; } catch { /* closed meanwhile */ }
  }
  return false;
}
