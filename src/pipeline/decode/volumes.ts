import type { Diagnostics } from '../diagnostics.js';
import type { Volume, VolumeMount } from '../types.js';
import type { TreeNode } from '../yaml/tree.js';
import { fieldsOf, type Fields } from './fields.js';
import { child } from './read.js';
import { readByteSize } from './units.js';

const MOUNT_SET = { what: 'a volume mount', known: ['name', 'path'] };
const VOLUME_SET = {
  what: 'a pipeline volume',
  known: ['name', 'host', 'temp'],
  docs: 'see "Volumes" in docs/pipelines.md',
};
const HOST_SET = { what: 'a host volume', known: ['path'] };
const TEMP_SET = { what: 'a temp volume', known: ['medium', 'size_limit'] };

/**
 * A step's `volumes` or `devices`: a list of `{name, path}` where `name` is a volume of the pipeline
 * and `path` the place (or device path) in the container.
 */
export function readMounts(fields: Fields, key: 'volumes' | 'devices'): VolumeMount[] {
  const node = fields.node(key);
  if (node === undefined) return [];
  const field = fields.field(key);
  const example = key === 'volumes' ? '{name: cache, path: /cache}' : '{name: usb, path: /dev/ttyUSB0}';
  if (node.kind !== 'seq') {
    fields.diagnostics.error(node.position, field, `expected a list of ${example}`);
    return [];
  }
  const mounts: VolumeMount[] = [];
  node.items.forEach((item, index) => {
    fields.note(`${key}[${index}]`, item.position);
    const mount = fieldsOf(
      item,
      child(field, index),
      { ...MOUNT_SET, what: `an entry like ${example}` },
      fields.diagnostics,
    );
    if (mount === undefined) return;
    const name = mount.string('name', 'the name of a volume of the pipeline');
    const path = mount.string('path', 'an absolute path in the container');
    if (name === undefined || path === undefined) {
      fields.diagnostics.error(
        item.position,
        child(field, index),
        `expected both name and path, e.g. ${example}`,
      );
      return;
    }
    mounts.push({ name, path });
  });
  return mounts;
}

/** The pipeline's `volumes`: each `{name, host: {path}}` or `{name, temp: {medium, size_limit}}`. */
export function readVolumes(node: TreeNode | undefined, field: string, diagnostics: Diagnostics): Volume[] {
  if (node === undefined) return [];
  if (node.kind !== 'seq') {
    diagnostics.error(node.position, field, 'expected a list of volumes, e.g. - {name: cache, temp: {}}');
    return [];
  }
  return node.items.flatMap((item, index) => {
    const volume = readVolume(item, child(field, index), diagnostics);
    return volume === undefined ? [] : [volume];
  });
}

function readVolume(node: TreeNode, field: string, diagnostics: Diagnostics): Volume | undefined {
  const fields = fieldsOf(node, field, VOLUME_SET, diagnostics);
  if (fields === undefined) return undefined;
  const name = fields.string('name', 'the volume name, a string');
  const common = { name: name ?? '', field, position: fields.position, locations: fields.locations };
  if (name === undefined) {
    diagnostics.error(
      fields.position,
      field,
      'name is required; expected a name that steps mount, e.g. name: cache',
    );
  }
  const hasHost = fields.node('host') !== undefined || fields.locations.host !== undefined;
  const hasTemp = fields.node('temp') !== undefined || fields.locations.temp !== undefined;
  if (hasHost === hasTemp) {
    diagnostics.error(
      fields.position,
      field,
      `expected exactly one of host: {path: /some/dir} or temp: {}, found ${hasHost ? 'both' : 'neither'}`,
    );
    return undefined;
  }
  if (hasHost) {
    const host = fields.section('host', HOST_SET);
    const path = host?.string('path', 'an absolute path on the host');
    if (path === undefined || !path.startsWith('/')) {
      diagnostics.error(
        fields.at('host'),
        child(field, 'host.path'),
        'expected an absolute path on the host, e.g. path: /var/cache',
      );
      return undefined;
    }
    return { kind: 'host', path, ...common };
  }
  const temp = fields.section('temp', TEMP_SET);
  const medium = temp?.string('medium', 'memory (or nothing, for disk)') ?? '';
  if (medium !== '' && medium !== 'memory') {
    diagnostics.error(
      temp?.at('medium') ?? fields.at('temp'),
      child(field, 'temp.medium'),
      `unknown medium "${medium}"; expected memory, or no medium for a volume on disk`,
    );
  }
  const sizeNode = temp?.node('size_limit');
  const sizeLimit =
    sizeNode === undefined ? 0 : (readByteSize(sizeNode, child(field, 'temp.size_limit'), diagnostics) ?? 0);
  return { kind: 'temp', medium: medium === 'memory' ? 'memory' : 'disk', sizeLimit, ...common };
}
