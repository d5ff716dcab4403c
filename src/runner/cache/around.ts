import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AroundStep, ExecCache, ExecSpec, ExecStep, OutputSink, StepFiles } from '../../core/engine.js';
import { sweptAsItFlows } from '../../platform/dead-buffers.js';
import { zstdCompressor } from '../../platform/zstd.js';
import { decompressed, packCache, restoreCache, type SavedPath } from './archive.js';
import { resolveKey } from './key.js';
import { cachePlaces, type CachePlace } from './paths.js';
import type { CacheTransport } from './transport.js';

/**
 * The step's cache around its run (svc addition), when it has one; a runner that keeps no caches
 * is said in its log and the step runs without (the engine's part: step-around.ts).
 */
export function stepCache(
  step: ExecStep,
  stage: {
    spec: ExecSpec;
    caches?: CacheTransport | undefined;
    output: OutputSink;
    signal: AbortSignal;
    now: () => number;
  },
): AroundStep | undefined {
  if (step.cache === undefined) return undefined;
  if (stage.caches === undefined) {
    stage.output('cache: not used: this runner keeps no caches');
    return undefined;
  }
  return cacheAround({
    cache: step.cache,
    workspacePath: stage.spec.workspace.path,
    transport: stage.caches,
    say: stage.output,
    signal: stage.signal,
    now: stage.now,
  });
}

/** What a step's cache needs from the stage it runs in. */
export interface StepCacheContext {
  cache: ExecCache;
  workspacePath: string;
  transport: CacheTransport;
  /** A line in the step's log. */
  say: (line: string) => void;
  signal?: AbortSignal | undefined;
  now?: () => number;
}

/**
 * A step's `cache:` around its run: before it starts, the key is made (checksums of the workspace's
 * files as they are then) and, unless the policy is `push`, the newest matching entry is restored
 * into the step's paths; after it exits 0, unless the policy is `pull` or the key was restored
 * exactly, the paths are saved under the key. A cache never fails the step: what goes wrong is
 * said in the step's log and the step runs (or ends) as it would without it.
 */
export function cacheAround(context: StepCacheContext): AroundStep {
  const { cache, say } = context;
  const now = context.now ?? Date.now;
  let key: string | undefined;
  let restoredExactly = false;
  let places: CachePlace[] = [];
  return {
    async before(files) {
      try {
        places = cachePlaces(cache.paths, context.workspacePath);
        key = await resolveKey(cache.key, files, context.workspacePath);
      } catch (error) {
        say(`cache: not used: ${messageOf(error)}`);
        return;
      }
      if (cache.policy === 'push') return;
      const started = now();
      try {
        const restoreKeys = await Promise.all(
          cache.restoreKeys.map((prefix) => resolveKey(prefix, files, context.workspacePath)),
        );
        const hit = await context.transport.restore(key, restoreKeys, context.signal);
        if (hit === undefined) {
          say(`cache: nothing saved under "${key}"${restoreKeys.length > 0 ? ' or its restore keys' : ''}`);
          return;
        }
        try {
          await files.put(restoreCache(decompressed(hit.body), places), context.signal);
        } finally {
          // Refused midway, the rest of the archive is not read: the connection is let go of.
          hit.body.destroy();
        }
        restoredExactly = hit.exact;
        say(
          `cache: restored "${hit.key}"${hit.exact ? '' : ' (a restore key matched)'}, ${megabytes(hit.size)} in ${seconds(now() - started)}`,
        );
      } catch (error) {
        say(`cache: restoring failed: ${messageOf(error)}; the step runs without it`);
      }
    },

    async after(files, exit) {
      if (key === undefined || cache.policy === 'pull') return;
      if (exit.exitCode !== 0) return say('cache: not saved: the step failed');
      if (restoredExactly) return say(`cache: "${key}" was restored as it is; not saved again`);
      const started = now();
      const found: string[] = [];
      let parts: SavedPath[] = [];
      try {
        parts = await savedPaths(files, places, context.signal, (place) => found.push(place.written));
        if (parts.length === 0) return say(`cache: not saved: none of ${cache.paths.join(', ')} exists`);
        const archive = new PassThrough();
        const packing = pipeline(sweptAsItFlows(packCache(iterate(parts))), zstdCompressor(), archive);
        packing.catch(() => undefined);
        const answer = await context.transport.save(key, archive, context.signal);
        // Refused, the archive is left unfinished: its packing ends with the stream.
        if ('refused' in answer) return say(`cache: not saved: ${answer.refused}`);
        await packing;
        const missing = cache.paths.filter((path) => !found.includes(path));
        say(
          `cache: saved "${key}" (${found.join(', ')}), ${megabytes(answer.size)} in ${seconds(now() - started)}` +
            (missing.length > 0 ? `; not found: ${missing.join(', ')}` : ''),
        );
      } catch (error) {
        say(`cache: saving failed: ${messageOf(error)}`);
      } finally {
        // Paths not packed (the packing stopped at an earlier one) let their engine's tar go.
        for (const part of parts) if (!part.tar.readableEnded) part.tar.destroy();
      }
    },
  };
}

/** The step's paths that exist, each as the engine's tar (opened now, read when packed). */
async function savedPaths(
  files: StepFiles,
  places: readonly CachePlace[],
  signal: AbortSignal | undefined,
  found: (place: CachePlace) => void,
): Promise<SavedPath[]> {
  const parts: SavedPath[] = [];
  for (const place of places) {
    const tar = await files.get(place.absolute, signal);
    if (tar === undefined) continue;
    found(place);
    parts.push({ place, tar });
  }
  return parts;
}

async function* iterate(parts: readonly SavedPath[]): AsyncIterable<SavedPath> {
  for (const part of parts) yield await Promise.resolve(part);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
