/*
 * Checks Kubernetes objects against the Kubernetes OpenAPI schema, twice:
 * - kubernetes-models (JSON-schema validators generated from Kubernetes' OpenAPI document): types,
 *   formats, enums and required fields;
 * - the models of @kubernetes/client-node (generated from the same document): every field must be
 *   one the object's type has. The schema itself allows unknown fields, which the API server then
 *   drops or refuses (kubectl's --validate=strict); a misspelt `readinesProbe` must fail here.
 */
import * as client from '@kubernetes/client-node';

/** A Kubernetes object as a manifest holds it. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

interface Attribute {
  baseName: string;
  type: string;
}

/** Every problem of `object`: schema errors, then unknown fields (as paths like spec.template.spec.x). */
export async function kubernetesProblems(object: KubeObject): Promise<string[]> {
  const what = `${object.apiVersion} ${object.kind} ${object.metadata.name}`;
  // One module per API group and version: kubernetes-models/v1, kubernetes-models/apps/v1, …
  const specifier = `kubernetes-models/${object.apiVersion}`;
  const models: unknown = await import(/* @vite-ignore */ specifier).catch(() => undefined);
  const Model = (models as Record<string, unknown> | undefined)?.[object.kind];
  if (typeof Model !== 'function') return [`${what}: no such kind in the Kubernetes API`];
  const problems: string[] = [];
  try {
    new (Model as new (data: unknown) => { validate(): void })(object).validate();
  } catch (error) {
    problems.push(`${what}: ${(error as Error).message}`);
  }
  const version = object.apiVersion.split('/').at(-1) ?? '';
  const type = `${version.charAt(0).toUpperCase()}${version.slice(1)}${object.kind}`;
  problems.push(...unknownFields(object, type, '').map((path) => `${what}: unknown field ${path}`));
  return problems;
}

/** The fields of a client-node model type, or undefined for a scalar type (string, IntOrString, …). */
function attributes(type: string): Attribute[] | undefined {
  const model = (client as unknown as Record<string, { getAttributeTypeMap?: () => Attribute[] }>)[type];
  return model?.getAttributeTypeMap?.();
}

function unknownFields(value: unknown, type: string, path: string): string[] {
  const item = /^Array<(.+)>$/.exec(type)?.[1];
  if (item !== undefined && Array.isArray(value)) {
    return value.flatMap((entry, index) => unknownFields(entry, item, `${path}[${index}]`));
  }
  const member = /^\{ \[key: string\]: (.+); \}$/.exec(type)?.[1];
  if (member !== undefined && typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, entry]) => unknownFields(entry, member, `${path}.${key}`));
  }
  const fields = attributes(type);
  if (fields === undefined || typeof value !== 'object' || value === null) return [];
  const byName = new Map(fields.map((field) => [field.baseName, field.type]));
  return Object.entries(value).flatMap(([key, item]) => {
    const at = path === '' ? key : `${path}.${key}`;
    const fieldType = byName.get(key);
    return fieldType === undefined ? [at] : unknownFields(item, fieldType, at);
  });
}
