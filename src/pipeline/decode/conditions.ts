import { BUILD_EVENTS } from '../../core/build.js';
import type { Diagnostics } from '../diagnostics.js';
import { CONDITION_NAMES, type Condition, type ConditionName, type Conditions } from '../types.js';
import type { TreeNode, TreeScalar } from '../yaml/tree.js';
import { fieldsOf } from './fields.js';
import { child, readStrings } from './read.js';

const NONE: Condition = { include: [], exclude: [] };

/** Conditions that match anything: a step without `when`, a pipeline without `trigger`. */
export const NO_CONDITIONS: Conditions = Object.fromEntries(
  CONDITION_NAMES.map((name) => [name, NONE]),
) as Record<ConditionName, Condition>;

const CONDITIONS_SET = {
  what: 'a condition section',
  // `path` is Woodpecker's spelling of `paths`.
  known: [...CONDITION_NAMES, 'path'],
  docs: 'see "Conditions" in docs/pipelines.md',
};
const INCLUDE_EXCLUDE = { what: 'a condition', known: ['include', 'exclude'] };
const PATTERNS = 'glob patterns';

/**
 * A `when` or `trigger` section. Each condition is a pattern, a list of patterns, or
 * `{include: …, exclude: …}` where each side is a pattern or a list.
 */
export function readConditions(
  node: TreeNode | undefined,
  field: string,
  diagnostics: Diagnostics,
): Conditions {
  if (node === undefined) return NO_CONDITIONS;
  const fields = fieldsOf(node, field, CONDITIONS_SET, diagnostics);
  if (fields === undefined) return NO_CONDITIONS;
  const result: Record<ConditionName, Condition> = { ...NO_CONDITIONS };
  for (const name of CONDITION_NAMES) {
    const value = fields.node(name);
    if (value !== undefined) result[name] = readCondition(name, value, child(field, name), diagnostics);
  }
  const path = fields.node('path');
  if (path !== undefined) {
    if (fields.has('paths'))
      diagnostics.error(
        fields.at('path'),
        child(field, 'path'),
        'is Woodpecker’s spelling of paths, which this section has too; expected one of them',
      );
    else result.paths = readCondition('paths', path, child(field, 'path'), diagnostics);
  }
  return result;
}

function readCondition(
  name: ConditionName,
  node: TreeNode,
  field: string,
  diagnostics: Diagnostics,
): Condition {
  checkValues(name, node, field, diagnostics);
  if (node.kind !== 'map') return { include: readStrings(node, field, PATTERNS, diagnostics), exclude: [] };
  const fields = fieldsOf(node, field, INCLUDE_EXCLUDE, diagnostics);
  if (fields === undefined) return NONE;
  return {
    include: fields.strings('include', PATTERNS),
    exclude: fields.strings('exclude', PATTERNS),
  };
}

const EVENTS: readonly string[] = BUILD_EVENTS;
const STATUSES = ['success', 'failure'];

/** Warns about event and status values that can never match: usually a typo or a Drone 0.8 name. */
function checkValues(name: ConditionName, node: TreeNode, field: string, diagnostics: Diagnostics): void {
  if (name !== 'event' && name !== 'status') return;
  for (const value of scalars(node)) {
    const text = value.text;
    if (/[*?[{]/.test(text)) continue;
    if (name === 'event' && !EVENTS.includes(text)) {
      const hint =
        text === 'deployment'
          ? 'the 0.8 event "deployment" is called "promote" since Drone 1.0'
          : `events are ${EVENTS.join(', ')}`;
      diagnostics.warning(value.position, field, `event "${text}" never happens; ${hint}`);
    }
    if (name === 'status' && !STATUSES.includes(text)) {
      diagnostics.warning(
        value.position,
        field,
        `status "${text}" never matches; expected success or failure (or both, to run regardless)`,
      );
    }
  }
}

function scalars(node: TreeNode): TreeScalar[] {
  switch (node.kind) {
    case 'scalar':
      return node.value === null ? [] : [node];
    case 'seq':
      return node.items.flatMap(scalars);
    case 'map':
      return node.entries.flatMap((entry) => scalars(entry.value));
  }
}
