import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ActionButton } from '../components/action.js';
import { Show, useApi } from '../components/load.js';
import { duration, Status } from '../components/status.js';
import { useBuildEvents } from '../components/stream.js';
import { Link, navigate, useSearch } from '../router.js';
import { ArtifactSection, type Artifact } from './build-artifacts.js';
import { ChangedFiles } from '../components/changed-files.js';
import { Avatar } from '../components/avatar.js';
import { DONE, type Approval, type Build, type BuildTests } from '../wire.js';
import { ApprovalList } from './build-approvals.js';
import { TestSection } from './build-tests.js';
import { PipelineView } from './build-pipeline.js';
import { BuildTabs, tabOf, type BuildTab } from './build-tabs.js';
import { statusTitle, useStatusIcon, useTitle } from '../components/document-status.js';

/** How often a running build is read again besides its events: steps change without one. */
const REFRESH_MS = 5000;

/**
 * `/{owner}/{name}/{number}`: the build, its actions, then its views as tabs (`?tab=`): the pipeline
 * (stage graph, each stage's steps and timeline, approvals), its tests, its artifacts. Tests and
 * artifacts appear as steps end: they are read again with the build.
 */
export function BuildPage({ owner, name, number }: { owner: string; name: string; number: number }) {
  const slug = `${owner}/${name}`;
  const path = `/api/repos/${slug}/builds/${number}`;
  const tab = tabOf(useSearch());
  const build = useApi<Build>(path);
  const artifacts = useApi<Artifact[]>(`${path}/artifacts`);
  const approvals = useApi<Approval[]>(`${path}/approvals`);
  // The tabs' test counts: one result is enough, the counts are the build's.
  const tests = useApi<BuildTests>(`${path}/tests?per_page=1`);
  const status = build.value?.status;
  useTitle(statusTitle(status, `${slug} #${number}`));
  useStatusIcon(status);
  const { reload: reloadBuild } = build;
  const { reload: reloadArtifacts } = artifacts;
  const { reload: reloadApprovals } = approvals;
  const { reload: reloadTests } = tests;
  // A server that keeps no artifacts answers 404: not asked again.
  const keepsArtifacts = artifacts.status !== 404;
  // The tests section reads its own page of tests: it is told when to read it again.
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => {
    reloadBuild();
    setTick((n) => n + 1);
    reloadTests();
    reloadApprovals();
    if (keepsArtifacts) reloadArtifacts();
  }, [reloadBuild, reloadArtifacts, reloadApprovals, reloadTests, keepsArtifacts]);
  useBuildEvents(slug, refresh);
  useEffect(() => {
    if (status === undefined || DONE.has(status)) return;
    const timer = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(timer);
  }, [status, refresh]);
  const panel =
    tab === 'tests' ? (
      <TestSection slug={slug} path={path} number={number} tick={tick} />
    ) : tab === 'artifacts' ? (
      <ArtifactSection path={`${path}/artifacts`} artifacts={artifacts} />
    ) : (
      <ApprovalList approvals={approvals} stages={build.value?.stages ?? []} />
    );
  return (
    <main>
      <Show loaded={build}>
        {(value) => (
          <BuildView
            slug={slug}
            path={path}
            build={value}
            approvals={approvals.value ?? []}
            changed={refresh}
            tab={tab}
            tabs={
              <BuildTabs
                base={`/${slug}/${number}`}
                tab={tab}
                tests={tests.value?.counts}
                artifacts={artifacts.value?.length}
                keepsArtifacts={keepsArtifacts}
              />
            }
            panel={panel}
          />
        )}
      </Show>
    </main>
  );
}

function BuildView({
  slug,
  path,
  build,
  approvals,
  changed,
  tab,
  tabs,
  panel,
}: {
  slug: string;
  path: string;
  build: Build;
  approvals: readonly Approval[];
  changed: () => void;
  tab: BuildTab;
  tabs: ComponentChildren;
  /** The chosen tab's content, after the stages on the pipeline's. */
  panel: ComponentChildren;
}) {
  const opened = (to: Build) => navigate(`/${slug}/${to.number}`);
  return (
    <>
      <h1>
        <Link href={`/${slug}`}>{slug}</Link> #{build.number} <Status status={build.status} />
      </h1>
      <p class="message">{build.message}</p>
      <dl class="facts">
        <dt>Event</dt>
        <dd>
          {build.event}
          {build.deploy_to ? ` → ${build.deploy_to}` : ''}
        </dd>
        <dt>Branch</dt>
        <dd>{build.target}</dd>
        <dt>Commit</dt>
        <dd>{build.link ? <a href={build.link}>{build.after.slice(0, 10)}</a> : build.after.slice(0, 10)}</dd>
        <dt>Author</dt>
        <dd>
          <Avatar login={build.author_login} url={build.author_avatar} /> {build.author_login}
        </dd>
        <dt>Duration</dt>
        <dd>{duration(build.started, build.finished) || '–'}</dd>
      </dl>
      {build.error ? <p class="error">{build.error}</p> : null}
      <ChangedFiles build={build} />
      <div class="toolbar" role="group" aria-label="build actions">
        {DONE.has(build.status) ? (
          <>
            <ActionButton label="Restart" run={() => api<Build>('POST', path)} done={opened} />
            {build.status !== 'success' ? (
              <ActionButton
                label="Restart failed stages"
                run={() => api<Build>('POST', `${path}?failed=true`)}
                done={opened}
              />
            ) : null}
          </>
        ) : (
          <ActionButton label="Cancel" kind="danger" run={() => api('DELETE', path)} done={changed} />
        )}
        <Promote path={path} done={opened} />
      </div>
      {tabs}
      <div role="tabpanel" id="build-tab-panel" aria-labelledby={`build-tab-${tab}`}>
        {tab === 'pipeline' ? (
          <PipelineView slug={slug} build={build} path={path} approvals={approvals} changed={changed} />
        ) : null}
        {panel}
      </div>
    </>
  );
}

function Promote({ path, done }: { path: string; done: (build: Build) => void }) {
  const [target, setTarget] = useState('');
  return (
    <form class="inline" onSubmit={(e) => e.preventDefault()}>
      <label>
        Target{' '}
        <input value={target} onInput={(e) => setTarget(e.currentTarget.value)} placeholder="production" />
      </label>
      <ActionButton
        label="Promote"
        run={() => api<Build>('POST', `${path}/promote?target=${encodeURIComponent(target)}`)}
        done={done}
      />
      <ActionButton
        label="Rollback"
        run={() => api<Build>('POST', `${path}/rollback?target=${encodeURIComponent(target)}`)}
        done={done}
      />
    </form>
  );
}
