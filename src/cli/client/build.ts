import { numberArg, paramsArg, repoArg, stringOption } from './args.js';
import { buildArtifactsGroup } from './build-artifacts.js';
import { buildTestsVerb } from './tests.js';
import { buildLogsVerb } from './build-logs.js';
import type { Group, OptionSpec, Verb, VerbContext } from './command.js';
import { UsageError } from './errors.js';
import { fields, show, table, when } from './output.js';
import type { WireBuild } from './wire.js';

const PARAM: OptionSpec = {
  type: 'string',
  short: 'p',
  multiple: true,
  help: 'KEY=VALUE build parameter (repeatable)',
};

const DEBUG: OptionSpec = {
  type: 'boolean',
  help: 'a debug build: a failing step on a docker runner with SVC_SHELLSHARE_ENABLED opens a tmate session',
};

const buildsPath = (context: VerbContext) => `${repoArg(context.positionals[0]).path}/builds`;
const numberPath = (context: VerbContext) =>
  `${buildsPath(context)}/${numberArg(context.positionals[1], 'the build number')}`;

/** One build per line, newest first. */
function buildTable(builds: readonly WireBuild[]): string {
  if (builds.length === 0) return 'no builds\n';
  return table(
    ['NUMBER', 'STATUS', 'EVENT', 'REF', 'COMMIT', 'CREATED', 'MESSAGE'],
    builds.map((b) => [
      String(b.number),
      b.status,
      b.event,
      b.ref,
      b.after.slice(0, 8),
      when(b.created),
      (b.message.split('\n')[0] ?? '').slice(0, 60),
    ]),
  );
}

/** A build, then its stages and steps; a waiting stage says why it waits (`pending_reason`). */
export function buildDetails(build: WireBuild): string {
  const head = fields([
    ['Number', build.number],
    ['Status', build.status],
    ['Event', build.event],
    ['Ref', build.ref],
    ['Commit', build.after],
    ['Author', build.author_login],
    ['Trigger', build.trigger],
    ...(build.deploy_to ? [['Target', build.deploy_to] as const] : []),
    ...(build.error ? [['Error', build.error] as const] : []),
    ['Started', when(build.started)],
    ['Finished', when(build.finished)],
    ['Message', build.message.trim()],
  ]);
  const rows: string[][] = [];
  for (const stage of build.stages ?? []) {
    const why =
      stage.pending_reason === undefined
        ? ''
        : `${stage.pending_reason.message} (${stage.pending_reason.code})`;
    rows.push([`${stage.number}`, stage.name, stage.status, stage.machine ?? '', why || stage.error || '']);
    for (const step of stage.steps ?? []) {
      rows.push([
        `${stage.number}.${step.number}`,
        `  ${step.name}`,
        step.status,
        '',
        step.exit_code ? `exit code ${step.exit_code}` : '',
      ]);
    }
  }
  return rows.length === 0
    ? head
    : `${head}\n${table(['#', 'STAGE/STEP', 'STATUS', 'MACHINE', 'NOTE'], rows)}`;
}

/** A verb whose answer is a build (created, restarted, cancelled, …), shown in full. */
function buildAction(
  args: string,
  summary: string,
  options: Verb['options'],
  send: (context: VerbContext) => Promise<WireBuild>,
): Verb {
  return {
    args,
    summary,
    ...(options === undefined ? {} : { options }),
    async run(context) {
      show(context, await send(context), buildDetails);
    },
  };
}

/**
 * Approves (or declines) stage N, or every blocked stage when none is named, with `--comment`. The
 * stages of one deployment environment are approved together: one approval is asked for each.
 */
async function review(context: VerbContext, action: 'approve' | 'decline'): Promise<WireBuild> {
  const path = numberPath(context);
  const body = { comment: stringOption(context.values, 'comment') ?? '' };
  const stage = context.positionals[2];
  if (stage !== undefined)
    return context.api.post<WireBuild>(`${path}/${action}/${numberArg(stage, 'the stage number')}`, body);
  const build = await context.api.get<WireBuild>(path);
  const blocked = (build.stages ?? []).filter((s) => s.status === 'blocked');
  if (blocked.length === 0)
    throw new UsageError(`build ${build.number} has no stage waiting for approval (it is ${build.status})`);
  let answer = build;
  const environments = new Set<string>();
  // Declining one stage declines the build (the others are skipped): one call is enough.
  for (const s of action === 'decline' ? blocked.slice(0, 1) : blocked) {
    const environment = s.deployment?.approved === false ? s.deployment.environment : undefined;
    if (environment !== undefined && environments.has(environment)) continue;
    if (environment !== undefined) environments.add(environment);
    answer = await context.api.post<WireBuild>(`${path}/${action}/${s.number}`, body);
  }
  return answer;
}

interface WireApproval {
  stage: number;
  login: string;
  decision: string;
  comment: string;
  created: number;
}

