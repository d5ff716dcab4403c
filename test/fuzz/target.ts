import type fc from 'fast-check';

/**
 * One fuzzing target: a property over generated inputs that must hold for every one of them —
 * in svc's case, "no crash, no hang, only errors that name the input". `npm test` runs each with a
 * fixed seed and a few hundred inputs; `npm run fuzz` runs 100,000 or more (docs/reliability.md).
 */
export interface FuzzTarget {
  readonly name: string;
  /** What the property promises, for reports. */
  readonly promise: string;
  readonly property: () => fc.IAsyncPropertyWithHooks<unknown[]> | fc.IPropertyWithHooks<unknown[]>;
}
