import { createHash } from "node:crypto";
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, rmSync, writeSync } from "node:fs";
import net from "node:net";
import path from "node:path";

// PGlite has no lock of its own: two processes on one data directory corrupt it. Two layers:
// 1. On Linux, a kernel mutex: an abstract Unix socket named after the directory's real path.
//    Binding it is atomic, and the kernel releases it when the process dies, kill -9 included,
//    so there is no stale state to take over and no check-then-act race between two starts.
// 2. A pid file created with O_EXCL, which names the holder in the error message and is the
//    only lock where abstract sockets do not exist. A file left by a dead process is taken
//    over; on Linux the socket makes that takeover safe, since only its holder gets this far.

export class DataDirInUse extends Error {}

const inUse = (dataDir: string, pid: number | null) => new DataDirInUse(
  `The data directory ${dataDir} is in use by another feira process${pid ? ` (pid ${pid})` : ""}. ` +
    "The embedded database admits one process; stop the other one, use another DATA_DIR, " +
    "or set DATABASE_URL to share a PostgreSQL server between processes.",
);

export async function lockDataDir(dataDir: string): Promise<() => void> {
  // Only this user may enter the directory: it holds the database, secrets.json and the lock.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const file = path.join(dataDir, "feira.lock");
  const mutex = await kernelMutex(dataDir, () => inUse(dataDir, readPid(file)));
  try {
    takePidFile(dataDir, file);
  } catch (err) {
    mutex?.close();
    throw err;
  }
  return () => {
    rmSync(file, { force: true });
    mutex?.close();
  };
}

async function kernelMutex(dataDir: string, busy: () => Error): Promise<net.Server | null> {
  if (process.platform !== "linux") return null;
  const name = createHash("sha256").update(realpathSync(dataDir)).digest("hex").slice(0, 32);
  const server = net.createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => reject(err.code === "EADDRINUSE" ? busy() : err));
    server.listen({ path: `\0feira-data-dir-${name}` }, () => {
      server.unref(); // the lock must not keep the process alive
      resolve(server);
    });
  });
}

function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function takePidFile(dataDir: string, file: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = readPid(file);
      if (pid !== null && pid !== process.pid && isAlive(pid)) throw inUse(dataDir, pid);
      rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not lock ${file}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Owner-only modes for what is already in the data directory (directories 0700, files 0600),
 * for directories made by older versions; with the umask main.ts sets, new files get them too.
 */
export function restrictDataDir(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      chmodSync(full, 0o700);
      restrictDataDir(full);
    } else if (entry.isFile()) {
      chmodSync(full, 0o600);
    }
  }
}
