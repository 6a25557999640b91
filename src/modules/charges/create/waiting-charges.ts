import { AppError } from "../../../core/errors.js";

// How many production charges one process lets wait on a processor at once
// (PROCESSOR_MAX_WAITING). A charge waits with no transaction open and no pooled connection
// held, so what a waiting charge costs is its request's memory and a socket to the provider;
// the bound keeps that finite when a provider slows down, instead of letting every new charge
// pile up until the process runs out of memory or its clients time out. Past the bound a charge
// is refused at once, before anything is written, with a time to come back after.

/** Seconds a refused client is asked to wait: slots free up as the processor answers. */
const RETRY_AFTER_SECONDS = 1;

export interface WaitingCharges {
  /**
   * Takes a slot or throws 503 `processor_busy` (nothing done yet). The slot is given back when
   * the call passed to `run` settles.
   */
  take(): { run<T>(call: () => Promise<T>): Promise<T> };
  /** Charges waiting on a processor now. */
  waiting(): number;
}

export function createWaitingCharges(max: number): WaitingCharges {
  let waiting = 0;
  return {
    take() {
      if (waiting >= max) {
        const err = new AppError(
          "processor_busy",
          `The payment processor is slow to answer and ${max} charges are already waiting on it in this server process; nothing was charged, retry after the Retry-After delay`,
        );
        err.retryAfterSeconds = RETRY_AFTER_SECONDS;
        throw err;
      }
      waiting++;
      let released = false;
      const release = () => {
        if (!released) { released = true; waiting--; }
      };
      return {
        async run(call) {
          try {
            return await call();
          } finally {
            release();
          }
        },
      };
    },
    waiting: () => waiting,
  };
}
