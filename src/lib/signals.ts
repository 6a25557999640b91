// A stop signal that arrives while a process is still starting must not kill it with the
// default action (exit by signal, open requests and the database connection cut): it is held,
// and handled by the shutdown installed once the process has started. A supervisor that sends
// SIGTERM as soon as /health answers (a test, an orchestrator's rolling restart) would otherwise
// race the few statements between listen and the shutdown handler.

export type StopSignal = "SIGTERM" | "SIGINT";
const STOP_SIGNALS: readonly StopSignal[] = ["SIGTERM", "SIGINT"];

export interface HeldSignals {
  /** Hands the stop signals to `onStop`; a signal that came before is handled now. */
  handle(onStop: (signal: StopSignal) => void): void;
  /** Gives the signals back (to a handler of the caller's); returns the one held, if any. */
  release(): StopSignal | undefined;
}

/** Installs the handlers at once; until `handle`, a stop signal is only remembered. */
export function holdStopSignals(): HeldSignals {
  let held: StopSignal | undefined;
  let onStop: ((signal: StopSignal) => void) | undefined;
  const listener = (signal: StopSignal) => {
    if (onStop) onStop(signal);
    else held ??= signal;
  };
  for (const s of STOP_SIGNALS) process.on(s, listener);
  return {
    handle(fn) {
      onStop = fn;
      if (held) fn(held);
    },
    release() {
      for (const s of STOP_SIGNALS) process.off(s, listener);
      return held;
    },
  };
}
