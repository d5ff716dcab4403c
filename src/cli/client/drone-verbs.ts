/**
 * The `drone` command's verbs that svc names otherwise, rewritten to svc's, so that a Drone user's
 * scripts keep working: `build stop` (cancel), `build start` (restart), `log view` (build logs), and
 * `orgsecret`, whose organization and value are positional in Drone's client
 * (`drone orgsecret add <namespace> <name> <data>`), for `secret --org`.
 */
export function fromDroneVerbs(
  command: string,
  args: readonly string[],
): { command: string; args: readonly string[] } {
  const [verb, ...rest] = args;
  if (command === 'build' && verb === 'stop') return { command, args: ['cancel', ...rest] };
  if (command === 'build' && verb === 'start') return { command, args: ['restart', ...rest] };
  if (command === 'log' && verb === 'view') return { command: 'build', args: ['logs', ...rest] };
  if (command === 'orgsecret' && verb !== undefined) return orgSecret(verb, rest);
  return { command, args };
}

function orgSecret(verb: string, rest: readonly string[]): { command: string; args: readonly string[] } {
  // Options stay as they are (--allow-pull-request, --format); the leading words are Drone's positionals.
  const options = rest.filter((arg) => arg.startsWith('-'));
  const [namespace, name, data] = rest.filter((arg) => !arg.startsWith('-'));
  const args = [verb === 'list' ? 'ls' : verb];
  if (namespace !== undefined) args.push('--org', namespace);
  if (name !== undefined) args.push('--name', name);
  if (data !== undefined) args.push('--data', data);
  return { command: 'secret', args: [...args, ...options] };
}
