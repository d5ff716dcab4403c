import { intOption, numberArg, repoArg, required, stringOption } from './args.js';
import type { Group, Verb, VerbContext } from './command.js';
import { UsageError } from './errors.js';
import { fields, show, table, when } from './output.js';

interface WireCase {
  id: number;
  suite: string;
  name: string;
  quarantined: boolean;
  flaky: boolean;
  flaky_seen: number;
}

interface WireResult {
  id: number;
  case: WireCase;
  stage: { number: number; name: string };
  step: { number: number; name: string };
  attempt: number;
  status: string;
  duration_ms: number;
  message: string;
  output: string;
  new: boolean;
  quarantined: boolean;
}

interface WireBuildTests {
  counts: Record<'total' | 'passed' | 'failed' | 'skipped' | 'quarantined' | 'new' | 'flaky', number>;
  matching: number;
  tests: WireResult[];
}

interface WireHistory {
  build: number;
  commit: string;
  attempt: number;
  status: string;
  duration_ms: number;
  new: boolean;
  created: number;
}

interface WireCaseDetail extends WireCase {
  quarantine_log: { quarantined: boolean; login: string; comment: string; created: number }[];
}

const STATUSES = ['failed', 'passed', 'skipped', 'quarantined', 'new', 'flaky'];

const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
const testName = (c: Pick<WireCase, 'suite' | 'name'>) =>
  c.suite === '' ? c.name : `${c.suite} › ${c.name}`;

/** What a result is, beyond its status: new, quarantined, flaky. */
function marks(result: WireResult): string {
  return [
    ...(result.new ? ['new'] : []),
    ...(result.quarantined ? ['quarantined'] : []),
    ...(result.case.flaky ? ['flaky'] : []),
  ].join(', ');
}

/** The counts, then the tests (failures with the first line of their message). */
export function buildTestsText(answer: WireBuildTests): string {
  const { counts } = answer;
  if (counts.total === 0)
    return 'no test reports: name them with `artifacts: reports: junit:` (docs/test-reports.md)\n';
  const head =
    `${counts.total} tests: ${counts.passed} passed, ${counts.failed} failed` +
    (counts.new > 0 ? ` (${counts.new} new)` : '') +
    (counts.quarantined > 0 ? `, ${counts.quarantined} quarantined` : '') +
    `, ${counts.skipped} skipped` +
    (counts.flaky > 0 ? `, ${counts.flaky} flaky` : '') +
    '\n';
  if (answer.tests.length === 0) return `${head}no test matches\n`;
  const rows = answer.tests.map((t) => [
    String(t.case.id),
    t.status.toUpperCase(),
    testName(t.case),
    seconds(t.duration_ms),
    `${t.stage.name}/${t.step.name}${t.attempt > 1 ? ` #${t.attempt}` : ''}`,
    [marks(t), t.message.split('\n')[0] ?? '']
      .filter((part) => part !== '')
      .join(': ')
      .slice(0, 100),
  ]);
  const more =
    answer.matching > answer.tests.length ? `… ${answer.matching - answer.tests.length} more (--page)\n` : '';
  return `${head}\n${table(['ID', 'STATUS', 'TEST', 'TIME', 'STEP', 'NOTE'], rows)}${more}`;
}

/** `svc build tests <owner/name> <number>`: the build's tests from its reports. */
export const buildTestsVerb: Verb = {
  args: '<owner/name> <number>',
  summary: 'Lists the build’s tests from its reports: counts, then failures first',
  options: {
    status: { type: 'string', help: `only these: ${STATUSES.join(', ')}` },
    search: { type: 'string', help: 'only tests whose suite or name contains this' },
    page: { type: 'string', help: 'the page (100 tests each)' },
  },
  async run(context) {
    const status = stringOption(context.values, 'status');
    if (status !== undefined && !STATUSES.includes(status))
      throw new UsageError(`--status: expected one of ${STATUSES.join(', ')}, got "${status}"`);
    const search = stringOption(context.values, 'search');
    const page = intOption(context.values, 'page');
    const path = `${repoArg(context.positionals[0]).path}/builds/${numberArg(context.positionals[1], 'the build number')}/tests`;
    const query = {
      ...(status === undefined ? {} : { status }),
      ...(search === undefined ? {} : { q: search }),
      ...(page === undefined ? {} : { page: String(page) }),
    };
    show(context, await context.api.get<WireBuildTests>(path, query), buildTestsText);
  },
};

const casePath = (context: VerbContext) =>
  `${repoArg(context.positionals[0]).path}/tests/${numberArg(required(context, 1, 'the test’s id (svc build tests shows it)'), 'the test’s id')}`;

