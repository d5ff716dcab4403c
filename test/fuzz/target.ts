import type fc from 'fast-check';

/** A property as fast-check runs it, synchronous or not. */
export type FuzzProperty = fc.IAsyncPropertyWithHooks<unknown[]> | fc.IPropertyWithHooks<unknown[]>;

/**
 * One fuzzing target: a property over generated inputs that must hold for every one of them —
 * in svc's case, "no crash, no hang, only errors that name the input". `npm test` runs each with a
 * fixed seed and a few hundred inputs; `npm run fuzz` runs 100,000 or more (docs/reliability.md).
 */
export interface FuzzTarget {
  readonly name: string;
  /** What the property promises, for reports. */
  readonly promise: string;
  /** The property; a target that needs a running server starts it here, and `close` stops it. */
  readonly property: () => FuzzProperty | Promise<FuzzProperty>;
  readonly close?: () => Promise<void>;
}

/**
 * A target over a running server (`start`ed once per run of the target and reused by every input:
 * starting one per input would cost far more than the input itself).
 */
export function serverTarget<F extends { close(): Promise<void> }>(spec: {
  name: string;
  promise: string;
  start: () => Promise<F>;
  property: (fixture: F) => FuzzProperty;
}): FuzzTarget {
  let running: F | undefined;
  return {
    name: spec.name,
    promise: spec.promise,
    async property() {
      running = await spec.start();
      return spec.property(running);
    },
    async close() {
      await running?.close();
      running = undefined;
    },
  };
}
