import { required } from './args.js';
import type { Verb, VerbContext } from './command.js';
import { UsageError } from './errors.js';
import { fields, show, table, when } from './output.js';

interface WireRunnerToken {
  name: string;
  labels: Record<string, string>;
  created: number;
  last_used: number;
  revoked: number;
  token?: string;
}

const labelText = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');

const tokenTable = (tokens: readonly WireRunnerToken[]) =>
  tokens.length === 0
    ? 'no runner tokens\n'
    : table(
        ['NAME', 'LABELS', 'CREATED', 'LAST USED', 'REVOKED'],
        tokens.map((t) => [t.name, labelText(t.labels), when(t.created), when(t.last_used), when(t.revoked)]),
      );

const created = (t: WireRunnerToken) =>
  fields([
    ['Runner', t.name],
    ['Labels', labelText(t.labels)],
    // The one chance to see it: the server keeps its hash only.
    ['Token', t.token ?? ''],
    ['Use', `SVC_RPC_SECRET=<the token> and SVC_RUNNER_NAME=${t.name} on that runner`],
  ]);

/** `--labels zone=eu,deploy=prod` (or Drone's `zone:eu`): the labels the runner is known by. */
function parseLabels(raw: unknown): Record<string, string> {
  if (typeof raw !== 'string' || raw.trim() === '') return {};
  const labels: Record<string, string> = {};
  for (const pair of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const at = pair.search(/[=:]/);
    if (at <= 0) throw new UsageError(`--labels: "${pair}" is not key=value`);
    labels[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return labels;
}

const path = (context: VerbContext) =>
  `/api/runners/tokens/${encodeURIComponent(required(context, 1, 'the runner name'))}`;

/** `svc runner token create NAME [--labels …] | ls | revoke NAME` (administrators only). */
export const runnerTokenVerb: Verb = {
  args: 'create <name> [--labels k=v,…] | ls | revoke <name>',
  summary: 'Runners’ own tokens: create one (shown once), list them, revoke one at once',
  options: {
    labels: { type: 'string', help: 'labels the runner is known by, in place of its own: k=v,k=v' },
  },
  async run(context) {
    const [action] = context.positionals;
    switch (action) {
      case 'create': {
        const body = {
          name: required(context, 1, 'the runner name'),
          labels: parseLabels(context.values.labels),
        };
        show(context, await context.api.post<WireRunnerToken>('/api/runners/tokens', body), created);
        return;
      }
      case 'ls':
        show(context, await context.api.get<WireRunnerToken[]>('/api/runners/tokens'), tokenTable);
        return;
      case 'revoke':
        await context.api.delete(path(context));
        if (!context.json) context.io.stdout(`runner token ${context.positionals[1]} revoked\n`);
        return;
      case undefined:
      default:
        throw new UsageError('svc runner token: expected create <name>, ls or revoke <name>');
    }
  },
};
