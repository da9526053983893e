// The held work of a chaos run, planned up front from a seed: which holds wait on what, when
// each of their conditions clears, how long each Job runs. Pure: the run creates what this
// plans, and the audit holds the world against it.

import { seededRandom } from '../common.js';

/** How a hold waits. Profile holds clear when the harness says so, at a whole second. */
export const HoldKind = {
  After: 'after',
  Exec: 'exec',
  Pod: 'pod',
  AfterExec: 'after+exec',
} as const;
export type HoldKind = (typeof HoldKind)[keyof typeof HoldKind];

/** How a hold comes to be: created directly, or by a forge delivery through the receiver. */
export const HoldSource = { Direct: 'direct', Delivery: 'delivery' } as const;
export type HoldSource = (typeof HoldSource)[keyof typeof HoldSource];

export const EXEC_PROFILE = 'chaos-exec';
export const POD_PROFILE = 'chaos-pod';

/** Triggers of the receiver's holds: a label each, the same conditions for every target. */
export const DeliveryTrigger = {
  [HoldKind.After]: { name: 'chaos-after', label: 'chaos:after' },
  [HoldKind.Exec]: { name: 'chaos-exec', label: 'chaos:exec' },
  [HoldKind.Pod]: { name: 'chaos-pod', label: 'chaos:pod' },
} as const;

export interface PlannedHold {
  /** The HeldJob's name for a direct hold; the receiver names the others. */
  readonly name: string | undefined;
  readonly source: HoldSource;
  readonly kind: HoldKind;
  /** `acme/r<repo>#<n>`: unique per hold; the repository is its scope. */
  readonly target: string;
  readonly repo: string;
  /** The `after` instant (epoch ms, whole second), for kinds with one. */
  readonly afterAt: number | undefined;
  /** When the profile starts answering go (epoch ms, whole second), for kinds with one. */
  readonly clearAt: number | undefined;
  /** How long its Job's Pod runs (kwok's run-for), seconds. */
  readonly runForS: number;
}

export interface PopulationOptions {
  readonly holds: number;
  readonly seed: number;
  /** Epoch ms: conditions clear from here on. */
  readonly t0: number;
  /** Conditions clear over this span after t0. */
  readonly spreadMs: number;
  /** Holds per repository (scope). */
  readonly perRepo: number;
  /** The one `after` instant of the receiver's chaos-after trigger. */
  readonly deliveryAfterAt: number;
}

/** Of every 100 holds: the mix of sources and kinds. */
const MIX: readonly { source: HoldSource; kind: HoldKind; per100: number }[] = [
  { source: HoldSource.Direct, kind: HoldKind.After, per100: 25 },
  { source: HoldSource.Direct, kind: HoldKind.Exec, per100: 25 },
  { source: HoldSource.Direct, kind: HoldKind.Pod, per100: 12 },
  { source: HoldSource.Direct, kind: HoldKind.AfterExec, per100: 18 },
  { source: HoldSource.Delivery, kind: HoldKind.After, per100: 6 },
  { source: HoldSource.Delivery, kind: HoldKind.Exec, per100: 8 },
  { source: HoldSource.Delivery, kind: HoldKind.Pod, per100: 6 },
];

const wholeSecond = (ms: number) => Math.ceil(ms / 1000) * 1000;

export function planPopulation(o: PopulationOptions): PlannedHold[] {
  const random = seededRandom(o.seed);
  const at = () => wholeSecond(o.t0 + random() * o.spreadMs);
  const repos = Math.max(1, Math.ceil(o.holds / o.perRepo));
  const holds: PlannedHold[] = [];
  for (let i = 0; i < o.holds; i++) {
    const mix = MIX[pick(i, o.holds)] ?? MIX[0];
    const { source, kind } = mix as (typeof MIX)[number];
    const repo = `acme/r${i % repos}`;
    const afterAt =
      kind === HoldKind.After || kind === HoldKind.AfterExec ? (source === HoldSource.Delivery ? o.deliveryAfterAt : at()) : undefined;
    // An after+exec hold's profile clears at a random time, before or after its after.
    const clearAt = kind === HoldKind.Exec || kind === HoldKind.Pod || kind === HoldKind.AfterExec ? at() : undefined;
    holds.push({
      name: source === HoldSource.Direct ? `c-${i}` : undefined,
      source,
      kind,
      target: `${repo}#${i + 1}`,
      repo,
      afterAt,
      clearAt,
      runForS: 3 + Math.floor(random() * 13),
    });
  }
  return holds;
}

/** Which entry of MIX hold i belongs to: the mix's shares, spread evenly over the population. */
function pick(i: number, total: number): number {
  const slot = Math.floor(((i * 100) / total) % 100);
  let acc = 0;
  for (let m = 0; m < MIX.length; m++) {
    acc += (MIX[m] as (typeof MIX)[number]).per100;
    if (slot < acc) return m;
  }
  return 0;
}

/** The instant before which the hold's Job must not exist: every condition cleared. */
export function clearedAt(h: PlannedHold): number {
  return Math.max(h.afterAt ?? 0, h.clearAt ?? 0);
}

/** A file-system-safe form of a target, as the exec check script computes it. */
export function targetKey(target: string): string {
  return target.replace(/[/#!]/g, '_');
}
