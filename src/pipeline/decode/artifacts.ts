import { parseDuration } from '../../config/values/duration.js';
import type { Diagnostics, Position } from '../diagnostics.js';
import type { StepArtifacts } from '../types.js';
import type { TreeNode } from '../yaml/tree.js';
import { Fields, type FieldSet } from './fields.js';
import { globProblem, sameGlob, withoutDotSlash } from './artifact-globs.js';
import { readMap } from './read.js';

/** An artifact's name: it names a file of the server's store and part of a download address. */
export const ARTIFACT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** Longest `expire_in`: 365 days. */
export const MAX_EXPIRE_IN = 365 * 24 * 3_600_000;

const DOCS = 'see "Artifacts" in docs/pipelines.md';
const STEP_KEYS = ['name', 'paths', 'expire_in', 'when', 'reports'];

const STEP_FIELDS: FieldSet = {
  what: "a step's artifacts",
  known: STEP_KEYS,
  elsewhere: new Map([['from', 'the artifacts section of a pipeline (next to steps:)']]),
  docs: DOCS,
};
const REPORT_FIELDS: FieldSet = { what: "the artifacts' reports", known: ['junit'], docs: DOCS };
const PIPELINE_FIELDS: FieldSet = {
  what: "a pipeline's artifacts",
  known: ['from'],
  elsewhere: new Map(STEP_KEYS.map((key) => [key, 'the artifacts of a step (under the step)'])),
  docs: DOCS,
};

const PATHS_EXAMPLE = 'paths: [dist/**, build/app]';
const NAME_EXPECTED =
  'letters, digits, ., _ and -, starting with a letter or a digit, at most 100 characters';
const EXPIRE_EXPECTED =
  'a duration: numbers with the units h, m, s or ms, e.g. 30m, 12h or 1h30m (days are not a unit: 7 days is 168h)';
const WHEN_EXPECTED =
  'always (upload also when the step failed) or on_success (only after the step succeeded; the default)';

/**
 * A step's `artifacts:` (svc addition): globs of workspace files to upload after the step, its name
 * (the step's when not given), how long it is kept, whether also after a failure, JUnit reports.
 * Undefined when absent or when anything in it is wrong (every problem is reported).
 */
export function readArtifacts(
  node: TreeNode | undefined,
  field: string,
  at: Position,
  stepName: string,
  diagnostics: Diagnostics,
): StepArtifacts | undefined {
  if (node === undefined) return undefined;
  const map = readMap(node, field, `a map with the files to upload, e.g. {${PATHS_EXAMPLE}}`, diagnostics);
  if (map === undefined) return undefined;
  const fields = new Fields(map, field, diagnostics).expect(STEP_FIELDS);
  const check = new Check(diagnostics);
  const name = readName(fields, stepName, at, check);
  const paths = readGlobs(fields, 'paths', check);
  const junit = readReports(fields, check);
  if (paths === undefined && junit === undefined) {
    check.error(
      fields,
      'paths',
      `is required unless reports.junit is given: expected the files to upload, globs relative to the workspace, e.g. ${PATHS_EXAMPLE}`,
    );
  }
  const expireIn = readExpireIn(fields, check);
  const always = readWhen(fields, check);
  if (!check.ok || name === undefined || expireIn === undefined || always === undefined) return undefined;
  const namePosition = fields.node('name')?.position ?? at;
  return {
    name,
    paths: paths ?? [],
    expireIn,
    always,
    reports: { junit: junit ?? [] },
    position: at,
    namePosition,
  };
}

/**
 * A pipeline's `artifacts: {from: [...]}`: the names as written, each noted in the pipeline's
 * locations as `artifacts.from[i]` for the checks across pipelines (lint/artifacts.ts). Empty when
 * absent or when an entry is not a usable name (reported).
 */
export function readArtifactsFrom(pipeline: Fields): string[] {
  const node = pipeline.node('artifacts');
  if (node === undefined) return [];
  const field = pipeline.field('artifacts');
  const example = 'from: [build]';
  const map = readMap(
    node,
    field,
    `a map with the pipelines whose artifacts this one takes, e.g. {${example}}`,
    pipeline.diagnostics,
  );
  if (map === undefined) return [];
  const fields = new Fields(map, field, pipeline.diagnostics).expect(PIPELINE_FIELDS);
  const check = new Check(pipeline.diagnostics);
  if (fields.node('from') === undefined) {
    check.error(
      fields,
      'from',
      `is required: expected the pipelines of this file whose artifacts are put into the workspace before the first step, e.g. ${example}`,
    );
    return [];
  }
  const seen = new Set<string>();
  const items = stringItems(fields, 'from', `names of pipelines, e.g. ${example}`, check, (name) => {
    if (name.trim() === '') return `is empty; expected the name of a pipeline, e.g. ${example}`;
    if (seen.has(name)) return `"${name}" is listed already; expected each pipeline once`;
    seen.add(name);
    return undefined;
  });
  if (!check.ok) return [];
  items.forEach((item) => pipeline.note(`artifacts.from[${item.index}]`, item.position));
  return items.map((item) => item.value);
}

/** Collects errors; `ok` turns false at the first. */
class Check {
  ok = true;
  readonly diagnostics: Diagnostics;

  constructor(diagnostics: Diagnostics) {
    this.diagnostics = diagnostics;
  }

  /** Something read elsewhere (by `Fields`) was wrong and is reported already. */
  fail(): void {
    this.ok = false;
  }

  /** An error at the value of `key` (a field or a list item), or where it should be. */
  error(fields: Fields, key: string, message: string): void {
    this.ok = false;
    const at = fields.node(key)?.position ?? fields.locations[key] ?? fields.at(key);
    this.diagnostics.error(at, fields.field(key), message);
  }
}

