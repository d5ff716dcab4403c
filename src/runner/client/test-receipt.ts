import { z } from 'zod';
import type { TestReceipt } from '../artifacts/transport.js';

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const receipt = z.object({
  reports: count,
  passed: count,
  failed: count,
  skipped: count,
  quarantined: count,
  new: count,
  flaky: count,
  problems: z.array(z.string().max(10_000)).max(200),
});

/**
 * The `tests` of an upload's answer, when the server sent a well-formed one. Anything else (an older
 * server, a broken answer) is no receipt: the step's log then says nothing of tests, and a failed
 * step stays failed, since only a receipt can say all its failures were quarantined.
 */
export function testReceiptOf(value: unknown): TestReceipt | undefined {
  const parsed = receipt.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
