import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { parseManifest } from '../../../src/pipeline/index.js';
import { hasValidSignature, signFile, SignatureFileError } from '../../../src/server/signing/signature.js';
import type { FuzzTarget } from '../target.js';

const KEY = 'a-repository-signing-key-of-32-bytes!';
const OTHER_KEY = 'another-repository-key-of-32-bytes!!';

/** Small pipeline documents: enough structure for the YAML to matter, quick to parse. */
const pipeline = fc
  .record({
    kind: fc.constantFrom('pipeline', 'secret'),
    name: fc.string({ maxLength: 12 }),
    steps: fc.array(
      fc.record({
        name: fc.string({ maxLength: 8 }),
        image: fc.constantFrom('alpine', 'golang', 'node'),
        commands: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
      }),
      { maxLength: 3 },
    ),
  })
  .map((document) => stringify(document));

/**
 * Pieces that change how a file splits into documents or how YAML reads it: separators and ends
 * with text on their line, carriage returns, anchors and merges, flow maps, a whole extra pipeline.
 */
const fragment = fc.oneof(
  fc.constantFrom(
    '\n',
    '\r',
    '\r\n',
    '---',
    '--- ',
    '---\n',
    '...',
    '...\n',
    '\n...\n',
    '# ',
    ' ',
    '\t',
    '- ',
    ': ',
    '{',
    '}',
    '&a ',
    '*a',
    '<<: *a\n',
    'kind: pipeline\n',
    'name: evil\n',
    'kind: signature\n',
    '\n---\nkind: pipeline\nname: appended\nsteps:\n- name: x\n  image: alpine\n  commands: [id]\n',
    '--- {kind: pipeline, name: inline, steps: [{name: x, image: alpine, commands: [id]}]}\n',
  ),
  fc.string({ maxLength: 6 }),
);

/** One change to the signed file's text. */
const edit = fc.oneof(
  fc.record({ at: fc.nat(), insert: fragment }),
  fc.record({ at: fc.nat(), remove: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ append: fragment }),
  fc.constant({ crlf: true as const }),
);
type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;

function apply(text: string, change: Edit): string {
  if ('crlf' in change) return text.replace(/\n/g, '\r\n');
  if ('append' in change) return text + change.append;
  const at = change.at % (text.length + 1);
  if ('insert' in change) return text.slice(0, at) + change.insert + text.slice(at);
  return text.slice(0, at) + text.slice(at + change.remove);
}

/** What svc would run: the pipeline parser's documents, without signatures and positions. */
function runs(text: string): unknown {
  const documents = parseManifest(text).manifest.documents.filter(
    (document) => document.kind !== 'signature',
  );
  return JSON.parse(
    JSON.stringify(documents, (key, value: unknown) =>
      key === 'position' || key === 'locations' ? undefined : value,
    ),
  ) as unknown;
}

export const signatureTarget: FuzzTarget = {
  name: 'pipeline-signature',
  promise:
    'a signed pipeline file changed in any way verifies only when svc would run exactly the signed documents, never with another key, and the verifier never throws',
  property: () =>
    fc.property(
      fc.array(pipeline, { minLength: 1, maxLength: 3 }),
      fc.array(edit, { minLength: 1, maxLength: 3 }),
      (documents, edits) => {
        let signed: string;
        try {
          signed = signFile(documents.map((document) => `---\n${document}`).join(''), KEY).file;
        } catch (error) {
          // A document Drone's split cannot read is not signed at all: nothing to verify.
          if (error instanceof SignatureFileError) return;
          throw error;
        }
        if (!hasValidSignature(signed, KEY)) throw new Error('the signed file does not verify');
        const changed = edits.reduce(apply, signed);
        const verified = hasValidSignature(changed, KEY);
        if (typeof verified !== 'boolean') throw new Error('no answer');
        if (hasValidSignature(changed, OTHER_KEY)) throw new Error('verified with another key');
        if (verified && !isDeepStrictEqual(runs(changed), runs(signed)))
          throw new Error('a changed file verifies, but svc would run other documents than the signed ones');
      },
    ),
};
