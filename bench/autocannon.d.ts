// The part of autocannon 9's programmatic API that the benchmarks use (the package ships no types).
declare module "autocannon" {
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  export interface Options extends Request {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    timeout?: number;
    /** Replaces `[<id>]` in the body with a fresh id for every request. */
    idReplacement?: boolean;
    requests?: (Request & { setupRequest?: (req: Request, context: Record<string, unknown>) => Request })[];
  }
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  /** The running load: awaited for its result, and an emitter of each response as it comes. */
  export interface Instance extends PromiseLike<Result> {
    /** A response: its status, its size and its time from the request's write (ms). */
    on(event: "response", listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): this;
    /** A request that failed or timed out ("request timed out"). */
    on(event: "reqError", listener: (error: Error) => void): this;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
