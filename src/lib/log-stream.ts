import { createRequire } from "node:module";
import pino, { type DestinationStream } from "pino";
import type Pretty from "pino-pretty";

// Where log lines go: readable lines on a terminal (colours, local time, the message first),
// JSON lines otherwise, for log collectors. pino-pretty runs in this thread, as a stream: a
// transport would start a worker thread, too much for a terminal.
export function logStream(out: NodeJS.WriteStream = process.stdout): DestinationStream {
  if (!out.isTTY) return pino.destination(1);
  // Loaded for a terminal only: a production process writing JSON never holds it.
  const pretty = createRequire(import.meta.url)("pino-pretty") as typeof Pretty;
  return pretty({
    destination: out,
    colorize: true,
    translateTime: "SYS:HH:MM:ss.l",
    // The request line's fields are already in its message.
    ignore: "pid,hostname,method,path,status,durationMs",
    singleLine: true,
  });
}
