// `berth check` without the command line: runs every check on the loaded input
// and returns the findings in a stable order (severity, then rule, then object),
// so two runs on the same input print the same report. Pure, so the playground
// can call it in the browser.

import type { AnalysisContext, Check } from './check.js';
import { ALL_CHECKS } from './checks/index.js';
import type { Finding, ReportedFinding, Severity } from './finding.js';

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function compareFindings(a: ReportedFinding, b: ReportedFinding): number {
  return SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || byText(a.rule, b.rule) || byText(a.object, b.object) || byText(a.message, b.message);
}

/** `onCheck` hears each check's own findings as soon as it has run (the playground streams them). */
export function analyze(ctx: AnalysisContext, checks: readonly Check[] = ALL_CHECKS, onCheck?: (rule: string, findings: readonly Finding[]) => void): Finding[] {
  return finishFindings(
    checks.flatMap((c) => {
      const found = c.run(ctx);
      onCheck?.(c.rule, found);
      return found;
    }),
  );
}

/** Every check's findings, in check order, as analyze returns them: stackings merged, then sorted. */
export function finishFindings<F extends ReportedFinding>(findings: readonly F[]): F[] {
  return mergeStacking(findings).sort(compareFindings);
}

/**
 * Findings of one workload that report the same stacking ("every replica on node
 * n1": co-location today, node-loss) are one problem: the most severe is kept (the
 * one with re-simulated fixes first) and the others' messages join its evidence.
 */
export function mergeStacking<F extends ReportedFinding>(findings: readonly F[]): F[] {
  const kept = new Map<string, F>();
  const absorbed = new Map<string, string[]>();
  for (const f of findings) {
    if (f.stacking === undefined) continue;
    const key = `${f.object}\u0000${f.stacking}`;
    const k = kept.get(key);
    const better = !k || SEVERITY_ORDER[f.severity] < SEVERITY_ORDER[k.severity] || (f.severity === k.severity && (f.remedies?.length ?? 0) > (k.remedies?.length ?? 0));
    const loser = better ? k : f;
    if (better) kept.set(key, f);
    if (loser) absorbed.set(key, [...(absorbed.get(key) ?? []), `also ${loser.rule}: ${loser.message}`]);
  }
  return findings.flatMap((f) => {
    if (f.stacking === undefined) return [f];
    const key = `${f.object}\u0000${f.stacking}`;
    if (kept.get(key) !== f) return [];
    const also = absorbed.get(key) ?? [];
    return [also.length > 0 ? { ...f, evidence: [...also, ...f.evidence] } : f];
  });
}

/** Whether a finding of the CI-failing level is among them (`berth check` exits 1). */
export function hasErrors(findings: readonly ReportedFinding[]): boolean {
  return findings.some((f) => f.severity === 'error');
}
