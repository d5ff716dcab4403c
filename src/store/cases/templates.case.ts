import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { unique, useStore, type OpenFreshStore } from './fixtures.case.js';

const PLUGIN = 'kind: pipeline\nname: {{ .input.name }}\nsteps:\n- name: test\n  image: {{ .input.image }}\n';

/** TemplateStore: per-namespace names, exact matching, create/find/list/update (and move)/delete. */
export function templatesContract(open: OpenFreshStore): void {
  describe('templates', () => {
    const store = useStore(open);

    it('creates a template and finds it by namespace and name, exactly', async () => {
      const namespace = unique('acme-');
      const created = await store().templates.create({ namespace, name: 'plugin.yaml', data: PLUGIN });
      expect(created).toMatchObject({ namespace, name: 'plugin.yaml', data: PLUGIN });
      expect(created.id).toBeGreaterThan(0);
      expect(created.created).toBeGreaterThan(0);
      expect(created.updated).toBe(created.created);
      expect(await store().templates.findName(namespace, 'plugin.yaml')).toEqual(created);
      expect(await store().templates.findName(namespace, 'plugin.yml')).toBeUndefined();
      expect(await store().templates.findName(namespace, 'PLUGIN.yaml')).toBeUndefined();
      expect(await store().templates.findName(namespace.toUpperCase(), 'plugin.yaml')).toBeUndefined();
      expect(await store().templates.findName(unique('other-'), 'plugin.yaml')).toBeUndefined();
    });

    it('binds a template to its namespace’s provider id once: a second bind does nothing', async () => {
      const namespace = unique('acme-');
      const created = await store().templates.create({ namespace, name: 'plugin.yaml', data: PLUGIN });
      expect(created.namespaceUid).toBe('');
      expect(await store().templates.bindNamespace(created.id, '')).toBe(false);
      expect(await store().templates.bindNamespace(created.id, '583231')).toBe(true);
      expect(await store().templates.bindNamespace(created.id, '999')).toBe(false);
      expect((await store().templates.findName(namespace, 'plugin.yaml'))?.namespaceUid).toBe('583231');
      const bound = await store().templates.create({
        namespace,
        name: 'b.yaml',
        data: PLUGIN,
        namespaceUid: '7',
      });
      expect(await store().templates.findName(namespace, 'b.yaml')).toEqual(bound);
    });

    it('keeps the same name apart in two namespaces, and refuses it twice in one', async () => {
      const [a, b] = [unique('a-'), unique('b-')];
      const first = await store().templates.create({
        namespace: a,
        name: 'x.star',
        data: 'def main(ctx): 1',
      });
      const second = await store().templates.create({ namespace: b, name: 'x.star', data: 'other' });
      expect(first.id).not.toBe(second.id);
      expect((await store().templates.findName(b, 'x.star'))?.data).toBe('other');
      const again = store().templates.create({ namespace: a, name: 'x.star', data: 'again' });
      await expect(again).rejects.toThrow(ConflictError);
      await expect(again).rejects.toThrow(`template "x.star" already exists in namespace "${a}"`);
    });

    it('lists one namespace by name, and every namespace by namespace then name', async () => {
      const [a, b] = [unique('list-a-'), unique('list-b-')];
      for (const name of ['zeta.yaml', 'alpha.jsonnet', 'mid.star'])
        await store().templates.create({ namespace: a, name, data: name });
      await store().templates.create({ namespace: b, name: 'only.yml', data: 'b' });
      expect((await store().templates.list(a)).map((t) => t.name)).toEqual([
        'alpha.jsonnet',
        'mid.star',
        'zeta.yaml',
      ]);
      expect(await store().templates.list(unique('empty-'))).toEqual([]);
      const all = (await store().templates.listAll())
        .filter((t) => t.namespace === a || t.namespace === b)
        .map((t) => `${t.namespace}/${t.name}`);
      expect(all).toEqual([`${a}/alpha.jsonnet`, `${a}/mid.star`, `${a}/zeta.yaml`, `${b}/only.yml`]);
    });

    it('updates the text, moves a template to another namespace, and deletes it', async () => {
      const [from, to] = [unique('from-'), unique('to-')];
      const template = await store().templates.create({ namespace: from, name: 'p.yaml', data: 'one' });
      const changed = await store().templates.update({ ...template, data: 'two' });
      expect(changed.data).toBe('two');
      expect(changed.updated).toBeGreaterThanOrEqual(template.updated);
      expect(await store().templates.findName(from, 'p.yaml')).toEqual(changed);

      const moved = await store().templates.update({ ...changed, namespace: to });
      expect(await store().templates.findName(from, 'p.yaml')).toBeUndefined();
      expect(await store().templates.findName(to, 'p.yaml')).toEqual(moved);

      await store().templates.delete(moved.id);
      expect(await store().templates.findName(to, 'p.yaml')).toBeUndefined();
      await store().templates.delete(moved.id);
      await expect(store().templates.update(moved)).rejects.toThrow(NotFoundError);
    });

    it('refuses to move a template onto a name its new namespace already has', async () => {
      const [a, b] = [unique('clash-a-'), unique('clash-b-')];
      const mine = await store().templates.create({ namespace: a, name: 'same.yaml', data: 'a' });
      await store().templates.create({ namespace: b, name: 'same.yaml', data: 'b' });
      await expect(store().templates.update({ ...mine, namespace: b })).rejects.toThrow(ConflictError);
      expect((await store().templates.findName(b, 'same.yaml'))?.data).toBe('b');
    });

    it('keeps a large template and any text as written', async () => {
      const namespace = unique('big-');
      const data = `# ünïcödé ✓ no NUL\n${'x: "{{ .input.v }}"\n'.repeat(40_000)}`;
      const created = await store().templates.create({ namespace, name: 'big.yaml', data });
      expect((await store().templates.findName(namespace, 'big.yaml'))?.data).toBe(data);
      expect(created.data.length).toBeGreaterThan(700_000);
    });
  });
}
