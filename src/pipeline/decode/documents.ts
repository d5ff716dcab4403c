import type { Diagnostics } from '../diagnostics.js';
import type { ManifestDocument, SecretDocument, SignatureDocument, TemplateDocument } from '../types.js';
import type { TreeNode } from '../yaml/tree.js';
import { Fields } from './fields.js';
import { readPipeline } from './pipeline.js';
import { describeNode, readMap } from './read.js';
import { toJson } from './values.js';

/** The kinds of documents a pipeline file may hold. */
export const DOCUMENT_KINDS = ['pipeline', 'secret', 'signature', 'template'] as const;

const KINDS_TEXT = 'kind: pipeline (or secret, signature, template)';

/**
 * Explains the move from the 0.8 format, which had a top-level `pipeline:` map of steps keyed by name,
 * to the current one; users meet this when an old repository is enabled.
 */
export const LEGACY_FORMAT_MESSAGE =
  'this file uses the Drone 0.8 format (a top-level "pipeline:" map), which svc does not run. ' +
  'Convert it to the current format: start the document with "kind: pipeline", "type: docker" and ' +
  '"name: default", and turn the "pipeline:" map into a "steps:" list where each step carries its name ' +
  '("pipeline: {build: {image: golang}}" becomes "steps: [{name: build, image: golang}]"); plugin ' +
  'parameters move under "settings:", and top-level "branches:" becomes "trigger: {branch: …}". ' +
  'The command "drone convert .drone.yml" of the Drone CLI does the conversion';

/** One YAML document of the file; undefined when it is not a document svc can use (the error says why). */
export function readDocument(node: TreeNode, diagnostics: Diagnostics): ManifestDocument | undefined {
  const map = readMap(node, '', `a document of fields starting with ${KINDS_TEXT}`, diagnostics);
  if (map === undefined) return undefined;
  const fields = new Fields(map, '', diagnostics);
  const kindNode = fields.node('kind');
  if (kindNode === undefined) {
    const legacy = fields.node('pipeline');
    if (legacy?.kind === 'map') diagnostics.error(fields.at('pipeline'), 'pipeline', LEGACY_FORMAT_MESSAGE);
    else
      diagnostics.error(
        map.position,
        'kind',
        `is missing; expected ${KINDS_TEXT} at the top of each document`,
      );
    return undefined;
  }
  const kind = kindNode.kind === 'scalar' ? kindNode.text : '';
  switch (kind) {
    case 'pipeline':
      return readPipeline(fields, diagnostics);
    case 'secret':
      return readSecret(fields);
    case 'signature':
      return readSignature(fields);
    case 'template':
      return readTemplate(fields);
    default:
      diagnostics.error(
        kindNode.position,
        'kind',
        `unknown kind ${kindNode.kind === 'scalar' ? `"${kind}"` : describeNode(kindNode)}; expected one of ${DOCUMENT_KINDS.join(', ')}`,
      );
      return undefined;
  }
}

const SECRET_SET = { what: 'a secret document', known: ['kind', 'type', 'name', 'get', 'data'] };
const GET_SET = { what: 'the get section', known: ['path', 'name', 'key'] };

function readSecret(fields: Fields): SecretDocument {
  fields.expect(SECRET_SET);
  const name = fields.string('name', 'the secret name steps use with from_secret');
  if (name === undefined) {
    fields.diagnostics.error(
      fields.position,
      'name',
      'is required; expected the name steps use in from_secret',
    );
  }
  const get = fields.section('get', GET_SET);
  const document: SecretDocument = {
    kind: 'secret',
    name: name ?? '',
    position: fields.position,
    get: {
      path: get?.string('path', 'the path of the secret in the secret service') ?? '',
      name: get?.string('name', 'the name of the value at that path') ?? '',
      key: get?.string('key') ?? '',
    },
    data: fields.string('data', 'the encrypted value') ?? '',
  };
  if (document.get.path === '' && document.get.name === '' && document.data === '') {
    fields.diagnostics.error(
      fields.position,
      'get',
      'a secret document needs get: {path: …, name: …} (a secret from the secret service) or data: … (an encrypted value)',
    );
  }
  return document;
}

function readSignature(fields: Fields): SignatureDocument {
  fields.expect({ what: 'a signature document', known: ['kind', 'hmac'] });
  const hmac = fields.string('hmac', 'the HMAC of the file, in hex');
  if (hmac === undefined) {
    fields.diagnostics.error(fields.position, 'hmac', 'is required; expected the HMAC of the file, in hex');
  }
  return { kind: 'signature', name: '', position: fields.position, hmac: hmac ?? '' };
}

function readTemplate(fields: Fields): TemplateDocument {
  fields.expect({ what: 'a template document', known: ['kind', 'load', 'data'] });
  const load = fields.string('load', 'the name of the template, e.g. load: plugin.yaml');
  if (load === undefined) {
    fields.diagnostics.error(
      fields.position,
      'load',
      'is required; expected the name of the template, e.g. load: plugin.yaml',
    );
  }
  const dataNode = fields.node('data');
  const data =
    dataNode === undefined
      ? undefined
      : readMap(dataNode, 'data', 'a map of template inputs', fields.diagnostics);
  const inputs = data === undefined ? {} : toJson(data);
  return {
    kind: 'template',
    name: '',
    position: fields.position,
    load: load ?? '',
    data: typeof inputs === 'object' && inputs !== null && !Array.isArray(inputs) ? inputs : {},
  };
}
