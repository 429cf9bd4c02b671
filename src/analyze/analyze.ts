// `berth check` without the command line: runs every check on the loaded input
// and returns the findings in a stable order (severity, then rule, then object),
// so two runs on the same input print the same report. Pure, so the playground
// can call it in the browser.

import type { AnalysisContext, Check } from './check.js';
import { ALL_CHECKS } from './checks/index.js';
import type { Finding, Severity } from './finding.js';

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function compareFindings(a: Finding, b: Finding): number {
  return SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || byText(a.rule, b.rule) || byText(a.object, b.object) || byText(a.message, b.message);
}

export function analyze(ctx: AnalysisContext, checks: readonly Check[] = ALL_CHECKS): Finding[] {
  return checks.flatMap((c) => c.run(ctx)).sort(compareFindings);
}

/** Whether a finding of the CI-failing level is among them (`berth check` exits 1). */
export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === 'error');
}