function readName(fields: Fields, stepName: string, at: Position, check: Check): string | undefined {
  if (fields.node('name') === undefined) {
    // A step without a name is reported as such; its artifacts are dropped without a second message.
    if (stepName.trim() === '') check.fail();
    else if (!ARTIFACT_NAME.test(stepName)) {
      check.fail();
      check.diagnostics.error(
        at,
        fields.field('name'),
        `is required here: the step's name "${stepName}" is not an artifact name; expected ${NAME_EXPECTED}, e.g. name: ${slug(stepName)}`,
      );
    }
    return stepName;
  }
  const name = fields.string('name', `an artifact name, e.g. name: binaries`);
  if (name === undefined) {
    check.fail();
    return undefined;
  }
  if (!ARTIFACT_NAME.test(name)) {
    check.error(
      fields,
      'name',
      `"${name}" is not an artifact name; expected ${NAME_EXPECTED}, e.g. name: ${slug(name)}`,
    );
  }
  return name;
}

/** A name close to `text` that is an artifact name. */
function slug(text: string): string {
  const name = text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100);
  return name === '' ? 'binaries' : name;
}

/** `reports: {junit: [...]}`: the JUnit globs; undefined when none are given. */
function readReports(fields: Fields, check: Check): string[] | undefined {
  const node = fields.node('reports');
  if (node === undefined) return undefined;
  const field = fields.field('reports');
  const map = readMap(node, field, 'a map of test reports, e.g. {junit: [reports/*.xml]}', check.diagnostics);
  if (map === undefined) {
    // Reported; no second message saying that paths or reports are missing.
    check.fail();
    return [];
  }
  return readGlobs(new Fields(map, field, check.diagnostics).expect(REPORT_FIELDS), 'junit', check);
}

/**
 * A list of globs (or one), each checked at its own line, each once; a leading `./` is dropped.
 * Undefined when the field is absent or an empty list.
 */
function readGlobs(fields: Fields, key: 'paths' | 'junit', check: Check): string[] | undefined {
  const node = fields.node(key);
  if (node === undefined || (node.kind === 'seq' && node.items.length === 0)) return undefined;
  const example = key === 'paths' ? PATHS_EXAMPLE : 'junit: [reports/*.xml]';
  const seen = new Map<string, string>();
  const items = stringItems(
    fields,
    key,
    `globs relative to the workspace, e.g. ${example}`,
    check,
    (glob) => {
      const problem = globProblem(glob);
      if (problem !== undefined) return problem;
      const earlier = seen.get(sameGlob(glob));
      if (earlier !== undefined)
        return `"${glob}" is listed already (as "${earlier}"); expected each glob once`;
      seen.set(sameGlob(glob), glob);
      return undefined;
    },
  );
  for (const item of items) {
    if (item.value.endsWith('/')) {
      check.diagnostics.warning(
        item.position,
        fields.field(`${key}[${item.index}]`),
        `"${item.value}" ends in /, so it matches no file; expected a glob of the files, e.g. ${item.value}** for every file below ${item.value}`,
      );
    }
  }
  return items.map((item) => withoutDotSlash(item.value));
}

function readExpireIn(fields: Fields, check: Check): number | undefined {
  if (fields.node('expire_in') === undefined) return 0;
  const text = fields.string('expire_in', EXPIRE_EXPECTED);
  if (text === undefined) {
    check.fail();
    return undefined;
  }
  const ms = parseDuration(text.trim());
  if (ms === undefined) {
    check.error(fields, 'expire_in', `"${text}" is not a duration; expected ${EXPIRE_EXPECTED}`);
  } else if (ms === 0) {
    check.error(
      fields,
      'expire_in',
      `is zero; expected a duration over 0, e.g. 12h, or no expire_in for the server's default`,
    );
  } else if (ms > MAX_EXPIRE_IN) {
    check.error(
      fields,
      'expire_in',
      `"${text}" is longer than 365 days; expected at most 8760h, or no expire_in for the server's default`,
    );
  }
  return ms;
}

/** `when:` as `always`; false (only after success) when absent. */
function readWhen(fields: Fields, check: Check): boolean | undefined {
  if (fields.node('when') === undefined) return false;
  const text = fields.string('when', WHEN_EXPECTED);
  if (text === undefined) {
    check.fail();
    return undefined;
  }
  if (text === 'always') return true;
  if (text === 'on_success') return false;
  check.error(fields, 'when', `unknown value "${text}"; expected ${WHEN_EXPECTED}`);
  return undefined;
}

/** One string of a list, with its index and place in the file. */
interface Item {
  readonly value: string;
  readonly index: number;
  readonly position: Position;
}

/**
 * A list of strings (or one string), each checked with `problemOf` at its own line. An item that is
 * not a string is reported (by `Fields.strings`) and fails the check.
 */
function stringItems(
  fields: Fields,
  key: string,
  expected: string,
  check: Check,
  problemOf: (value: string) => string | undefined,
): Item[] {
  const node = fields.node(key);
  if (node === undefined) return [];
  const values = fields.strings(key, expected);
  const items: Item[] =
    node.kind === 'seq'
      ? node.items.flatMap((item, index) =>
          item.kind === 'scalar' && item.value !== null
            ? [{ value: item.text, index, position: item.position }]
            : [],
        )
      : values.map((value, index) => ({ value, index, position: node.position }));
  if (items.length !== (node.kind === 'seq' ? node.items.length : 1)) check.fail();
  for (const { value, index } of items) {
    const problem = problemOf(value);
    if (problem !== undefined) check.error(fields, `${key}[${index}]`, problem);
  }
  return items;
}
