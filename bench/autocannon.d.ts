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
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
