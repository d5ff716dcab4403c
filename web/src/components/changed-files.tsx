import type { Build } from '../wire.js';

/**
 * What the build's `paths` conditions read: the changed files (folded, they can be thousands) or
 * why they are not known, and the pipelines they left out. Nothing for a file without `paths`.
 */
export function ChangedFiles({ build }: { build: Build }) {
  const files = build.changed_files;
  const skipped = build.paths_skipped ?? [];
  if (files === undefined && build.changed_files_unknown === undefined) return null;
  return (
    <section class="changed-files" aria-label="changed files">
      {files === undefined ? (
        <p>
          Changed files not known: {build.changed_files_unknown}. Every <code>paths</code> condition held.
        </p>
      ) : (
        <details>
          <summary>
            {files.length} changed file{files.length === 1 ? '' : 's'}
            {skipped.length > 0 ? ` · not run for its paths: ${skipped.join(', ')}` : ''}
          </summary>
          <ul>
            {files.map((file) => (
              <li key={file}>
                <code>{file}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
