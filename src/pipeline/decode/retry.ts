import { formatDuration, parseDuration } from '../../config/values/duration.js';
import type { Diagnostics } from '../diagnostics.js';
import type { StepRetry } from '../types.js';
import type { TreeNode } from '../yaml/tree.js';
import { Fields, type FieldSet } from './fields.js';
import { describeNode, readMap } from './read.js';

/** GitLab's limit, and enough: a step that fails six times in a row is failing, not flaky. */
export const MAX_RETRIES = 5;
/** A step's timeout: 1 s at least (less is a typo), 24 h at most (no runner holds a stage longer). */
const MIN_TIMEOUT_MS = 1000;
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;

const RETRY_FIELDS: FieldSet = {
  what: 'a retry',
  known: ['max', 'when'],
  docs: 'see "Retries and timeouts" in docs/pipelines.md',
};

const RETRY_EXAMPLE = 'retry: {max: 2, when: [137, infrastructure]}';
const WHEN_EXPECTED =
  'exit codes (1 to 255) and/or infrastructure (the image could not be pulled, the container was killed for memory, the engine failed), e.g. when: [137, infrastructure]';
const TIMEOUT_EXPECTED = 'a duration with the units h, m, s or ms, e.g. 10m, 90s or 1h30m';

/**
 * A step's `retry:` (svc addition): a number of retries (`retry: 2`) or `{max, when}`. Undefined
 * when absent or wrong (each problem is reported), so that a step never runs with half a rule.
 */
export function readRetry(
  node: TreeNode | undefined,
  field: string,
  diagnostics: Diagnostics,
): StepRetry | undefined {
  if (node === undefined) return undefined;
  if (node.kind === 'scalar') {
    const max = retryCount(node, field, diagnostics);
    if (max === undefined) return undefined;
    return { max, exitCodes: [], anyExit: true, infrastructure: true, position: node.position };
  }
  const map = readMap(node, field, `a number of retries or a map, e.g. ${RETRY_EXAMPLE}`, diagnostics);
  if (map === undefined) return undefined;
  const fields = new Fields(map, field, diagnostics).expect(RETRY_FIELDS);
  const maxNode = fields.node('max');
  if (maxNode === undefined) {
    diagnostics.error(fields.at('max'), fields.field('max'), `is required; expected 1 to ${MAX_RETRIES}`);
    return undefined;
  }
  const max = retryCount(maxNode, fields.field('max'), diagnostics);
  const when = readWhen(fields.node('when'), fields.field('when'), diagnostics);
  if (max === undefined || when === undefined) return undefined;
  return { max, ...when, position: node.position };
}

function retryCount(node: TreeNode, field: string, diagnostics: Diagnostics): number | undefined {
  const value = node.kind === 'scalar' ? node.value : undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_RETRIES)
    return value;
  diagnostics.error(
    node.position,
    field,
    `expected the number of retries after a failed attempt, 1 to ${MAX_RETRIES}, found ${describeNode(node)}`,
  );
  return undefined;
}

/** `when:` — absent means any failure: every non-zero exit code and the infrastructure. */
function readWhen(
  node: TreeNode | undefined,
  field: string,
  diagnostics: Diagnostics,
): Pick<StepRetry, 'exitCodes' | 'anyExit' | 'infrastructure'> | undefined {
  if (node === undefined) return { exitCodes: [], anyExit: true, infrastructure: true };
  const items = node.kind === 'seq' ? node.items : [node];
  const exitCodes: number[] = [];
  let infrastructure = false;
  let ok = true;
  items.forEach((item, index) => {
    const at = node.kind === 'seq' ? `${field}[${index}]` : field;
    const value = item.kind === 'scalar' ? item.value : undefined;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 255) {
      exitCodes.push(value);
    } else if (value === 'infrastructure') {
      infrastructure = true;
    } else {
      ok = false;
      diagnostics.error(item.position, at, `expected ${WHEN_EXPECTED}, found ${describeNode(item)}`);
    }
  });
  if (ok && items.length === 0) {
    diagnostics.error(node.position, field, `is empty; expected ${WHEN_EXPECTED}`);
    return undefined;
  }
  return ok ? { exitCodes, anyExit: false, infrastructure } : undefined;
}

/** A step's `timeout:` (svc addition) in milliseconds; 0 when absent or wrong (reported). */
export function readStepTimeout(node: TreeNode | undefined, field: string, diagnostics: Diagnostics): number {
  if (node === undefined) return 0;
  const text = node.kind === 'scalar' && typeof node.value === 'string' ? node.value.trim() : undefined;
  const ms = text === undefined ? undefined : parseDuration(text);
  if (ms === undefined) {
    const hint =
      node.kind === 'scalar' && typeof node.value === 'number'
        ? ` (a number alone has no unit: ${node.value}m?)`
        : '';
    diagnostics.error(
      node.position,
      field,
      `expected ${TIMEOUT_EXPECTED}, found ${describeNode(node)}${hint}`,
    );
    return 0;
  }
  if (ms < MIN_TIMEOUT_MS || ms > MAX_TIMEOUT_MS) {
    diagnostics.error(
      node.position,
      field,
      `${formatDuration(ms)} is out of range; expected ${formatDuration(MIN_TIMEOUT_MS)} to ${formatDuration(MAX_TIMEOUT_MS)}`,
    );
    return 0;
  }
  return ms;
}
