import type { Repo } from '../../core/repo.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';

/** The default pipeline files, in the order they are looked for. */
export const DEFAULT_PIPELINE_FILES = ['.svc.yml', '.drone.yml'] as const;

/** The pipeline file found at a commit, or every path that was tried. */
export type PipelineFile =
  { found: true; path: string; text: string } | { found: false; tried: readonly string[] };

/**
 * Reads the repository's pipeline file at `commit`: its configured path, else `.svc.yml`, else
 * `.drone.yml`. A configured path is the only one tried, so a typo in it is reported instead of
 * silently building another file.
 */
export async function readPipelineFile(
  provider: Pick<ScmProvider, 'fileContents'>,
  token: ScmToken,
  repo: Pick<Repo, 'namespace' | 'name' | 'configPath'>,
  commit: string,
): Promise<PipelineFile> {
  const paths = repo.configPath !== '' ? [repo.configPath] : DEFAULT_PIPELINE_FILES;
  const ref = { namespace: repo.namespace, name: repo.name };
  for (const path of paths) {
    const text = await provider.fileContents(token, ref, path, commit);
    if (text !== undefined) return { found: true, path, text };
  }
  return { found: false, tried: paths };
}
