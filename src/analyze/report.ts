// The three forms of a `berth check` report: a text listing for people, the JSON
// contract ({"findings":[...]}, remedies left out) for scripts, and SARIF 2.1.0
// so CI systems annotate the manifest line of each object at fault.

import type { ObjectLocations } from '../io/load.js';
import type { Check } from './check.js';
import type { ReportedFinding, ObjectPatch, Severity } from './finding.js';

export interface FindingJson {
  severity: Severity;
  rule: string;
  object: string;
  message: string;
  evidence: string[];
  fix: string[];
  /** Per fix (same index), the patches that apply it to the written objects; null for advice or a change that has none. Absent when no fix has patches. */
  patches?: (readonly ObjectPatch[] | null)[];
}

/** Each fix's patches, aligned with `fix` (re-simulated remedies come first, advice after). */
export function fixPatches(f: ReportedFinding): (readonly ObjectPatch[] | null)[] | undefined {
  const remedies = f.remedies ?? [];
  if (!remedies.some((r) => r.patches && r.patches.length > 0)) return undefined;
  return f.fix.map((_, i) => remedies[i]?.patches ?? null);
}

export function toJson(findings: readonly ReportedFinding[]): { verdicts: { object: string; severity: Severity }[]; findings: FindingJson[] } {
  return {
    verdicts: verdicts(findings).map((v) => ({ object: v.object, severity: v.severity })),
    findings: findings.map((f) => {
      const patches = fixPatches(f);
      return { severity: f.severity, rule: f.rule, object: f.object, message: f.message, evidence: [...f.evidence], fix: [...f.fix], ...(patches ? { patches } : {}) };
    }),
  };
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export interface Verdict {
  readonly object: string;
  /** The most severe of its findings: one severity per workload. */
  readonly severity: Severity;
  readonly findings: readonly ReportedFinding[];
}

/** Findings grouped by the object at fault, most severe verdict first, then by object. */
export function verdicts(findings: readonly ReportedFinding[]): Verdict[] {
  const by = new Map<string, ReportedFinding[]>();
  for (const f of findings) by.set(f.object, [...(by.get(f.object) ?? []), f]);
  return [...by]
    .map(([object, list]) => ({ object, severity: list.reduce<Severity>((s, f) => (SEVERITY_RANK[f.severity] < SEVERITY_RANK[s] ? f.severity : s), 'info'), findings: list }))
    .sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || (a.object < b.object ? -1 : a.object > b.object ? 1 : 0));
}

/**
 * One block per object with its verdict, one line per finding (rule and
 * message); with `verbose`, each finding's evidence and fixes under it.
 */
export function formatText(findings: readonly ReportedFinding[], opts: { verbose?: boolean } = {}): string {
  if (findings.length === 0) return 'no findings';
  const groups = verdicts(findings);
  const width = Math.max(...findings.map((f) => f.rule.length));
  const blocks = groups.map((v) => {
    const lines = [`${v.severity.toUpperCase().padEnd(7)} ${v.object}`];
    for (const f of v.findings) {
      const fixes = f.fix.length > 0 && !opts.verbose ? ` [${f.fix.length} fix${f.fix.length > 1 ? 'es' : ''}]` : '';
      lines.push(`  ${f.severity.padEnd(7)} ${f.rule.padEnd(width)}  ${f.message}${fixes}`);
      if (!opts.verbose) continue;
      if (f.evidence.length > 0) lines.push('    evidence:', ...f.evidence.map((e) => `      - ${e}`));
      if (f.fix.length > 0) lines.push('    fix:', ...f.fix.map((x, i) => `      ${i + 1}. ${x}`));
    }
    return lines.join('\n');
  });
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  const hint = opts.verbose ? '' : '; -v shows evidence and fixes';
  return `${blocks.join(opts.verbose ? '\n\n' : '\n')}\n\n${findings.length} finding(s) on ${groups.length} object(s): ${count('error')} error(s), ${count('warning')} warning(s), ${count('info')} info${hint}`;
}

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

/**
 * SARIF 2.1.0: one rule per check (all of them, so a clean run still lists what
 * was checked) and one result per finding, located at the object's
 * metadata.name in its manifest when the input says where that is.
 */
export function toSarif(findings: readonly ReportedFinding[], checks: readonly Check[], locations: ObjectLocations, version: string): unknown {
  const ruleIds = [...new Set([...checks.map((c) => c.rule), ...findings.map((f) => f.rule)])];
  const description = new Map(checks.map((c) => [c.rule, c.description]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'berth',
            version,
            rules: ruleIds.map((id) => ({ id, name: id, shortDescription: { text: description.get(id) ?? id }, help: { text: `docs/check.md#${id}` } })),
          },
        },
        results: findings.map((f) => {
          const at = locations.get(f.object);
          const text = [f.message, ...f.evidence.map((e) => `- ${e}`), ...f.fix.map((x, i) => `fix ${i + 1}: ${x}`)].join('\n');
          return {
            ruleId: f.rule,
            ruleIndex: ruleIds.indexOf(f.rule),
            level: SARIF_LEVEL[f.severity],
            message: { text },
            locations: [
              {
                ...(at ? { physicalLocation: { artifactLocation: { uri: at.file }, region: { startLine: at.line, startColumn: at.column } } } : {}),
                logicalLocations: [{ fullyQualifiedName: f.object, kind: 'resource' }],
              },
            ],
          };
        }),
      },
    ],
  };
}