const approvalTable = (approvals: readonly WireApproval[]) =>
  approvals.length === 0
    ? 'no approvals\n'
    : table(
        ['STAGE', 'WHO', 'DECISION', 'WHEN', 'COMMENT'],
        approvals.map((a) => [
          String(a.stage),
          a.login || '(timeout)',
          a.decision,
          when(a.created),
          a.comment,
        ]),
      );

const COMMENT = { comment: { type: 'string', help: 'why, recorded with the decision' } } as const;

export const buildGroup: Group = {
  name: 'build',
  summary:
    'Builds of a repository: list, inspect, create, restart, cancel, approve, promote, logs, tests, artifacts.',
  verbs: {
    ls: {
      args: '<owner/name>',
      summary: 'Lists builds, newest first',
      options: {
        branch: { type: 'string', help: 'only builds of this branch' },
        event: { type: 'string', help: 'only builds of this event (push, pull_request, tag, cron, …)' },
        page: { type: 'string', help: 'page number (default 1)' },
        limit: { type: 'string', help: 'builds per page (default 25, at most 100)' },
      },
      async run(context) {
        const builds = await context.api.get<WireBuild[]>(buildsPath(context), {
          branch: stringOption(context.values, 'branch'),
          page: stringOption(context.values, 'page'),
          per_page: stringOption(context.values, 'limit'),
        });
        const event = stringOption(context.values, 'event');
        show(context, event === undefined ? builds : builds.filter((b) => b.event === event), buildTable);
      },
    },
    info: buildAction(
      '<owner/name> <number>',
      'Shows a build, its stages and steps, and why a stage waits',
      undefined,
      (c) => c.api.get(numberPath(c)),
    ),
    last: buildAction(
      '<owner/name>',
      'Shows the newest build of a branch (default: the default branch) or ref',
      {
        branch: { type: 'string', help: 'a branch' },
        ref: { type: 'string', help: 'a full git ref (refs/tags/v1)' },
      },
      (c) =>
        c.api.get(`${buildsPath(c)}/latest`, {
          branch: stringOption(c.values, 'branch'),
          ref: stringOption(c.values, 'ref'),
        }),
    ),
    create: buildAction(
      '<owner/name>',
      'Creates a build of a branch head or a commit (event custom)',
      {
        branch: { type: 'string', help: 'the branch (default: the default branch)' },
        commit: { type: 'string', help: 'a full commit sha' },
        debug: DEBUG,
        param: PARAM,
      },
      (c) =>
        c.api.post(`${buildsPath(c)}`, undefined, {
          ...paramsArg(c.values),
          branch: stringOption(c.values, 'branch'),
          commit: stringOption(c.values, 'commit'),
          ...(c.values.debug === true ? { debug: 'true' } : {}),
        }),
    ),
    restart: buildAction(
      '<owner/name> <number>',
      'Restarts a build (--failed: only the stages that did not succeed)',
      {
        failed: { type: 'boolean', help: 'rerun only the stages that did not succeed' },
        debug: DEBUG,
        param: PARAM,
      },
      (c) =>
        c.api.post(numberPath(c), undefined, {
          ...paramsArg(c.values),
          ...(c.values.failed === true ? { failed: 'true' } : {}),
          ...(c.values.debug === true ? { debug: 'true' } : {}),
        }),
    ),
    cancel: buildAction(
      '<owner/name> <number>',
      'Cancels a build: its running steps are stopped',
      undefined,
      (c) => c.api.delete<WireBuild>(numberPath(c)),
    ),
    approve: buildAction(
      '<owner/name> <number> [stage]',
      'Approves a blocked stage (default: every blocked stage)',
      COMMENT,
      (c) => review(c, 'approve'),
    ),
    decline: buildAction('<owner/name> <number> [stage]', 'Declines a blocked build', COMMENT, (c) =>
      review(c, 'decline'),
    ),
    approvals: {
      args: '<owner/name> <number>',
      summary: 'Lists who approved or declined the build’s stages, when, and why',
      async run(context) {
        show(
          context,
          await context.api.get<WireApproval[]>(`${numberPath(context)}/approvals`),
          approvalTable,
        );
      },
    },
    promote: buildAction(
      '<owner/name> <number> <target>',
      'Promotes a build to a deployment target',
      { param: PARAM },
      (c) => promotion(c, 'promote'),
    ),
    rollback: buildAction(
      '<owner/name> <number> <target>',
      'Rolls a deployment target back to a build',
      { param: PARAM },
      (c) => promotion(c, 'rollback'),
    ),
    logs: buildLogsVerb,
    tests: buildTestsVerb,
  },
  groups: { artifacts: buildArtifactsGroup },
};

function promotion(context: VerbContext, event: 'promote' | 'rollback'): Promise<WireBuild> {
  const target = context.positionals[2];
  if (target === undefined || target === '') throw new UsageError('missing the target environment');
  return context.api.post(`${numberPath(context)}/${event}`, undefined, {
    ...paramsArg(context.values),
    target,
  });
}
