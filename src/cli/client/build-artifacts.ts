import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { numberArg, repoArg, required, stringOption } from './args.js';
import type { Group, VerbContext } from './command.js';
import { RequestError, UsageError } from './errors.js';
import { bytes, show, table, when } from './output.js';

interface WireArtifact {
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

const FORMATS = ['zip', 'tar.zst'] as const;

const artifactsPath = (context: VerbContext) =>
  `${repoArg(context.positionals[0]).path}/builds/${numberArg(context.positionals[1], 'the build number')}/artifacts`;

const artifactTable = (artifacts: readonly WireArtifact[]) =>
  artifacts.length === 0
    ? 'no artifacts\n'
    : table(
        ['ID', 'STAGE', 'STEP', 'NAME', 'FILES', 'SIZE', 'EXPIRES'],
        artifacts.map((a) => [
          String(a.id),
          a.stage.name,
          a.step.name,
          a.name,
          String(a.files),
          bytes(a.size),
          a.expires === 0 ? 'with the build' : when(a.expires),
        ]),
      );

/** The artifact an argument names: an id of the list, else a name, which must be one stage's only. */
function pick(artifacts: readonly WireArtifact[], given: string, number: number): WireArtifact {
  const byId = /^\d+$/.test(given) ? artifacts.find((a) => a.id === Number(given)) : undefined;
  if (byId !== undefined) return byId;
  const named = artifacts.filter((a) => a.name === given);
  const [only, ...more] = named;
  if (only === undefined) throw new UsageError(`build ${number} has no artifact "${given}"`);
  if (more.length > 0)
    throw new UsageError(
      `stages ${named.map((a) => `${a.stage.name} (id ${a.id})`).join(', ')} each have an artifact "${given}": give its id`,
    );
  return only;
}

/** Streams the response's body into `file`, through a file beside it: a failed download leaves nothing. */
async function save(response: Response, file: string): Promise<number> {
  if (response.body === null) throw new UsageError('the server answered without a body');
  const part = `${file}.${randomBytes(4).toString('hex')}.part`;
  let written = 0;
  const body = Readable.fromWeb(response.body as ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => (written += chunk.length));
  try {
    await pipeline(body, createWriteStream(part, { flags: 'wx' }));
    await rename(part, file);
  } catch (error) {
    await rm(part, { force: true });
    const { code, syscall } = error as NodeJS.ErrnoException;
    if (syscall !== undefined) throw new UsageError(`cannot write ${file}: ${code ?? syscall}`);
    throw new RequestError(`the download broke off: ${(error as Error).message}`, 0);
  }
  return written;
}

/** `svc build artifacts ls|get`: what steps' `artifacts:` uploaded (docs/artifacts.md). */
export const buildArtifactsGroup: Group = {
  name: 'build artifacts',
  summary: 'Artifacts of a build: what steps’ `artifacts:` uploaded (docs/artifacts.md).',
  verbs: {
    ls: {
      args: '<owner/name> <number>',
      summary: 'Lists the build’s artifacts, by stage',
      async run(context) {
        show(context, await context.api.get<WireArtifact[]>(artifactsPath(context)), artifactTable);
      },
    },
    get: {
      args: '<owner/name> <number> <id|name>',
      summary: 'Downloads an artifact into a file (default <name>.zip in the current folder)',
      options: {
        output: {
          type: 'string',
          short: 'o',
          help: 'the file to write (default: <name>.zip or <name>.tar.zst)',
        },
        format: { type: 'string', help: '`zip` (default) or `tar.zst`' },
        force: { type: 'boolean', help: 'overwrite the file when it exists' },
      },
      async run(context) {
        const path = artifactsPath(context);
        const number = numberArg(context.positionals[1], 'the build number');
        const given = required(context, 2, 'the artifact’s id or name');
        const format = stringOption(context.values, 'format') ?? 'zip';
        if (!(FORMATS as readonly string[]).includes(format))
          throw new UsageError(`--format: expected zip or tar.zst, got "${format}"`);
        const artifact = pick(await context.api.get<WireArtifact[]>(path), given, number);
        const file = resolve(
          context.io.cwd,
          stringOption(context.values, 'output') ?? `${artifact.name}.${format}`,
        );
        if (context.values.force !== true && existsSync(file))
          throw new UsageError(`${file} exists: give --force to overwrite it, or -o another file`);
        const started = Date.now();
        const response = await context.api.download(`${path}/${artifact.id}/download`, { format });
        const written = await save(response, file);
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        context.io.stderr(`${artifact.name}: ${bytes(written)} in ${seconds} s to ${file}\n`);
      },
    },
  },
};
