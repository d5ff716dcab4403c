/*
 * axe-core (the npm package) run in the page, as issue 37 asks of every page in both themes. Its
 * source is evaluated through the DevTools protocol, which the page's Content-Security-Policy does
 * not govern, so the page is checked as users get it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * The page's accessibility violations as axe reports them with its default rules (WCAG 2.x A and AA
 * and best practices), one line each: rule, impact, what it asks, the first elements that break it.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<Violation[]>(`axe
    .run(document, { resultTypes: ['violations'] })
    .then((result) => result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 4).map((node) => node.target.join(' ') + ' ' + node.html.slice(0, 160)),
    })))`);
  return violations.map((v) => `${v.id} (${v.impact ?? 'n/a'}): ${v.help} — ${v.nodes.join(', ')}`);
}
