import { parseArgs } from 'node:util';
import type { CommandIO } from '../io.js';
import type { ApiClient } from './api-client.js';
import { UsageError } from './errors.js';

/** An option of a verb, as node:util parseArgs declares it, with its help text. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  help: string;
}

/** What a verb gets: the API, the output, its parsed options and positional arguments. */
export interface VerbContext {
  readonly api: ApiClient;
  readonly io: CommandIO;
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>;
  readonly positionals: readonly string[];
  /** `--format json`: print the server's JSON; otherwise tables and sentences for people. */
  readonly json: boolean;
}

/** One verb of a group (`svc build ls`). */
export interface Verb {
  /** Positional arguments, for the help: `<owner/name> <number>`. */
  readonly args: string;
  readonly summary: string;
  readonly options?: Readonly<Record<string, OptionSpec>>;
  run(context: VerbContext): Promise<number | void>;
}

/** A group of verbs (`svc build …`). */
export interface Group {
  readonly name: string;
  readonly summary: string;
  readonly verbs: Readonly<Record<string, Verb>>;
  /** Groups within it (`svc build artifacts ls`): `name` is the whole prefix (`build artifacts`). */
  readonly groups?: Readonly<Record<string, Group>>;
}

const FORMAT: OptionSpec = { type: 'string', help: '`table` (default) or `json`' };

/** A verb that declares its own `--format` (a file format, say) has no `--format table|json`. */
const ownsFormat = (verb: Verb) => verb.options?.format !== undefined;

/** The options and positionals of a verb's arguments; wrong usage is a UsageError saying what. */
export function parseVerb(
  verb: Verb,
  args: readonly string[],
): { values: VerbContext['values']; positionals: string[]; json: boolean; help: boolean } {
  const help: OptionSpec = { type: 'boolean', short: 'h', help: '' };
  const options: Record<string, OptionSpec> = { format: FORMAT, ...verb.options, help };
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: Object.fromEntries(
        Object.entries(options).map(([name, spec]) => [
          name,
          {
            type: spec.type,
            ...(spec.short === undefined ? {} : { short: spec.short }),
            ...(spec.multiple === true ? { multiple: true } : {}),
          },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const format = ownsFormat(verb) ? undefined : parsed.values.format;
  if (format !== undefined && format !== 'json' && format !== 'table') {
    throw new UsageError(`--format: expected table or json, got "${String(format)}"`);
  }
  return {
    // Only multiple string options give arrays: every option here is a string or a boolean.
    values: parsed.values as VerbContext['values'],
    positionals: parsed.positionals,
    json: format === 'json',
    help: parsed.values.help === true,
  };
}

/** `svc <group> <verb> --help`. */
export function verbHelp(group: Group, name: string, verb: Verb): string {
  const options = Object.entries({ format: FORMAT, ...verb.options });
  const width = Math.max(...options.map(([option, spec]) => flagText(option, spec).length));
  const lines = options.map(([option, spec]) => `  ${flagText(option, spec).padEnd(width)}  ${spec.help}`);
  return `Usage: svc ${group.name} ${name} ${verb.args}\n\n${verb.summary}\n\nOptions:\n${lines.join('\n')}\n`;
}

/** `svc <group> --help`: the group's verbs, and its groups' (`artifacts ls <owner/name> <number>`). */
export function groupHelp(group: Group): string {
  const verbs: [string, Verb][] = [
    ...Object.entries(group.verbs),
    ...Object.entries(group.groups ?? {}).flatMap(([prefix, inner]) =>
      Object.entries(inner.verbs).map(([name, verb]): [string, Verb] => [`${prefix} ${name}`, verb]),
    ),
  ];
  const width = Math.max(...verbs.map(([name, verb]) => `${name} ${verb.args}`.length));
  const lines = verbs.map(([name, verb]) => `  ${`${name} ${verb.args}`.padEnd(width)}  ${verb.summary}`);
  return (
    `Usage: svc ${group.name} <command> [options]\n\n${group.summary}\n\nCommands:\n${lines.join('\n')}\n\n` +
    `Run 'svc ${group.name} <command> --help' for a command's options.\n`
  );
}

function flagText(option: string, spec: OptionSpec): string {
  const value = spec.type === 'string' ? ` <${spec === FORMAT ? 'table|json' : 'value'}>` : '';
  return `${spec.short === undefined ? '' : `-${spec.short}, `}--${option}${value}`;
}
