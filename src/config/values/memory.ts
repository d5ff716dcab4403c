import { fail, ok, shown, type Codec } from './codec.js';

// Binary units only, as Kubernetes quantities spell them; `KiB` and `Ki` mean the same.
const UNITS = [
  ['Ti', 2 ** 40],
  ['Gi', 2 ** 30],
  ['Mi', 2 ** 20],
  ['Ki', 2 ** 10],
] as const;
const EXPECTED = 'a whole number of bytes or a number with a binary unit, such as 512MiB, 2Gi or 1048576';

/** Parses `512MiB`, `512Mi`, `2GiB` or plain bytes; undefined when the text is not a memory size. */
export function parseMemorySize(text: string): number | undefined {
  const match = /^(\d+)(?:(Ki|Mi|Gi|Ti)B?)?$/.exec(text);
  if (!match) return undefined;
  const unit = UNITS.find(([name]) => name === match[2]);
  const bytes = Number(match[1]) * (unit?.[1] ?? 1);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** The largest binary unit that divides the size exactly (`512MiB`), else plain bytes (`1000`). */
export function formatMemorySize(bytes: number): string {
  const unit = UNITS.find(([, size]) => bytes % size === 0);
  return unit === undefined ? String(bytes) : `${bytes / unit[1]}${unit[0]}B`;
}

/** A memory size in bytes, at least one byte. */
export const memorySize: Codec<number> = {
  type: 'memory',
  expected: EXPECTED,
  parse(raw, ctx) {
    const bytes = parseMemorySize(raw);
    if (bytes === undefined) return fail(`${shown(raw, ctx)} is not a memory size; expected ${EXPECTED}`);
    return bytes === 0 ? fail(`${shown(raw, ctx)} is zero; expected ${EXPECTED}`) : ok(bytes);
  },
  print: formatMemorySize,
};
