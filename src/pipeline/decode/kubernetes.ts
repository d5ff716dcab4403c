import type { EnvValue, KubernetesSettings, SshServer, Toleration } from '../types.js';
import type { TreeNode } from '../yaml/tree.js';
import { fieldsOf, type Fields } from './fields.js';
import { child } from './read.js';
import { readEnvValue } from './values.js';

const METADATA_SET = { what: 'the metadata section', known: ['name', 'namespace', 'labels', 'annotations'] };
const TOLERATION_SET = {
  what: 'a toleration',
  known: ['key', 'operator', 'value', 'effect', 'toleration_seconds'],
};
const HOST_ALIAS_SET = { what: 'a host alias', known: ['ip', 'hostnames'] };
const DNS_CONFIG_SET = { what: 'the dns_config section', known: ['nameservers', 'searches', 'options'] };
const DNS_OPTION_SET = { what: 'a DNS option', known: ['name', 'value'] };
const SERVER_SET = { what: 'the server section', known: ['host', 'user', 'password', 'ssh_key'] };

/** The kubernetes-only fields of a pipeline (empty for other types, which warn about them). */
export function readKubernetes(fields: Fields): KubernetesSettings {
  const metadata = fields.section('metadata', METADATA_SET);
  const dns = fields.section('dns_config', DNS_CONFIG_SET);
  return {
    metadata: {
      name: metadata?.string('name') ?? '',
      namespace: metadata?.string('namespace', 'a Kubernetes namespace') ?? '',
      labels: metadata?.stringMap('labels', 'a map of label names to values') ?? {},
      annotations: metadata?.stringMap('annotations', 'a map of annotation names to values') ?? {},
    },
    nodeSelector: fields.stringMap('node_selector', 'a map of node labels, e.g. disktype: ssd'),
    tolerations: list(fields, 'tolerations', (item, field) => {
      const toleration = fieldsOf(item, field, TOLERATION_SET, fields.diagnostics);
      if (toleration === undefined) return undefined;
      const result: Toleration = {
        key: toleration.string('key') ?? '',
        operator: toleration.string('operator', 'Exists or Equal') ?? '',
        value: toleration.string('value') ?? '',
        effect: toleration.string('effect', 'NoSchedule, PreferNoSchedule or NoExecute') ?? '',
        tolerationSeconds: toleration.int('toleration_seconds', 'a number of seconds') ?? 0,
      };
      return result;
    }),
    serviceAccountName:
      fields.string('service_account_name', 'the name of a service account') ??
      fields.string('service_account', 'the name of a service account') ??
      '',
    hostAliases: list(fields, 'host_aliases', (item, field) => {
      const alias = fieldsOf(item, field, HOST_ALIAS_SET, fields.diagnostics);
      if (alias === undefined) return undefined;
      return {
        ip: alias.string('ip', 'an IP address') ?? '',
        hostnames: alias.strings('hostnames', 'host names'),
      };
    }),
    dnsConfig: {
      nameservers: dns?.strings('nameservers', 'DNS server addresses') ?? [],
      searches: dns?.strings('searches', 'DNS search domains') ?? [],
      options:
        dns === undefined
          ? []
          : list(dns, 'options', (item, field) => {
              const option = fieldsOf(item, field, DNS_OPTION_SET, fields.diagnostics);
              if (option === undefined) return undefined;
              return { name: option.string('name') ?? '', value: option.string('value') ?? '' };
            }),
    },
  };
}

/** The `server` section of an ssh pipeline: each field a string or `{from_secret: name}`. */
export function readServer(fields: Fields): SshServer | undefined {
  const server = fields.section('server', SERVER_SET);
  if (server === undefined) return undefined;
  const value = (key: string): EnvValue => {
    const node = server.node(key);
    if (node === undefined) return { kind: 'value', value: '' };
    return readEnvValue(node, server.field(key), server.diagnostics) ?? { kind: 'value', value: '' };
  };
  return { host: value('host'), user: value('user'), password: value('password'), sshKey: value('ssh_key') };
}

function list<T>(fields: Fields, key: string, read: (item: TreeNode, field: string) => T | undefined): T[] {
  const node = fields.node(key);
  if (node === undefined) return [];
  if (node.kind !== 'seq') {
    fields.diagnostics.error(
      node.position,
      fields.field(key),
      `expected a list, found a ${node.kind === 'map' ? 'map' : 'single value'}`,
    );
    return [];
  }
  return node.items.flatMap((item, index) => {
    const value = read(item, child(fields.field(key), index));
    return value === undefined ? [] : [value];
  });
}