const caseText = (c: WireCaseDetail) =>
  fields([
    ['Id', c.id],
    ['Suite', c.suite],
    ['Name', c.name],
    ['Quarantined', c.quarantined ? 'yes' : 'no'],
    ['Flaky', c.flaky ? `yes, last seen ${when(c.flaky_seen)}` : 'no'],
  ]) +
  (c.quarantine_log.length === 0
    ? ''
    : `\n${table(
        ['WHEN', 'WHO', 'CHANGE', 'COMMENT'],
        c.quarantine_log.map((q) => [
          when(q.created),
          q.login,
          q.quarantined ? 'quarantined' : 'lifted',
          q.comment,
        ]),
      )}`);

function quarantineVerb(quarantined: boolean): Verb {
  return {
    args: '<owner/name> <id>',
    summary: quarantined
      ? 'Quarantines a test: its failures are shown and counted but do not fail its step'
      : 'Lifts a test’s quarantine',
    options: { comment: { type: 'string', help: 'why (kept with the change)' } },
    async run(context) {
      const comment = stringOption(context.values, 'comment') ?? '';
      show(
        context,
        await context.api.patch<WireCaseDetail>(casePath(context), { quarantined, comment }),
        caseText,
      );
    },
  };
}

/** `svc test …`: a repository's tests across builds (docs/test-reports.md). */
export const testGroup: Group = {
  name: 'test',
  summary: 'Tests of a repository across builds: history, flaky tests, quarantine (docs/test-reports.md).',
  verbs: {
    info: {
      args: '<owner/name> <id>',
      summary: 'Shows a test and who quarantined it or lifted it',
      async run(context) {
        show(context, await context.api.get<WireCaseDetail>(casePath(context)), caseText);
      },
    },
    history: {
      args: '<owner/name> <id>',
      summary: 'Lists the test’s last 50 results, newest first',
      async run(context) {
        show(context, await context.api.get<WireHistory[]>(`${casePath(context)}/history`), (history) =>
          history.length === 0
            ? 'no results\n'
            : table(
                ['BUILD', 'STATUS', 'TIME', 'COMMIT', 'WHEN'],
                history.map((h) => [
                  `#${h.build}${h.attempt > 1 ? ` attempt ${h.attempt}` : ''}`,
                  h.status.toUpperCase() + (h.new ? ' (new)' : ''),
                  seconds(h.duration_ms),
                  h.commit.slice(0, 8),
                  when(h.created),
                ]),
              ),
        );
      },
    },
    flaky: {
      args: '<owner/name>',
      summary: 'Lists the tests that failed and passed on one commit in the last 14 days',
      async run(context) {
        const path = `${repoArg(context.positionals[0]).path}/tests/flaky`;
        type Flaky = WireCase & {
          evidence: { commit: string; results: { build: number; status: string }[] }[];
        };
        show(context, await context.api.get<Flaky[]>(path), (flaky) =>
          flaky.length === 0
            ? 'no flaky tests in the last 14 days\n'
            : table(
                ['ID', 'TEST', 'LAST SEEN', 'EVIDENCE'],
                flaky.map((f) => [
                  String(f.id),
                  testName(f),
                  when(f.flaky_seen),
                  f.evidence
                    .map(
                      (e) =>
                        `${e.commit.slice(0, 8)}: ${e.results.map((r) => `#${r.build} ${r.status}`).join(', ')}`,
                    )
                    .join('; '),
                ]),
              ),
        );
      },
    },
    quarantined: {
      args: '<owner/name>',
      summary: 'Lists the repository’s quarantined tests',
      async run(context) {
        const path = `${repoArg(context.positionals[0]).path}/tests/quarantined`;
        show(context, await context.api.get<WireCase[]>(path), (cases) =>
          cases.length === 0
            ? 'no quarantined tests\n'
            : table(
                ['ID', 'TEST'],
                cases.map((c) => [String(c.id), testName(c)]),
              ),
        );
      },
    },
    settings: {
      args: '<owner/name>',
      summary: 'Shows the repository’s test settings; --quarantine on|off changes them (admins)',
      options: {
        quarantine: { type: 'string', help: '`on` lets quarantined tests’ failures leave steps green' },
      },
      async run(context) {
        const path = `${repoArg(context.positionals[0]).path}/tests/settings`;
        const given = stringOption(context.values, 'quarantine');
        if (given !== undefined && given !== 'on' && given !== 'off')
          throw new UsageError(`--quarantine: expected on or off, got "${given}"`);
        type Settings = { quarantine: boolean; login: string; updated: number };
        const settings =
          given === undefined
            ? await context.api.get<Settings>(path)
            : await context.api.patch<Settings>(path, { quarantine: given === 'on' });
        show(context, settings, (s) =>
          fields([
            ['Quarantine', s.quarantine ? 'on' : 'off'],
            ['Changed', s.login === '' ? 'never' : `by ${s.login}, ${when(s.updated)}`],
          ]),
        );
      },
    },
    quarantine: quarantineVerb(true),
    release: quarantineVerb(false),
  },
};
