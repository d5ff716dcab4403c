import fc from 'fast-check';
import { stringify } from 'yaml';
import { diagnosticText, lintText } from '../../../src/pipeline/index.js';
import type { FuzzTarget } from '../target.js';

/** Text that looks like a pipeline file often enough to get past the YAML parser into the linter. */
const pipelineLike = fc
  .record(
    {
      kind: fc.constantFrom('pipeline', 'secret', 'signature', 'template', 'x'),
      type: fc.constantFrom('docker', 'kubernetes', 'ssh', 'exec', 'vm', 'nomad', ''),
      name: fc.string(),
      steps: fc.array(
        fc.record(
          {
            name: fc.string(),
            image: fc.string(),
            commands: fc.array(fc.string()),
            depends_on: fc.array(fc.string()),
            when: fc.dictionary(fc.string(), fc.jsonValue()),
            settings: fc.dictionary(fc.string(), fc.jsonValue()),
            environment: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.jsonValue())),
            volumes: fc.array(fc.jsonValue()),
            privileged: fc.jsonValue(),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 4 },
      ),
      trigger: fc.dictionary(fc.string(), fc.jsonValue()),
      services: fc.array(fc.jsonValue(), { maxLength: 2 }),
      volumes: fc.array(fc.jsonValue(), { maxLength: 2 }),
      depends_on: fc.array(fc.string()),
      extra: fc.jsonValue(),
    },
    { requiredKeys: [] },
  )
  .map((document) => stringify(document));

/** Fragments YAML is sensitive to, so that random text reaches anchors, tags, flows and blocks. */
const yamlish = fc
  .array(
    fc.oneof(
      fc.string(),
      fc.constantFrom(
        '\n',
        ': ',
        '- ',
        '---\n',
        '&a ',
        '*a',
        '!!str ',
        '{',
        '}',
        '[',
        ']',
        '|\n  ',
        '>-\n  ',
        '"',
        "'",
        '#',
        '${',
        '}',
        '<<: *a\n',
        '  ',
      ),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

export const pipelineTarget: FuzzTarget = {
  name: 'pipeline-lint',
  promise: 'parsing and linting any text ends in a result whose every problem has a position and a message',
  property: () =>
    fc.property(fc.oneof(pipelineLike, yamlish, fc.string()), fc.boolean(), (text, trusted) => {
      const result = lintText(text, { trusted });
      for (const diagnostic of result.diagnostics) {
        if (!Number.isInteger(diagnostic.line) || diagnostic.line < 0)
          throw new Error(`bad line ${diagnostic.line}`);
        if (diagnosticText(diagnostic).trim() === '') throw new Error('a problem without a message');
      }
    }),
};
