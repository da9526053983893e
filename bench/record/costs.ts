// What a section's work cost, beside its row: the apiserver's requests per unit of work (per
// hold, launch, check, delivery) by verb and resource, and the CPU seconds each process spent
// over the section's window. For a row that misses its target, the bound is named from these
// same counts (and the peer's), never from an estimate. Pure: the meter (cost-meter.ts) reads.
import { isWrite, type RequestRate } from './apiserver-requests.js';

export interface Costs {
  /** What one unit of work is: "hold", "launch", "check", "delivery", "pair", "create". */
  readonly per: string;
  readonly units: number;
  /** The window the counts were taken over, s. */
  readonly windowS: number;
  /** apiserver requests per unit, most first (every verb but WATCH); absent when not read (no apiserver in it). */
  readonly requests?: readonly RequestRate[];
  /** Each counted process's own CPU seconds over the window. */
  readonly cpuS: Readonly<Record<string, number>>;
  /** CPU seconds of the children a process waited for over the window (the check scripts), where any. */
  readonly childrenCpuS?: Readonly<Record<string, number>>;
  /** The machine's CPUs and their busy seconds over the window, whoever used them. */
  readonly machine: { readonly cores: number; readonly busyS: number };
}

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '?');
/** Requests per unit: two decimals, or two significant digits when fewer than a tenth (0.0042). */
const perUnitText = (n: number) => (!Number.isFinite(n) ? '?' : n >= 0.1 || n === 0 ? n.toFixed(2) : String(Number(n.toPrecision(2))));
/** Milliseconds with the digits that matter: 0.042, 3.17, 39.9. */
const ms = (n: number) => fixed(n, Math.abs(n) < 1 ? 3 : Math.abs(n) < 10 ? 2 : Math.abs(n) < 100 ? 1 : 0);

/** Below this many per unit a kind of request is summed with the others, not named (but the first few always are). */
const NAMED_AT_LEAST = 0.01;
const NAMED_ALWAYS = 3;

function renderRequests(c: Costs): string | undefined {
  if (!c.requests) return undefined;
  if (c.requests.length === 0) return `no apiserver requests in the window`;
  const isNamed = (r: RequestRate, i: number) => r.perUnit >= NAMED_AT_LEAST || i < NAMED_ALWAYS;
  const named = c.requests.filter(isNamed);
  const rest = c.requests.filter((r, i) => !isNamed(r, i)).reduce((a, r) => a + r.perUnit, 0);
  const each = named.map((r) => {
    const extra = [
      ...(r.meanMs !== undefined ? [`${fixed(r.meanMs, r.meanMs < 10 ? 1 : 0)} ms`] : []),
      ...Object.entries(r.failedPerUnit ?? {}).map(([code, n]) => `${code}: ${perUnitText(n)}`),
    ];
    return `${r.what} ${perUnitText(r.perUnit)}${extra.length > 0 ? ` (${extra.join('; ')})` : ''}`;
  });
  if (rest > 0) each.push(`others ${perUnitText(rest)}`);
  return `requests per ${c.per} (mean apiserver time each): ${each.join(', ')}`;
}

function renderCpu(c: Costs): string {
  const each = Object.entries(c.cpuS).map(([name, s]) => {
    const children = c.childrenCpuS?.[name];
    return `${name} ${fixed(s, 1)}${children ? ` (+ ${fixed(children, 1)} in its children)` : ''}`;
  });
  return `CPU s over ${fixed(c.windowS, 1)} s: ${each.join(', ')}; the machine was busy ${fixed(c.machine.busyS / c.windowS, 2)} of its ${c.machine.cores} cores`;
}

/** ["requests per hold (...): create heldjobs 1.00 (4.1 ms), ...", "CPU s over 12.0 s: operator 1.2, apiserver 3.4, ..."] */
export function costLines(c: Costs): string[] {
  return [renderRequests(c), renderCpu(c)].filter((l): l is string => l !== undefined);
}

/** Writes (create, update, patch, delete; dry runs apart) per unit. */
export function writesPerUnit(c: Costs): number {
  return (c.requests ?? []).filter((r) => isWrite(r.what)).reduce((a, r) => a + r.perUnit, 0);
}

/** CPU ms per unit across every counted process (children included). */
export function cpuMsPerUnit(c: Costs): number {
  const all = [...Object.values(c.cpuS), ...Object.values(c.childrenCpuS ?? {})].reduce((a, s) => a + s, 0);
  return c.units > 0 ? (all * 1000) / c.units : NaN;
}

/** The apiserver's time answering one unit's requests, ms: each kind's mean time (queueing included) times how many. */
export function apiserverMsPerUnit(c: Costs): number {
  return (c.requests ?? []).reduce((a, r) => a + r.perUnit * (r.meanMs ?? 0), 0);
}

function busiest(c: Costs): [string, number] | undefined {
  return Object.entries(c.cpuS)
    .filter(([, s]) => Number.isFinite(s))
    .sort((a, b) => b[1] - a[1])[0];
}

/**
 * What bounds a row, from its own counts and its peer's: the writes and the CPU one unit costs
 * beside the peer's (the ratio the row would have were the writes, or the CPU, all that
 * limits both), the apiserver's time per unit, and how loaded the machine was.
 * `higherIsBetter`: the row's figure is a rate (that ratio is the peer's cost ÷ ours), else a
 * time (ours ÷ the peer's).
 */
export function boundOf(ours: Costs, peer: Costs | undefined, higherIsBetter: boolean): string {
  const parts: string[] = [];
  const u = ours.per;
  const ratio = (o: number, p: number) => fixed(higherIsBetter ? p / o : o / p, 2);
  const writes = writesPerUnit(ours);
  const cpu = cpuMsPerUnit(ours);
  if (ours.requests) {
    const peerWrites = peer?.requests ? writesPerUnit(peer) : undefined;
    parts.push(
      peerWrites
        ? `${fixed(writes, 2)} writes a ${u} against the peer's ${fixed(peerWrites, 2)}: were the writes the bound, the ratio would be ${ratio(writes, peerWrites)}`
        : `${fixed(writes, 2)} writes a ${u}`,
    );
  }
  const peerCpu = peer ? cpuMsPerUnit(peer) : undefined;
  const procs = Object.entries(ours.cpuS)
    .filter(([, s]) => Number.isFinite(s) && s > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name, s]) => `${name} ${ms((s * 1000) / ours.units)}`)
    .join(', ');
  const against = peerCpu ? ` against the peer's ${ms(peerCpu)} ms: were the CPU the bound, the ratio would be ${ratio(cpu, peerCpu)}` : '';
  parts.push(`${ms(cpu)} ms of CPU a ${u} (${procs})${against}`);
  parts.push(
    `at that CPU the machine's ${ours.machine.cores} cores could do at most ${fixed((ours.machine.cores * 1000) / cpu, 0)} a second`,
  );
  if (ours.requests && ours.requests.length > 0) {
    parts.push(`the apiserver's answers to one ${u}'s requests took ${ms(apiserverMsPerUnit(ours))} ms together (their mean times summed)`);
  }
  const top = busiest(ours);
  if (top && ours.windowS > 0) {
    parts.push(
      `over the ${fixed(ours.windowS, 1)} s window the busiest process was ${top[0]} at ${fixed(top[1] / ours.windowS, 2)} of a core, and the machine was busy ${fixed(ours.machine.busyS / ours.windowS, 2)} of its ${ours.machine.cores} cores`,
    );
  }
  return `from this run's counts: ${parts.join('; ')}`;
}
