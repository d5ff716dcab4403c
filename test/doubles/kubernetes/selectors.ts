/*
 * `labelSelector` and `fieldSelector` of list and watch calls, with the grammar of
 * k8s.io/apimachinery's labels and fields packages: equality (`=`, `==`), `!=`, `in (…)`, `notin (…)`,
 * existence (`key`, `!key`) and `>`/`<` for labels; `=`, `==`, `!=` on the fields each resource supports.
 */
import { badRequest } from './errors.js';
import type { KubeObject, Pod, Secret } from './types.js';
import type { Resource } from './cluster.js';

type Requirement =
  | { key: string; op: 'exists' | 'absent' }
  | { key: string; op: '=' | '!=' | 'in' | 'notin'; values: string[] }
  | { key: string; op: '>' | '<'; bound: number };

export type LabelSelector = Requirement[];

/** Parses a label selector; an empty or missing one selects everything. */
export function parseLabelSelector(text: string | null | undefined): LabelSelector {
  const source = text ?? '';
  const requirements: Requirement[] = [];
  let at = 0;
  const fail = (why: string) => badRequest(`unable to parse requirement: ${why} in selector "${source}"`);
  const skipSpaces = () => {
    while (source[at] === ' ') at += 1;
  };
  const word = (): string => {
    skipSpaces();
    const match = /^[A-Za-z0-9_.\-/]*/.exec(source.slice(at));
    const found = match?.[0] ?? '';
    at += found.length;
    return found;
  };
  while (true) {
    skipSpaces();
    if (at >= source.length) break;
    let negated = false;
    if (source[at] === '!') {
      negated = true;
      at += 1;
    }
    const key = word();
    if (key === '') throw fail(`found '${source[at] ?? ''}', expected: identifier`);
    skipSpaces();
    const rest = source.slice(at);
    if (negated) {
      requirements.push({ key, op: 'absent' });
    } else if (rest === '' || rest.startsWith(',')) {
      requirements.push({ key, op: 'exists' });
    } else if (/^(==|=|!=)/.test(rest)) {
      const op = rest.startsWith('!=') ? '!=' : '=';
      at += rest.startsWith('==') || rest.startsWith('!=') ? 2 : 1;
      requirements.push({ key, op, values: [word()] });
    } else if (/^[<>]/.test(rest)) {
      at += 1;
      const bound = word();
      if (!/^-?\d+$/.test(bound)) throw fail(`for '${rest[0]}' operator, the value must be an integer`);
      requirements.push({ key, op: rest[0] === '>' ? '>' : '<', bound: Number(bound) });
    } else if (/^(in|notin)\s*\(/.test(rest)) {
      const op = rest.startsWith('in') ? 'in' : 'notin';
      const close = source.indexOf(')', at);
      if (close < 0) throw fail(`found '', expected: ')'`);
      const inside = source.slice(source.indexOf('(', at) + 1, close);
      const values = inside.split(',').map((v) => v.trim());
      at = close + 1;
      requirements.push({ key, op, values: values.filter((v) => v !== '') });
    } else {
      throw fail(`found '${rest[0] ?? ''}', expected: in, notin, =, ==, !=, gt, lt`);
    }
    skipSpaces();
    if (at < source.length) {
      if (source[at] !== ',') throw fail(`found '${source[at] ?? ''}', expected: ','`);
      at += 1;
    }
  }
  return requirements;
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const all = labels ?? {};
  return selector.every((r) => {
    const has = Object.hasOwn(all, r.key);
    const value = all[r.key];
    switch (r.op) {
      case 'exists':
        return has;
      case 'absent':
        return !has;
      case '=':
      case 'in':
        return has && r.values.includes(value ?? '');
      case '!=':
      case 'notin':
        return !has || !r.values.includes(value ?? '');
      case '>':
      case '<': {
        if (!has || !/^-?\d+$/.test(value ?? '')) return false;
        return r.op === '>' ? Number(value) > r.bound : Number(value) < r.bound;
      }
    }
  });
}

export type FieldSelector = { field: string; equal: boolean; value: string }[];

const FIELDS: Record<Resource, Record<string, (o: KubeObject) => string>> = {
  pods: {
    'metadata.name': (o) => o.metadata.name ?? '',
    'metadata.namespace': (o) => o.metadata.namespace ?? '',
    'spec.nodeName': (o) => (o as Pod).spec.nodeName ?? '',
    'spec.restartPolicy': (o) => (o as Pod).spec.restartPolicy ?? '',
    'spec.schedulerName': (o) => {
      const name = (o as Pod).spec.schedulerName;
      return typeof name === 'string' ? name : '';
    },
    'spec.serviceAccountName': (o) => (o as Pod).spec.serviceAccountName ?? '',
    'spec.hostNetwork': (o) => String((o as Pod).spec.hostNetwork === true),
    'status.phase': (o) => (o as Pod).status.phase,
    'status.podIP': (o) => (o as Pod).status.podIP ?? '',
    'status.nominatedNodeName': () => '',
  },
  secrets: {
    'metadata.name': (o) => o.metadata.name ?? '',
    'metadata.namespace': (o) => o.metadata.namespace ?? '',
    type: (o) => (o as Secret).type,
  },
  namespaces: {
    'metadata.name': (o) => o.metadata.name ?? '',
    'status.phase': (o) => String((o.status as { phase?: string } | undefined)?.phase ?? ''),
  },
};

/** Parses a field selector for `resource`; a field the resource does not index is a 400, as on a cluster. */
export function parseFieldSelector(resource: Resource, text: string | null | undefined): FieldSelector {
  if (text === null || text === undefined || text.trim() === '') return [];
  return splitUnescaped(text, ',').map((term) => {
    const match = /^\s*([^!=\s]+)\s*(==|=|!=)(.*)$/.exec(term);
    if (match === null) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const [, field = '', op, value = ''] = match;
    if (FIELDS[resource][field] === undefined) throw badRequest(`field label not supported: ${field}`);
    return { field, equal: op !== '!=', value: value.trim().replace(/\\(.)/g, '$1') };
  });
}

export function matchesFields(resource: Resource, selector: FieldSelector, object: KubeObject): boolean {
  return selector.every(({ field, equal, value }) => {
    const actual = FIELDS[resource][field]?.(object) ?? '';
    return (actual === value) === equal;
  });
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    if (char === '\\' && i + 1 < text.length) {
      current += char + (text[i + 1] ?? '');
      i += 1;
    } else if (char === separator) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

/** A compiled `labelSelector` + `fieldSelector` pair, as list and watch take them. */
export interface Selection {
  labels: LabelSelector;
  fields: FieldSelector;
}

export function selectionFrom(resource: Resource, query: URLSearchParams): Selection {
  return {
    labels: parseLabelSelector(query.get('labelSelector')),
    fields: parseFieldSelector(resource, query.get('fieldSelector')),
  };
}

export function selects(resource: Resource, selection: Selection, object: KubeObject): boolean {
  return (
    matchesLabels(selection.labels, object.metadata.labels) &&
    matchesFields(resource, selection.fields, object)
  );
}
