/*
 * The three PATCH flavours on pod-shaped documents, without a server: strategic merge by the Pod
 * schema's merge keys and directives, RFC 7386 merge patch, RFC 6902 JSON patch (and its failures).
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { applyPatch } from './patch.js';

const pod = () => ({
  metadata: { name: 'p', labels: { a: '1', b: '2' }, annotations: { 'x/y': 'z' } },
  spec: {
    containers: [
      { name: 'one', image: 'placeholder', env: [{ name: 'A', value: '1' }] },
      { name: 'two', image: 'placeholder' },
    ],
    tolerations: [{ key: 'k', operator: 'Exists' }],
  },
});

const failureOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
  throw new Error('no error');
};

describe('strategic merge patch', () => {
  it('merges containers by name, maps by key, and deletes keys set to null', () => {
    const patched = applyPatch('application/strategic-merge-patch+json', pod(), {
      metadata: { labels: { b: null, c: '3' }, annotations: { DRONE_BUILD_STATUS: 'success' } },
      spec: { containers: [{ name: 'two', image: 'alpine:3', env: [{ name: 'B', value: '2' }] }] },
    });
    expect(patched).toEqual({
      metadata: {
        name: 'p',
        labels: { a: '1', c: '3' },
        annotations: { 'x/y': 'z', DRONE_BUILD_STATUS: 'success' },
      },
      spec: {
        containers: [
          { name: 'one', image: 'placeholder', env: [{ name: 'A', value: '1' }] },
          { name: 'two', image: 'alpine:3', env: [{ name: 'B', value: '2' }] },
        ],
        tolerations: [{ key: 'k', operator: 'Exists' }],
      },
    });
  });

  it('replaces lists without a merge key and understands the directives', () => {
    const patched = applyPatch('application/strategic-merge-patch+json', pod(), {
      spec: {
        tolerations: [{ key: 'other', operator: 'Exists' }],
        containers: [
          { name: 'one', $patch: 'delete' },
          { name: 'three', image: 'new' },
        ],
        '$setElementOrder/containers': [{ name: 'three' }, { name: 'two' }],
      },
      metadata: { labels: { $patch: 'replace', only: 'this' } },
    }) as ReturnType<typeof pod>;
    expect(patched.spec.tolerations).toEqual([{ key: 'other', operator: 'Exists' }]);
    expect(patched.spec.containers.map((c) => c.name)).toEqual(['three', 'two']);
    expect(patched.metadata.labels).toEqual({ only: 'this' });
  });

  it('refuses a list item without its merge key', () => {
    const status = failureOf(() =>
      applyPatch('application/strategic-merge-patch+json', pod(), { spec: { containers: [{ image: 'x' }] } }),
    );
    expect(status).toMatchObject({ code: 400, reason: 'BadRequest' });
  });
});

describe('merge patch', () => {
  it('follows RFC 7386: maps merge, null deletes, lists are replaced', () => {
    const patched = applyPatch('application/merge-patch+json', pod(), {
      metadata: { labels: { a: null, d: '4' } },
      spec: { containers: [{ name: 'only' }] },
    }) as ReturnType<typeof pod>;
    expect(patched.metadata.labels).toEqual({ b: '2', d: '4' });
    expect(patched.spec.containers).toEqual([{ name: 'only' }]);
  });
});

describe('JSON patch', () => {
  it('applies add, replace, remove, copy, move and test in order', () => {
    const patched = applyPatch('application/json-patch+json', pod(), [
      { op: 'test', path: '/spec/containers/1/name', value: 'two' },
      { op: 'replace', path: '/spec/containers/1/image', value: 'alpine:3' },
      { op: 'add', path: '/metadata/annotations/DRONE_STAGE_STATUS', value: 'failure' },
      { op: 'add', path: '/metadata/labels/slash~1key', value: 'v' },
      { op: 'remove', path: '/metadata/labels/a' },
      { op: 'copy', from: '/metadata/labels/b', path: '/metadata/labels/copied' },
      { op: 'move', from: '/spec/tolerations', path: '/spec/moved' },
      { op: 'add', path: '/spec/containers/-', value: { name: 'three' } },
    ]) as ReturnType<typeof pod> & { spec: { moved?: unknown } };
    expect(patched.spec.containers.map((c) => c.image)).toEqual(['placeholder', 'alpine:3', undefined]);
    expect(patched.metadata.annotations).toEqual({ 'x/y': 'z', DRONE_STAGE_STATUS: 'failure' });
    expect(patched.metadata.labels).toEqual({ b: '2', 'slash/key': 'v', copied: '2' });
    expect(patched.spec.moved).toEqual([{ key: 'k', operator: 'Exists' }]);
  });

  it('fails on a failed test, a missing parent, a bad index and an unknown op', () => {
    for (const patch of [
      [{ op: 'test', path: '/metadata/name', value: 'q' }],
      [{ op: 'add', path: '/metadata/missing/key', value: 'v' }],
      [{ op: 'replace', path: '/spec/containers/7/image', value: 'v' }],
      [{ op: 'remove', path: '/metadata/nothing' }],
      [{ op: 'frobnicate', path: '/metadata/name' }],
    ]) {
      expect(failureOf(() => applyPatch('application/json-patch+json', pod(), patch))).toMatchObject({
        code: 422,
        reason: 'Invalid',
      });
    }
    expect(failureOf(() => applyPatch('application/json-patch+json', pod(), { op: 'add' })).code).toBe(400);
  });

  it('leaves the original untouched', () => {
    const original = pod();
    applyPatch('application/json-patch+json', original, [{ op: 'remove', path: '/metadata/labels' }]);
    expect(original.metadata.labels).toEqual({ a: '1', b: '2' });
  });
});
