import { boolOption, defined, repoArg, required, stringOption } from './args.js';
import { buildDetails } from './build.js';
import type { Group, VerbContext } from './command.js';
import { fields, show, table, when } from './output.js';
import type { WireBuild } from './wire.js';

interface WireCron {
  name: string;
  expr: string;
  branch: string;
  target: string;
  disabled: boolean;
  next: number;
  prev: number;
}

const JOB_OPTIONS = {
  branch: { type: 'string', help: 'the branch to build (default: the default branch)' },
  target: { type: 'string', help: 'the deployment target (DRONE_DEPLOY_TO)' },
  disabled: { type: 'string', help: 'true or false: a disabled job does not run' },
} as const;

const cronPath = (context: VerbContext) => `${repoArg(context.positionals[0]).path}/cron`;
const jobPath = (context: VerbContext) =>
  `${cronPath(context)}/${encodeURIComponent(required(context, 1, 'the cron job’s name'))}`;

const cronTable = (crons: readonly WireCron[]) =>
  crons.length === 0
    ? 'no cron jobs\n'
    : table(
        ['NAME', 'EXPR', 'BRANCH', 'NEXT', 'PREV', 'DISABLED'],
        crons.map((c) => [c.name, c.expr, c.branch, when(c.next), when(c.prev), String(c.disabled)]),
      );

const cronDetails = (c: WireCron) =>
  fields([
    ['Name', c.name],
    ['Expr', c.expr],
    ['Branch', c.branch],
    ['Target', c.target],
    ['Disabled', c.disabled],
    ['Next', when(c.next)],
    ['Prev', when(c.prev)],
  ]);

function jobFields(context: VerbContext): Record<string, unknown> {
  return defined({
    branch: stringOption(context.values, 'branch'),
    target: stringOption(context.values, 'target'),
    disabled: boolOption(context.values, 'disabled'),
  });
}

export const cronGroup: Group = {
  name: 'cron',
  summary: 'Cron jobs of a repository: builds of a branch on a schedule.',
  verbs: {
    ls: {
      args: '<owner/name>',
      summary: 'Lists the cron jobs',
      async run(context) {
        show(context, await context.api.get<WireCron[]>(cronPath(context)), cronTable);
      },
    },
    info: {
      args: '<owner/name> <name>',
      summary: 'Shows a cron job',
      async run(context) {
        show(context, await context.api.get<WireCron>(jobPath(context)), cronDetails);
      },
    },
    add: {
      args: '<owner/name> <name> <expr>',
      summary: 'Adds a cron job (expr: 5 fields, 6 with seconds first, or @hourly, @daily, …)',
      options: JOB_OPTIONS,
      async run(context) {
        const body = {
          name: required(context, 1, 'the cron job’s name'),
          expr: required(context, 2, 'the cron expression'),
          ...jobFields(context),
        };
        show(context, await context.api.post<WireCron>(cronPath(context), body), cronDetails);
      },
    },
    update: {
      args: '<owner/name> <name>',
      summary: 'Changes a cron job',
      options: { ...JOB_OPTIONS, expr: { type: 'string', help: 'a new cron expression' } },
      async run(context) {
        const body = { ...jobFields(context), ...defined({ expr: stringOption(context.values, 'expr') }) };
        show(context, await context.api.patch<WireCron>(jobPath(context), body), cronDetails);
      },
    },
    rm: {
      args: '<owner/name> <name>',
      summary: 'Deletes a cron job',
      async run(context) {
        await context.api.delete(jobPath(context));
        if (!context.json) context.io.stdout(`cron job ${context.positionals[1]} deleted\n`);
      },
    },
    exec: {
      args: '<owner/name> <name>',
      summary: 'Runs a cron job now (its schedule does not change)',
      async run(context) {
        show(context, await context.api.post<WireBuild>(jobPath(context)), buildDetails);
      },
    },
  },
};
