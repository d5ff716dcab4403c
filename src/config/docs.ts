import { renderIntro } from './docs-intro.js';
import type { SettingTests, TestIndex } from './docs-tests.js';
import type { SettingsKind } from './kinds.js';
import type { SettingDef, SettingGroup } from './schema/define.js';
import { GROUPS } from './schema/index.js';
import type { JsonValue } from './values/codec.js';

/** The whole of docs/settings.md, generated from the schema and from where the tests name each setting. */
export function renderSettingsDoc(tests: TestIndex): string {
  return [renderIntro(), ...GROUPS.map((group) => renderGroup(group, tests))].join('\n');
}

function renderGroup(group: SettingGroup, tests: TestIndex): string {
  const byName = new Map<string, SettingDef[]>();
  for (const def of group.settings) byName.set(def.name, [...(byName.get(def.name) ?? []), def]);
  const entries = [...byName.values()].map((defs) => renderSetting(defs, tests));
  return `## ${group.title}\n\n${markdownText(group.intro)}\n\n${entries.join('\n')}`;
}

/** One setting; several definitions of one name differ only in their kinds and defaults. */
function renderSetting(defs: readonly SettingDef[], tests: TestIndex): string {
  const [def] = defs;
  if (def === undefined) return '';
  const kinds = defs.flatMap((each) => each.kinds);
  const defaults =
    defs.length === 1
      ? defaultText(def)
      : defs.map((each) => `${defaultText(each)} (${kindList(each.kinds)})`).join('; ');
  const lines = [
    `### \`${def.name}\``,
    '',
    `- Type: ${def.codec.type} — ${markdownText(def.codec.expected)}`,
    `- Default: ${markdownText(defaults)}`,
    `- Required: ${def.required ? 'yes' : 'no'}`,
    `- Accepted by: ${kindList(kinds)}`,
    ...(def.secret ? ['- **secret**'] : []),
    ...(def.addition ? ['- **svc addition**: not in the specification'] : []),
    testedLine(tests.get(def.name)),
    '',
    markdownText(def.description),
    '',
  ];
  return lines.join('\n');
}

/** Says only what the scan found: a setting no test names is "not tested by name", never guessed at. */
export function testedLine(tests: SettingTests | undefined): string {
  const behaviour = tests?.behaviour.length
    ? `behaviour in ${links(tests.behaviour)}`
    : 'behaviour: not tested by name';
  const parsing = tests?.parsing.length
    ? `parsing and validation in the settings suite (${links(tests.parsing)})`
    : 'parsing and validation: not tested by name';
  return `- Tested: ${behaviour}; ${parsing}`;
}

/** Links relative to docs/, where the doc lives. */
function links(paths: readonly string[]): string {
  return paths.map((path) => `[${path}](../${path})`).join(', ');
}

function defaultText(def: SettingDef): string {
  if (def.defaultDoc !== undefined) return def.defaultDoc;
  if (def.default !== undefined) {
    const text = envForm(def.codec.print(def.default));
    return text === '' ? 'empty string' : `\`${text}\``;
  }
  return 'none';
}

/** A printed value written back the way the variable is written. */
function envForm(value: JsonValue): string {
  if (Array.isArray(value)) return value.map(envForm).join(',');
  if (value !== null && typeof value === 'object') {
    return Object.entries(value)
      .map(([key, entry]) => `${key}:${envForm(entry)}`)
      .join(',');
  }
  return String(value);
}

function kindList(kinds: readonly SettingsKind[]): string {
  return kinds.includes('server') ? 'server' : `${kinds.join(', ')} runner${kinds.length > 1 ? 's' : ''}`;
}

/** Escapes what Markdown would misread in plain text (`<owner>` as HTML, `*` as emphasis), leaving code spans alone. */
export function markdownText(text: string): string {
  return text
    .split('`')
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/[<>*]/g, (char) => `\\${char}`)))
    .join('`');
}
