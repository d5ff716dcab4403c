import type { TestCase } from '../wire.js';

/** A small word in a frame: what a test is besides its status (new failure, quarantined, flaky). */
export function Badge({ kind, children }: { kind: 'new' | 'quarantined' | 'flaky'; children: string }) {
  return <span class={`badge badge-${kind}`}>{children}</span>;
}

/**
 * A test's badges: quarantined (its failures do not fail its step) and flaky (it failed and passed
 * on one commit lately), each a word, not only a colour.
 */
export function CaseBadges({ test }: { test: Pick<TestCase, 'quarantined' | 'flaky'> }) {
  return (
    <>
      {test.quarantined ? <Badge kind="quarantined">quarantined</Badge> : null}
      {test.flaky ? <Badge kind="flaky">flaky</Badge> : null}
    </>
  );
}

/** `/{owner}/{name}/tests/{id}`: a test's page. */
export function testHref(slug: string, id: number): string {
  return `/${slug}/tests/${id}`;
}

/** A test's name as pages show it: its suite, then its name. */
export function TestName({ test }: { test: Pick<TestCase, 'suite' | 'name'> }) {
  return (
    <>
      {test.suite === '' ? null : <span class="suite">{test.suite} › </span>}
      <span class="test-name">{test.name}</span>
    </>
  );
}
