import { readFileSync } from 'node:fs';
import { LineCounter, parseAllDocuments } from 'yaml';
import { z } from 'zod';
import type { PodToleration } from '../../core/engine.js';
import { parseByteSize } from '../../pipeline/decode/units.js';
import { matchCondition, type MatchFacts } from '../../pipeline/match/conditions.js';
import type { Condition } from '../../pipeline/types.js';

/**
 * A policy of SVC_POLICY_FILE, Drone's Kubernetes runner policy format: which builds it applies to
 * (`match`, the conditions of a `when` section), and what it imposes on their pods.
 */
export interface Policy {
  name: string;
  /** Where the policy starts in its file, for messages. */
  line: number;
  match: Readonly<Record<keyof MatchFacts, Condition>>;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Millicpus and bytes; 0 leaves the pipeline's or runner's value. */
  request: { cpu: number; memory: number };
  limit: { cpu: number; memory: number };
  /** Replaces the pod's node selector when set. */
  nodeSelector: Record<string, string> | undefined;
  serviceAccount: string;
  /** Replace the pod's tolerations when not empty. */
  tolerations: PodToleration[];
}

/** The policy file cannot be used: the message names the file, the policy and the field. */
export class PolicyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyFileError';
  }
}

const MATCH_KEYS = ['repo', 'branch', 'event', 'ref', 'cron', 'action', 'instance', 'target'] as const;
const patterns = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (typeof v === 'string' ? [v] : v));
const condition = z
  .union([patterns, z.object({ include: patterns.optional(), exclude: patterns.optional() }).strict()])
  .transform((v): Condition =>
    Array.isArray(v) ? { include: v, exclude: [] } : { include: v.include ?? [], exclude: v.exclude ?? [] },
  );
const stringMap = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));
const memory = z.union([z.number().int().nonnegative(), z.string()]).transform((v, ctx) => {
  const bytes = typeof v === 'number' ? v : parseByteSize(v);
  if (bytes === undefined)
    ctx.addIssue({ code: 'custom', message: `"${String(v)}" is not a memory size, e.g. 512Mi or 1GiB` });
  return bytes ?? 0;
});
const amounts = z
  .object({ cpu: z.number().int().nonnegative().optional(), memory: memory.optional() })
  .strict();
const document = z
  .object({
    kind: z.string().optional(),
    name: z.string().min(1),
    match: z
      .object(Object.fromEntries(MATCH_KEYS.map((key) => [key, condition.optional()])))
      .strict()
      .optional(),
    metadata: z
      .object({
        namespace: z.string().optional(),
        labels: stringMap.optional(),
        annotations: stringMap.optional(),
      })
      .strict()
      .optional(),
    resources: z.object({ request: amounts.optional(), limit: amounts.optional() }).strict().optional(),
    node_selector: stringMap.optional(),
    service_account: z.string().optional(),
    tolerations: z
      .array(
        z
          .object({
            key: z.string().optional(),
            operator: z.enum(['Equal', 'Exists']).optional(),
            value: z.string().optional(),
            effect: z.enum(['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
            toleration_seconds: z.number().int().nonnegative().optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

/** Reads SVC_POLICY_FILE: a YAML stream of policies (`---` between them). */
export function readPolicyFile(path: string): Policy[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new PolicyFileError(`SVC_POLICY_FILE: cannot read ${path}: ${(error as Error).message}`);
  }
  return parsePolicies(text, path);
}

/** Parses the policies of a file's text; errors name `file`, the line and the field. */
export function parsePolicies(text: string, file: string): Policy[] {
  const lines = new LineCounter();
  const policies: Policy[] = [];
  for (const doc of parseAllDocuments(text, { lineCounter: lines })) {
    const line = lines.linePos(doc.contents?.range[0] ?? doc.range[0]).line;
    const [error] = doc.errors;
    if (error !== undefined)
      throw new PolicyFileError(
        `SVC_POLICY_FILE: ${file}, line ${error.linePos?.[0].line ?? line}: not valid YAML: ${error.message.split('\n')[0] ?? ''}`,
      );
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    const parsed = document.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'the policy';
      throw new PolicyFileError(
        `SVC_POLICY_FILE: ${file}, policy at line ${line}: ${field}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const p = parsed.data;
    if (policies.some((known) => known.name === p.name))
      throw new PolicyFileError(
        `SVC_POLICY_FILE: ${file}, policy at line ${line}: a policy named "${p.name}" comes earlier`,
      );
    policies.push({
      name: p.name,
      line,
      match: Object.fromEntries(
        MATCH_KEYS.map((key) => [key, p.match?.[key] ?? { include: [], exclude: [] }]),
      ) as Policy['match'],
      namespace: p.metadata?.namespace ?? '',
      labels: p.metadata?.labels ?? {},
      annotations: p.metadata?.annotations ?? {},
      request: { cpu: p.resources?.request?.cpu ?? 0, memory: p.resources?.request?.memory ?? 0 },
      limit: { cpu: p.resources?.limit?.cpu ?? 0, memory: p.resources?.limit?.memory ?? 0 },
      nodeSelector: p.node_selector,
      serviceAccount: p.service_account ?? '',
      tolerations: (p.tolerations ?? []).map((t) => ({
        key: t.key ?? '',
        operator: t.operator ?? '',
        value: t.value ?? '',
        effect: t.effect ?? '',
        tolerationSeconds: t.toleration_seconds ?? 0,
      })),
    });
  }
  return policies;
}

/**
 * The policy a build gets, as Drone picks it: the first whose `match` holds (a policy without
 * `match` holds for every build), else the one named `default`, else none.
 */
export function selectPolicy(policies: readonly Policy[], facts: MatchFacts): Policy | undefined {
  const matching = policies.find((policy) =>
    MATCH_KEYS.every((key) => matchCondition(policy.match[key], facts[key])),
  );
  return matching ?? policies.find((policy) => policy.name === 'default');
}
