import type { Diagnostics } from '../diagnostics.js';
import type { TreeNode } from '../yaml/tree.js';
import { describeNode } from './read.js';

const SIZE = /^(\d+(?:\.\d+)?) ?([kmgtp])?(i)?(b)?$/i;
const POWERS: Readonly<Record<string, number>> = { k: 1, m: 2, g: 3, t: 4, p: 5 };

/**
 * A size in bytes, as Drone reads `mem_limit`, `shm_size` and friends: a whole number of bytes, or a
 * string with a binary unit (`512m`, `1GiB`, `1.5g`: k, m, g, t, p are powers of 1024 with or without
 * `i`/`b`). Undefined when the text is not a size.
 */
export function parseByteSize(text: string): number | undefined {
  const match = SIZE.exec(text.trim());
  if (match === null) return undefined;
  const amount = Number(match[1]);
  const unit = match[2]?.toLowerCase();
  const power = unit === undefined ? 0 : (POWERS[unit] ?? 0);
  return Math.floor(amount * 1024 ** power);
}

const SIZE_EXPECTED = 'a size in bytes: a whole number or a string with a unit, e.g. 512MiB, 1g or 2GB';

/** Reads a byte size field; reports what it expects when the value is not one. */
export function readByteSize(node: TreeNode, field: string, diagnostics: Diagnostics): number | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'number' && Number.isSafeInteger(node.value)) {
    if (node.value >= 0) return node.value;
  } else if (node.kind === 'scalar' && typeof node.value === 'string') {
    const size = parseByteSize(node.value);
    if (size !== undefined) return size;
  }
  diagnostics.error(node.position, field, `expected ${SIZE_EXPECTED}, found ${describeNode(node)}`);
  return undefined;
}

const MILLI = /^(\d+)m$/;
const CPU_EXPECTED =
  'CPU in millicpus: a whole number (1000 is one CPU) or a string such as "500m" or "1.5" (CPUs)';

/** Reads a CPU amount of `resources`: millicpus as a number, `"500m"`, or a string count of CPUs (`"1.5"`). */
export function readMilliCpu(node: TreeNode, field: string, diagnostics: Diagnostics): number | undefined {
  if (node.kind === 'scalar') {
    if (typeof node.value === 'number' && Number.isSafeInteger(node.value) && node.value >= 0) {
      return node.value;
    }
    if (typeof node.value === 'string') {
      const milli = MILLI.exec(node.value.trim());
      if (milli?.[1] !== undefined) return Number(milli[1]);
      const cpus = Number(node.value.trim());
      if (node.value.trim() !== '' && Number.isFinite(cpus) && cpus >= 0) return Math.round(cpus * 1000);
    }
  }
  diagnostics.error(node.position, field, `expected ${CPU_EXPECTED}, found ${describeNode(node)}`);
  return undefined;
}
