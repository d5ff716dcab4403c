import { useState } from 'preact/hooks';
import { ErrorNote, Show, useApi, type Loaded } from '../components/load.js';
import { inTime } from '../components/status.js';
import { bytes } from '../components/units.js';

/** A step's uploaded artifact (GET …/builds/{number}/artifacts). */
export interface Artifact {
  id: number;
  stage: { number: number; name: string };
  step: { number: number; name: string };
  name: string;
  files: number;
  size: number;
  zip_size: number;
  created: number;
  expires: number;
  junit: string[];
}

interface Entry {
  path: string;
  size: number;
  mode: number;
  type: 'file' | 'directory' | 'symlink';
}

/** The artifacts grouped by stage, stages in the list's order (it is by stage, then name). */
function byStage(artifacts: readonly Artifact[]): [Artifact['stage'], Artifact[]][] {
  const groups = new Map<number, [Artifact['stage'], Artifact[]]>();
  for (const artifact of artifacts) {
    const group = groups.get(artifact.stage.number);
    if (group === undefined) groups.set(artifact.stage.number, [artifact.stage, [artifact]]);
    else group[1].push(artifact);
  }
  return [...groups.values()];
}

/** A path of the artifact's file in a URL: each segment encoded, the `/`s kept. */
const filePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/**
 * The build's artifacts (docs/artifacts.md), per stage: each with its size and expiry, a zip
 * download and its files, listed when opened, each opening in a new tab. Nothing is shown while the
 * build has none, nor on a server that keeps none (the API's 404).
 */
export function ArtifactSection({ path, artifacts }: { path: string; artifacts: Loaded<Artifact[]> }) {
  if (artifacts.error !== undefined)
    return artifacts.status === 404 ? null : <ErrorNote error={artifacts.error} />;
  if (artifacts.value === undefined) return <p class="muted">Reading the build’s artifacts…</p>;
  const list = artifacts.value;
  if (list.length === 0)
    return (
      <section class="artifacts empty" aria-label="artifacts">
        <h2>Artifacts</h2>
        <p>
          No artifacts in this build. A step keeps files for later with <code>artifacts: paths:</code>, to
          download here, with <code>svc build artifacts get</code>, or in a later stage: see{' '}
          <a href="/docs/artifacts.md">docs/artifacts.md</a>.
        </p>
      </section>
    );
  return (
    <section class="artifacts" aria-label="artifacts">
      <h2>Artifacts</h2>
      {byStage(list).map(([stage, items]) => (
        <div key={stage.number}>
          <h3>{stage.name}</h3>
          <ul class="cards">
            {items.map((artifact) => (
              <ArtifactCard key={artifact.id} path={`${path}/${artifact.id}`} artifact={artifact} />
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}

function ArtifactCard({ path, artifact }: { path: string; artifact: Artifact }) {
  const [open, setOpen] = useState(false);
  return (
    <li class="card artifact" aria-label={`artifact ${artifact.name}`}>
      <span class="title">{artifact.name}</span>
      <span class="muted">step {artifact.step.name}</span>
      <span>
        {artifact.files} {artifact.files === 1 ? 'file' : 'files'}, {bytes(artifact.size)}
      </span>
      <span
        class="muted"
        title={artifact.expires ? new Date(artifact.expires * 1000).toLocaleString() : undefined}
      >
        {artifact.expires ? `expires ${inTime(artifact.expires)}` : 'kept with the build'}
      </span>
      <a href={`${path}/download`} download>
        Download (zip, {bytes(artifact.zip_size)})
      </a>
      <details onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>Files</summary>
        {open ? <FileList path={path} /> : null}
      </details>
    </li>
  );
}

/** The artifact's files and links (folders are in their paths), read when the list is opened. */
function FileList({ path }: { path: string }) {
  const found = useApi<{ entries: Entry[] }>(path);
  return (
    <Show loaded={found}>
      {({ entries }) => (
        <ul class="files" aria-label="files">
          {entries
            .filter((entry) => entry.type !== 'directory')
            .map((entry) => (
              <li key={entry.path}>
                <a href={`${path}/files/${filePath(entry.path)}`} target="_blank" rel="noopener noreferrer">
                  {entry.path}
                </a>{' '}
                <span class="muted">{entry.type === 'symlink' ? 'link' : bytes(entry.size)}</span>
              </li>
            ))}
        </ul>
      )}
    </Show>
  );
}
