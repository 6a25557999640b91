// The floor under target 4 of issue 26, run by bench/slow-processor.ts beside feira's API: the
// least a Node process can hold per charge that waits on a processor. One Fastify route (feira's
// framework, the same version) parses a charge's JSON body and waits on an undici POST (feira's
// HTTP client to the processors, the same version and Agent settings) to the same fake, and
// answers when the fake does. No database, no logger, no feira code. It reports, in /metrics,
// the two gauges of feira's that the bench reads: requests waiting, and the V8 heap.
//
//   node [the flags of `npm run api`] bench/waiting-floor.mjs <port> <url the route POSTs to>
// Plain JavaScript, so that no TypeScript loader sits in the process being measured.
import Fastify from "fastify";
import { Agent, request } from "undici";

const port = Number(process.argv[2]);
const target = process.argv[3];
if (!Number.isInteger(port) || !target) throw new Error("usage: node bench/waiting-floor.mjs <port> <url>");

const agent = new Agent({ keepAliveTimeout: 4_000, connections: 1024 });
const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
let waiting = 0;

app.post("/v1/charges", async (req, reply) => {
  waiting++;
  try {
    const res = await request(target, {
      method: "POST", dispatcher: agent, headers: { accept: "application/json", "content-type": "application/json" },
      body: JSON.stringify(req.body), headersTimeout: 15_000, bodyTimeout: 15_000,
    });
    await res.body.text();
    return reply.code(201).send({ status: "paid" });
  } finally {
    waiting--;
  }
});

app.get("/metrics", async (_req, reply) => {
  const m = process.memoryUsage();
  reply.type("text/plain; version=0.0.4");
  return [
    `feira_processor_waiting_charges ${waiting}`,
    `feira_nodejs_heap_size_used_bytes ${m.heapUsed}`,
    `feira_nodejs_heap_size_total_bytes ${m.heapTotal}`,
    `feira_nodejs_external_memory_bytes ${m.external}`,
    "",
  ].join("\n");
});

app.get("/health", async () => ({ status: "ok" }));

await app.listen({ port, host: "127.0.0.1" });
console.log(`waiting-floor listening on ${port}`);
process.once("SIGTERM", () => void app.close().then(() => agent.close()).then(() => process.exit(0)));
