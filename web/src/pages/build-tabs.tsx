import { navigate } from '../router.js';
import type { TestCounts } from '../wire.js';

export type BuildTab = 'pipeline' | 'tests' | 'artifacts';

/** The tab a build page's query names (`?tab=tests`); the pipeline when none or another. */
export function tabOf(search: string): BuildTab {
  const tab = new URLSearchParams(search).get('tab');
  return tab === 'tests' || tab === 'artifacts' ? tab : 'pipeline';
}

/** The link to a build's tab: the pipeline's is the build's own address. */
export function tabHref(base: string, tab: BuildTab): string {
  return tab === 'pipeline' ? base : `${base}?tab=${tab}`;
}

/**
 * A build's views as tabs (GitLab's pipeline page has them too): the pipeline (stages, steps,
 * approvals), its tests and its artifacts, each with its count once known, failures said in the
 * tests' label. The chosen tab is in the address, so a link or a reload keeps it; arrow keys move
 * between tabs as the WAI-ARIA tabs pattern has them.
 */
export function BuildTabs(props: {
  base: string;
  tab: BuildTab;
  tests: TestCounts | undefined;
  /** Undefined while unknown; absent (no tab) when the server keeps no artifacts. */
  artifacts: number | undefined;
  keepsArtifacts: boolean;
}) {
  const { base, tab, tests } = props;
  const tabs: { id: BuildTab; label: string; count?: number | undefined; note?: string | undefined }[] = [
    { id: 'pipeline', label: 'Pipeline' },
    {
      id: 'tests',
      label: 'Tests',
      count: tests?.total,
      note: tests !== undefined && tests.failed > 0 ? `${tests.failed} failed` : undefined,
    },
  ];
  if (props.keepsArtifacts) tabs.push({ id: 'artifacts', label: 'Artifacts', count: props.artifacts });
  const select = (id: BuildTab) => navigate(tabHref(base, id));
  const onKey = (event: KeyboardEvent) => {
    const at = tabs.findIndex((t) => t.id === tab);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0 || at < 0) return;
    event.preventDefault();
    const next = tabs[(at + step + tabs.length) % tabs.length];
    if (next === undefined) return;
    select(next.id);
    requestAnimationFrame(() => document.getElementById(`build-tab-${next.id}`)?.focus());
  };
  return (
    <div role="tablist" class="toolbar build-tabs" aria-label="build views" onKeyDown={onKey}>
      {tabs.map((entry) => (
        <button
          key={entry.id}
          id={`build-tab-${entry.id}`}
          type="button"
          role="tab"
          aria-selected={tab === entry.id}
          aria-controls="build-tab-panel"
          tabIndex={tab === entry.id ? 0 : -1}
          onClick={() => select(entry.id)}
        >
          {entry.label}
          {entry.count === undefined ? null : <span class="count"> {entry.count}</span>}
          {entry.note === undefined ? null : <span class="count failed"> · {entry.note}</span>}
        </button>
      ))}
    </div>
  );
}
