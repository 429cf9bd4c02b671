// The three forms of a `berth check` report: a text listing for people, the JSON
// contract ({"findings":[...]}, remedies left out) for scripts, and SARIF 2.1.0
// so CI systems annotate the manifest line of each object at fault.

import type { SourceLocation } from '../io/load.js';
import type { Check } from './check.js';
import type { Finding, Severity } from './finding.js';

export interface FindingJson {
  severity: Severity;
  rule: string;
  object: string;
  message: string;
  evidence: string[];
  fix: string[];
}

export function toJson(findings: readonly Finding[]): { findings: FindingJson[] } {
  return {
    findings: findings.map((f) => ({ severity: f.severity, rule: f.rule, object: f.object, message: f.message, evidence: [...f.evidence], fix: [...f.fix] })),
  };
}

export function formatText(findings: readonly Finding[]): string {
  if (findings.length === 0) return 'no findings';
  const blocks = findings.map((f) => {
    const lines = [`${f.severity.toUpperCase().padEnd(7)} ${f.rule}  ${f.object}`, `  ${f.message}`];
    if (f.evidence.length > 0) lines.push('  evidence:', ...f.evidence.map((e) => `    - ${e}`));
    if (f.fix.length > 0) lines.push('  fix:', ...f.fix.map((x, i) => `    ${i + 1}. ${x}`));
    return lines.join('\n');
  });
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  return `${blocks.join('\n\n')}\n\n${findings.length} finding(s): ${count('error')} error(s), ${count('warning')} warning(s), ${count('info')} info`;
}

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', info: 'note' };

/**
 * SARIF 2.1.0: one rule per check (all of them, so a clean run still lists what
 * was checked) and one result per finding, located at the object's
 * metadata.name in its manifest when the input says where that is.
 */
export function toSarif(findings: readonly Finding[], checks: readonly Check[], locations: ReadonlyMap<string, SourceLocation>, version: string): unknown {
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
