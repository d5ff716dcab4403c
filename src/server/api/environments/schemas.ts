import { z } from 'zod';

const int = z.number().int();

/** An environment as the API shows it. */
export const environmentSchema = z
  .object({
    id: int,
    name: z.string(),
    approvers: z
      .object({ users: z.array(z.string()), teams: z.array(z.string()) })
      .describe('logins and provider teams (org/slug); both empty: anyone with write access'),
    required_approvals: int.describe('approvals by different people a deployment needs; 0: none'),
    branches: z.array(z.string()).describe('globs of the branches that may deploy here; empty: any'),
    timeout: int.describe('minutes a deployment waits for approval before it is declined'),
    created: int,
    updated: int,
  })
  .strict()
  .describe('a deployment environment (svc’s addition)');

/** One decision on a stage waiting for approval. */
export const approvalSchema = z
  .object({
    id: int,
    stage: int.describe('the stage’s number'),
    login: z.string().describe('who decided; empty for a timeout'),
    decision: z.enum(['approve', 'decline', 'timeout']),
    comment: z.string(),
    created: int.describe('epoch seconds'),
  })
  .strict();

/** The body of approve and decline, which Drone's clients send empty. */
export const DecisionBody = z
  .object({ comment: z.string().max(1000, 'at most 1000 characters').default('') })
  .strict();
