import { encryptVerb, signVerb } from './client/yaml.js';
import { ApiClient, type ClientSettings } from './client/api-client.js';
import { buildGroup } from './client/build.js';
import { cacheGroup } from './client/cache.js';
import { groupHelp, parseVerb, verbHelp, type Group, type Verb } from './client/command.js';
import { cronGroup } from './client/cron.js';
import { environmentGroup } from './client/environment.js';
import { testGroup } from './client/tests.js';
import { fromDroneVerbs } from './client/drone-verbs.js';
import { RequestError, UsageError } from './client/errors.js';
import { queueGroup, runnerGroup } from './client/admin.js';
import { repoGroup } from './client/repo.js';
import { secretGroup } from './client/secret.js';
import { templateGroup } from './client/template.js';
import { userGroup } from './client/user.js';
import type { CommandIO } from './io.js';

/** The client's command groups (`svc build ls`) and single commands (`svc encrypt`). */
const GROUPS: Readonly<Record<string, Group>> = {
  build: buildGroup,
  secret: secretGroup,
  template: templateGroup,
  cron: cronGroup,
  cache: cacheGroup,
  environment: environmentGroup,
  test: testGroup,
  repo: repoGroup,
  user: userGroup,
  queue: queueGroup,
  runner: runnerGroup,
};
const SINGLE: Readonly<Record<string, Verb>> = { encrypt: encryptVerb, sign: signVerb };

/** The commands main.ts hands to the API client (`log` and `orgsecret`: Drone's names, fromDroneVerbs). */
export const CLIENT_COMMANDS: readonly string[] = [
  ...Object.keys(GROUPS),
  ...Object.keys(SINGLE),
  'log',
  'orgsecret',
];

/**
 * `svc <group> <verb> …`: the API client, talking to SVC_SERVER as the holder of SVC_TOKEN. Exit codes:
 * 0 done, 1 the server refused or could not be reached (`svc: <its message>`), 2 wrong usage.
 */
export async function clientCommand(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: CommandIO,
): Promise<number> {
  try {
    const found = lookup(command, args);
    if (found.kind === 'help') {
      io.stdout(found.text);
      return found.code;
    }
    const parsed = parseVerb(found.verb, found.rest);
    if (parsed.help) {
      io.stdout(verbHelp(found.group, found.name, found.verb));
      return 0;
    }
    const api = new ApiClient(settingsOf(env));
    return (await found.verb.run({ api, io, ...parsed })) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`svc: ${error.message}\nRun 'svc ${command} --help' for usage.\n`);
      return 2;
    }
    if (error instanceof RequestError) {
      io.stderr(`svc: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

type Found =
  | { kind: 'verb'; group: Group; name: string; verb: Verb; rest: readonly string[] }
  | { kind: 'help'; text: string; code: number };

function lookup(drone: string, droneArgs: readonly string[]): Found {
  const { command, args } = fromDroneVerbs(drone, droneArgs);
  const single = SINGLE[command];
  if (single !== undefined) {
    const group: Group = { name: command, summary: single.summary, verbs: { '': single } };
    return { kind: 'verb', group, name: '', verb: single, rest: args };
  }
  const group = GROUPS[command];
  if (group === undefined) throw new UsageError(`unknown command "${command}"`);
  return lookupVerb(group, args);
}

/** A group's verb, or one of its groups' (`svc build artifacts ls`), or the group's help. */
function lookupVerb(group: Group, args: readonly string[]): Found {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    return { kind: 'help', text: groupHelp(group), code: name === undefined ? 2 : 0 };
  }
  const inner = group.groups?.[name];
  if (inner !== undefined) return lookupVerb(inner, rest);
  const verb = group.verbs[name];
  if (verb === undefined) {
    const known = [...Object.keys(group.verbs), ...Object.keys(group.groups ?? {})];
    throw new UsageError(`unknown command "svc ${group.name} ${name}"; expected one of: ${known.join(', ')}`);
  }
  return { kind: 'verb', group, name, verb, rest };
}

function settingsOf(env: Readonly<Record<string, string | undefined>>): ClientSettings {
  const server = env.SVC_SERVER ?? '';
  const token = env.SVC_TOKEN ?? '';
  const missing = [
    server === '' ? 'SVC_SERVER (the server’s URL)' : '',
    token === ''
      ? 'SVC_TOKEN (your API token, made on the web UI’s account page, or by POST /api/user/token?rotate=true)'
      : '',
  ].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`set ${missing.join(' and ')}`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new UsageError(`SVC_SERVER: "${server}" is not a URL; expected e.g. https://ci.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`SVC_SERVER: expected an http or https URL, got "${server}"`);
  }
  return { server, token };
}
