// A doctor finding: one line, FAIL (a deployment that will not work, or a delivery that will
// be refused), WARN (worth knowing, refuses nothing today) or ok.

export type Level = 'FAIL' | 'WARN' | 'ok';

export interface Finding {
  readonly level: Level;
  /** What was looked at: settings, profiles, triggers, crd, valkey, rbac. */
  readonly area: string;
  readonly message: string;
}

export const fail = (area: string, message: string): Finding => ({ level: 'FAIL', area, message });
export const warn = (area: string, message: string): Finding => ({ level: 'WARN', area, message });
export const ok = (area: string, message: string): Finding => ({ level: 'ok', area, message });

/** `FAIL  triggers: ...`, with the levels padded to one width. */
export function findingLine(f: Finding): string {
  return `${f.level.padEnd(4)}  ${f.area}: ${f.message}`;
}

export function countLevels(findings: readonly Finding[]): { failures: number; warnings: number } {
  return {
    failures: findings.filter((f) => f.level === 'FAIL').length,
    warnings: findings.filter((f) => f.level === 'WARN').length,
  };
}
