/*
 * Name, label and annotation rules of k8s.io/apimachinery/pkg/util/validation, with the API server's
 * wording (the "regex used for validation is …" sentences are quoted by the real messages).
 */
import { FieldError } from './errors.js';
import type { ObjectMeta } from './types.js';

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN = `${LABEL}(\\.${LABEL})*`;
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';

const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must " +
  `start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${SUBDOMAIN}')`;
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and " +
  `end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${LABEL}')`;

const whole = (pattern: string) => new RegExp(`^(?:${pattern})$`);
const isSubdomain = (name: string) => name.length <= 253 && whole(SUBDOMAIN).test(name);
export const isLabel = (name: string): boolean => name.length <= 63 && whole(LABEL).test(name);

/** Problems of a DNS-1123 subdomain (pod and secret names), as IsDNS1123Subdomain words them. */
export function subdomainProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 253) problems.push('must be no more than 253 characters');
  if (!whole(SUBDOMAIN).test(name)) problems.push(SUBDOMAIN_MESSAGE);
  return problems;
}

/** Problems of a DNS-1123 label (namespace, container and volume names). */
export function labelProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 63) problems.push('must be no more than 63 characters');
  if (!whole(LABEL).test(name)) problems.push(LABEL_MESSAGE);
  return problems;
}

/** Field errors for `metadata.name` (kind decides the rule: namespaces are labels, the rest subdomains). */
export function validateName(metadata: ObjectMeta, rule: 'subdomain' | 'label'): FieldError[] {
  const name = metadata.name ?? '';
  if (name === '') {
    const generate = metadata.generateName ?? '';
    return generate === ''
      ? [new FieldError('metadata.name', 'Required', 'name or generateName is required')]
      : [];
  }
  const problems = rule === 'label' ? labelProblems(name) : subdomainProblems(name);
  return problems.map((p) => new FieldError('metadata.name', 'Invalid', p, name));
}

function qualifiedNameProblems(key: string): string[] {
  const parts = key.split('/');
  const problems: string[] = [];
  let name = key;
  if (parts.length === 2) {
    const [prefix = '', rest = ''] = parts;
    name = rest;
    if (prefix === '') problems.push('prefix part must be non-empty');
    else if (!isSubdomain(prefix)) problems.push(`prefix part ${SUBDOMAIN_MESSAGE}`);
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with " +
        `an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is ` +
        `'${QUALIFIED_NAME}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name === '') problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  else if (!whole(QUALIFIED_NAME).test(name)) {
    problems.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an " +
        `alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME}')`,
    );
  }
  return problems;
}

/** Field errors of `metadata.labels` and `metadata.annotations` (qualified keys; label values ≤ 63). */
export function validateLabelsAndAnnotations(metadata: ObjectMeta): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(metadata.labels ?? {})) {
    for (const p of qualifiedNameProblems(key))
      errors.push(new FieldError('metadata.labels', 'Invalid', p, key));
    if (typeof value !== 'string' || value.length > 63 || !whole(LABEL_VALUE).test(value)) {
      const why =
        typeof value === 'string' && value.length > 63
          ? 'must be no more than 63 characters'
          : "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and " +
            "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', " +
            `regex used for validation is '${LABEL_VALUE}')`;
      errors.push(new FieldError('metadata.labels', 'Invalid', why, value));
    }
  }
  let total = 0;
  for (const [key, value] of Object.entries(metadata.annotations ?? {})) {
    for (const p of qualifiedNameProblems(key.toLowerCase())) {
      errors.push(new FieldError('metadata.annotations', 'Invalid', p, key));
    }
    total += key.length + String(value).length;
  }
  if (total > 256 * 1024) {
    errors.push(new FieldError('metadata.annotations', 'Invalid', 'must have at most 262144 bytes', ''));
  }
  return errors;
}
