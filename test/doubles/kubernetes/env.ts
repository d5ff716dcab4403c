/*
 * A container's environment as the kubelet builds it (makeEnvironmentVariables): `envFrom` first, then
 * `env` in order, each value with `$(VAR)` references to the variables before it expanded and `$$`
 * unescaped; `secretKeyRef` and `secretRef` honour `optional`; a missing non-optional secret or key is
 * the CreateContainerConfigError message. `command` and `args` are expanded against the final set.
 * Service-link variables (KUBERNETES_SERVICE_HOST, …) are not added: the double has no services.
 */
import type { Container, Pod, Secret } from './types.js';

export interface FieldValues {
  nodeName: string;
  podIP: string;
  hostIP: string;
}

export class ConfigError extends Error {}

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** The environment, in order, or throws a ConfigError with the kubelet's message. */
export function containerEnv(
  pod: Pod,
  container: Container,
  secret: (name: string) => Secret | undefined,
  fields: FieldValues,
): Map<string, string> {
  const env = new Map<string, string>();
  const namespace = pod.metadata.namespace ?? '';
  for (const source of container.envFrom ?? []) {
    if (source.secretRef === undefined) {
      throw new ConfigError(
        'envFrom sources other than secretRef (configMapRef) are not modelled by the double',
      );
    }
    const found = secret(source.secretRef.name);
    if (found === undefined) {
      if (source.secretRef.optional === true) continue;
      throw new ConfigError(`secret "${source.secretRef.name}" not found`);
    }
    for (const [key, value] of Object.entries(found.data ?? {})) {
      const name = `${source.prefix ?? ''}${key}`;
      if (ENV_NAME.test(name)) env.set(name, Buffer.from(value, 'base64').toString('utf8'));
    }
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (from === undefined) {
      env.set(variable.name, expand(variable.value ?? '', env));
    } else if (from.secretKeyRef !== undefined) {
      const { name = '', key, optional } = from.secretKeyRef;
      const found = secret(name);
      if (found === undefined) {
        if (optional === true) continue;
        throw new ConfigError(`secret "${name}" not found`);
      }
      const value = found.data?.[key];
      if (value === undefined) {
        if (optional === true) continue;
        throw new ConfigError(`couldn't find key ${key} in Secret ${namespace}/${name}`);
      }
      env.set(variable.name, Buffer.from(value, 'base64').toString('utf8'));
    } else if (from.fieldRef !== undefined) {
      env.set(variable.name, fieldValue(pod, from.fieldRef.fieldPath, fields));
    } else {
      throw new ConfigError(
        `env ${variable.name}: only secretKeyRef and fieldRef sources are modelled by the double`,
      );
    }
  }
  return env;
}

/** The value of a downward-API `fieldRef` for an environment variable. */
export function fieldValue(pod: Pod, path: string, fields: FieldValues): string {
  const subscript = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (subscript !== null) {
    const map = subscript[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[subscript[2] ?? ''] ?? '';
  }
  switch (path) {
    case 'metadata.name':
      return pod.metadata.name ?? '';
    case 'metadata.namespace':
      return pod.metadata.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
    case 'spec.nodeName':
      return fields.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? '';
    case 'status.podIP':
    case 'status.podIPs':
      return fields.podIP;
    case 'status.hostIP':
    case 'status.hostIPs':
      return fields.hostIP;
    default:
      throw new ConfigError(`unsupported fieldPath: ${path}`);
  }
}

/**
 * Kubernetes' `$(VAR)` expansion (third_party/forked/golang/expansion): a defined name is replaced, an
 * undefined one is left as written, `$$` becomes `$`, any other `$` stays.
 */
export function expand(input: string, vars: ReadonlyMap<string, string>): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    if (next === '$') {
      out += '$';
      cursor += 1;
    } else if (next === '(') {
      const close = input.indexOf(')', cursor + 2);
      if (close < 0) {
        out += '$(';
        cursor += 1;
      } else {
        const name = input.slice(cursor + 2, close);
        out += vars.get(name) ?? `$(${name})`;
        cursor = close;
      }
    } else {
      out += `$${next ?? ''}`;
      cursor += 1;
    }
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}
