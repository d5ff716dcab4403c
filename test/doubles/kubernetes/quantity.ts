/*
 * Kubernetes resource quantities (`100m`, `0.5`, `128Mi`, `1G`, `1e3`): k8s.io/apimachinery's
 * resource.Quantity grammar, evaluated as plain numbers (precision is not a concern of a test double).
 */

const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The regular expression the API server quotes when it rejects a quantity. */
export const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

/** The value of a quantity, or undefined when it is not one. */
export function parseQuantity(quantity: string | number | undefined): number | undefined {
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? quantity : undefined;
  if (quantity === undefined) return undefined;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][-+]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(
    quantity,
  );
  if (match === null) return undefined;
  const [, digits = '0', exponent, suffix = ''] = match;
  const base = Number(digits);
  if (exponent !== undefined) return base * 10 ** Number(exponent.slice(1));
  const factor = SUFFIXES[suffix];
  return factor === undefined ? undefined : base * factor;
}

/** CPU as whole millicores, rounded up as the API server does. */
export function milliCpu(quantity: string | number | undefined): number {
  const value = parseQuantity(quantity);
  return value === undefined ? 0 : Math.ceil(value * 1000 - 1e-9);
}

/** Memory (or storage) in whole bytes, rounded up. */
export function bytes(quantity: string | number | undefined): number {
  const value = parseQuantity(quantity);
  return value === undefined ? 0 : Math.ceil(value - 1e-9);
}
