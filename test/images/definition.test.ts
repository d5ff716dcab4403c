/**
 * Issue 32: one definition of svc/svc's contents. scripts/images.sh (no registry) and the Dockerfile
 * (a registry) both make the image's files with images/svc/rootfs.sh and take its settings from
 * images/svc/image-config.txt; the Dockerfile's build stage must bring in what makes every path
 * images/svc/app-files.txt lists, past .dockerignore.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copiedSources, definitionLines, dockerfileStages, ROOT, sourceOf } from './image-definition.js';

const dockerfile = dockerfileStages(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const [build, final] = [dockerfile.at(-2) ?? [], dockerfile.at(-1) ?? []];
const appFiles = definitionLines('images/svc/app-files.txt');

/** Whether .dockerignore leaves `path` out of the build context (the last matching line decides). */
function ignored(path: string): boolean {
  let out = false;
  for (const line of definitionLines('.dockerignore')) {
    const negated = line.startsWith('!');
    const pattern = (negated ? line.slice(1) : line).replace(/\/$/, '');
    const matches = pattern.endsWith('/*')
      ? path.startsWith(pattern.slice(0, -1))
      : path === pattern || path.startsWith(`${pattern}/`);
    if (matches) out = !negated;
  }
  return out;
}

describe('svc/svc: one definition for scripts/images.sh and the Dockerfile', () => {
  it('has the Dockerfile’s last stage be the rootfs.sh tree alone, with image-config.txt’s settings', () => {
    expect(final[0]).toEqual({ keyword: 'FROM', args: 'scratch' });
    expect(final[1]).toEqual({ keyword: 'COPY', args: '--from=build /rootfs /' });
    const settings = final.slice(2).map((i) => `${i.keyword} ${i.args}`);
    expect(settings).toEqual(definitionLines('images/svc/image-config.txt'));
  });

  it('makes the files with rootfs.sh in the Dockerfile’s build stage and in scripts/images.sh', () => {
    expect(build.find((i) => i.keyword === 'FROM')?.args).toMatch(/ AS build$/);
    const runs = build.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.some((run) => run.includes('bash images/svc/rootfs.sh /opt/svc /rootfs'))).toBe(true);
    const script = readFileSync(join(ROOT, 'scripts/images.sh'), 'utf8');
    expect(script).toContain('bash "$ROOT/images/svc/rootfs.sh" "$ROOT" "$dir/rootfs"');
    expect(script).toContain('"$ROOT/images/svc/image-config.txt"');
  });

  it('brings into the build stage, past .dockerignore, what makes every path of app-files.txt', () => {
    const sources = copiedSources(build);
    expect(sources).toContain('images/svc');
    expect(ignored('images/svc/rootfs.sh')).toBe(false);
    for (const path of appFiles) {
      const source = sourceOf(path);
      const copied = sources.some((s) => source === s || source.startsWith(`${s}/`));
      expect(copied, `${path}: the Dockerfile copies no ${source}`).toBe(true);
      expect(ignored(source), `${path}: .dockerignore leaves out ${source}`).toBe(false);
    }
  });

  it('reads the packages, files and settings it is made of from files with at least one entry each', () => {
    expect(definitionLines('images/svc/packages.txt')).toEqual(
      expect.arrayContaining(['libc6', 'libstdc++6', 'ca-certificates']),
    );
    expect(appFiles).toEqual(expect.arrayContaining(['dist/bundle', 'web/dist', 'package.json']));
    expect(definitionLines('images/svc/image-config.txt')).toContain('ENTRYPOINT ["svc"]');
  });
});
