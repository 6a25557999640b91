import pino, { type DestinationStream } from "pino";
import pretty from "pino-pretty";

// Where log lines go: readable lines on a terminal (colours, local time, the message first),
// JSON lines otherwise, for log collectors. pino-pretty runs in this thread, as a stream: a
// transport would start a worker thread, too much for a terminal.
export function logStream(out: NodeJS.WriteStream = process.stdout): DestinationStream {
  if (!out.isTTY) return pino.destination(1);
  return pretty({
    destination: out,
    colorize: true,
    translateTime: "SYS:HH:MM:ss.l",
    // The request line's fields are already in its message.
    ignore: "pid,hostname,method,path,status,durationMs",
    singleLine: true,
  });
}
