import { z } from 'zod';
import { InvalidInputError } from '../../../core/errors.js';
import type { RepoStore } from '../../../core/repo.js';
import { encryptSecret } from '../../signing/secret-box.js';
import { repoKey } from '../../signing/repo-key.js';
import { signFile, SignatureFileError } from '../../signing/signature.js';
import { RepoParams } from '../params.js';
import { REPO_WRITE, route, type ApiRoute } from '../route.js';

/** What the pipeline-file helpers need: the repository, to make and store its key on first use. */
export interface YamlHelperDeps {
  readonly repos: Pick<RepoStore, 'find' | 'update'>;
}

/** Values larger than this are not secrets but files; a pipeline file larger than this is a mistake. */
const MAX_SECRET = 64 * 1024;
const MAX_FILE = 512 * 1024;

/**
 * Drone's `drone.Secret` as `drone encrypt` sends it: only `data` (the plain value) is used; the
 * other fields are accepted and ignored, as Drone does.
 */
const EncryptBody = z.object({
  data: z.string().min(1, 'is required: the value to encrypt').max(MAX_SECRET),
  name: z.string().optional(),
  namespace: z.string().optional(),
  pull_request: z.boolean().optional(),
  pull_request_push: z.boolean().optional(),
});

const SignBody = z.object({
  data: z.string().min(1, 'is required: the pipeline file to sign').max(MAX_FILE),
});

const encryptedSchema = z.object({
  data: z.string().describe('the encrypted value, base64, for a kind: secret document’s data'),
});

const signedSchema = z.object({
  data: z.string().describe('the HMAC-SHA256 of the file, hex (what Drone answers)'),
  file: z.string().describe('svc addition: the file with its kind: signature document'),
});

/**
 * POST /api/repos/{owner}/{name}/encrypt (and Drone's alias `/encrypt/secret`) and
 * POST /api/repos/{owner}/{name}/sign: the helpers for pipeline files of Drone's API, for anyone
 * who may push to the repository. Both use the repository's own key (made on first use, never
 * answered): an encrypted value decrypts only for builds of this repository, and a signature
 * lets a protected repository's builds run without approval (signing/signature.ts).
 */
export function yamlHelperRoutes(deps: YamlHelperDeps): ApiRoute[] {
  const encrypt = (path: string, summary: string): ApiRoute =>
    route({
      method: 'POST',
      path,
      access: REPO_WRITE,
      tag: 'repos',
      summary,
      params: RepoParams,
      body: EncryptBody,
      response: { schema: encryptedSchema, description: 'the encrypted value' },
      async handler({ repo, body }) {
        return { data: encryptSecret(body.data, await repoKey(deps.repos, repo)) };
      },
    });
  return [
    encrypt(
      '/api/repos/:owner/:name/encrypt',
      'Encrypts a value for a kind: secret document of the repository’s pipeline file',
    ),
    encrypt('/api/repos/:owner/:name/encrypt/secret', 'Encrypts a value (Drone’s alias of /encrypt)'),
    route({
      method: 'POST',
      path: '/api/repos/:owner/:name/sign',
      access: REPO_WRITE,
      tag: 'repos',
      summary: 'Signs a pipeline file with the repository’s key (a kind: signature document)',
      params: RepoParams,
      body: SignBody,
      response: { schema: signedSchema, description: 'the signature, and the signed file' },
      async handler({ repo, body }) {
        const key = await repoKey(deps.repos, repo);
        try {
          const signed = signFile(body.data, key);
          return { data: signed.hmac, file: signed.file };
        } catch (error) {
          if (error instanceof SignatureFileError) throw new InvalidInputError(`data: ${error.message}`);
          throw error;
        }
      },
    }),
  ];
}
