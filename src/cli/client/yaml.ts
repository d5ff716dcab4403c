import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { repoArg, required } from './args.js';
import type { Verb } from './command.js';
import { UsageError } from './errors.js';

/** `svc encrypt <owner/name> <value>`: the value encrypted for a `kind: secret` document. */
export const encryptVerb: Verb = {
  args: '<owner/name> <value>',
  summary: 'Encrypts a value for an inline `kind: secret` document of the repository’s pipeline file',
  async run(context) {
    const path = `${repoArg(context.positionals[0]).path}/encrypt`;
    const answer = await context.api.post<{ data: string }>(path, {
      data: required(context, 1, 'the value to encrypt'),
    });
    context.io.stdout(context.json ? `${JSON.stringify(answer, null, 2)}\n` : `${answer.data}\n`);
  },
};

/** `svc sign <owner/name> [file] [--save]`: the file's signature (`--save`: the signed file written back). */
export const signVerb: Verb = {
  args: '<owner/name> [file]',
  summary:
    'Signs a pipeline file (default .drone.yml) with the repository’s key; --save writes it back signed',
  options: { save: { type: 'boolean', help: 'write the signed file back' } },
  async run(context) {
    const repo = repoArg(context.positionals[0]);
    const file = resolve(context.io.cwd, context.positionals[1] ?? '.drone.yml');
    let data: string;
    try {
      data = await readFile(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    const answer = await context.api.post<{ data: string; file: string }>(`${repo.path}/sign`, { data });
    if (context.values.save === true) await writeFile(file, answer.file);
    if (context.json) context.io.stdout(`${JSON.stringify(answer, null, 2)}\n`);
    else context.io.stdout(context.values.save === true ? `signed ${file}\n` : `${answer.data}\n`);
  },
};
