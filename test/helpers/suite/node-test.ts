import * as real from "node:test";

// What a test file (and a test helper) gets for `node:test` inside a process of the suite's
// runner (shard.ts redirects the import here). node:test files a test() under the test or
// describe whose code is running, found by async id; a file imported inside a describe loses
// it at its first await, or when a module it imports has a top-level await (the fakes' main
// blocks do), and its tests then land under another file or the root. So while shard.ts
// imports a file, every call at its top level is recorded instead, and shard.ts replays them
// synchronously inside the file's describe. Outside an import the calls pass straight through.

let recording: (() => void)[] | undefined;

export function startRecording(): void {
  recording = [];
}

export function stopRecording(): (() => void)[] {
  const calls = recording ?? [];
  recording = undefined;
  return calls;
}

function wrap<A extends unknown[], R>(f: (...args: A) => R): (...args: A) => R | Promise<void> {
  return (...args: A) => {
    if (!recording) return f(...args);
    recording.push(() => { void f(...args); });
    return Promise.resolve();
  };
}

const withModifiers = <T extends typeof real.test | typeof real.describe>(f: T) =>
  Object.assign(wrap(f), { skip: wrap(f.skip), todo: wrap(f.todo), only: wrap(f.only) });

export const test = withModifiers(real.test);
export const it = withModifiers(real.it);
export const describe = withModifiers(real.describe);
export const suite = withModifiers(real.suite);
export const before = wrap(real.before);
export const after = wrap(real.after);
export const beforeEach = wrap(real.beforeEach);
export const afterEach = wrap(real.afterEach);
export const skip = wrap(real.skip);
export const todo = wrap(real.todo);
export const only = wrap(real.only);
export const { mock, run } = real;
export default test;
