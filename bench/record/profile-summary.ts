// Sums up a V8 CPU profile (`node --cpu-prof`): where the process spent its samples, by
// function and by where the code lives (a package, the project, Node itself, the collector).
// Usage: node dist/bench/record/profile-summary.js <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
}

/** Where a frame's code lives: `npm:<package>`, `waitgate:<folder>`, `node:<module>`, or a V8 bucket. */
export function placeOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm:${pkg[1] as string}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] as string}`;
  const own = /\/dist\/([^/]+)\//.exec(url);
  if (own) return `waitgate:${own[1] as string}`;
  return url;
}

export interface Summary {
  readonly totalMs: number;
  readonly byPlace: readonly { readonly place: string; readonly share: number }[];
  readonly byFunction: readonly { readonly fn: string; readonly share: number }[];
}

export function summarize(p: CpuProfile, top = 15): Summary {
  const hits = new Map<number, number>();
  if (p.samples) for (const id of p.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  else for (const n of p.nodes) hits.set(n.id, n.hitCount ?? 0);
  const total = [...hits.values()].reduce((a, b) => a + b, 0) || 1;
  const place = new Map<string, number>();
  const fn = new Map<string, number>();
  for (const n of p.nodes) {
    const h = hits.get(n.id) ?? 0;
    if (h === 0) continue;
    const where = placeOf(n.callFrame.url, n.callFrame.functionName);
    place.set(where, (place.get(where) ?? 0) + h);
    const name = `${n.callFrame.functionName || '(anonymous)'} ${where}${n.callFrame.url ? `:${String(n.callFrame.lineNumber + 1)}` : ''}`;
    fn.set(name, (fn.get(name) ?? 0) + h);
  }
  const ranked = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => [k, v / total] as const);
  return {
    totalMs: (p.endTime - p.startTime) / 1000,
    byPlace: ranked(place).map(([place, share]) => ({ place, share })),
    byFunction: ranked(fn).map(([fn, share]) => ({ fn, share })),
  };
}

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error('usage: profile-summary <file.cpuprofile> [top]');
  const s = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, Number(process.argv[3] ?? 15));
  const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)} %`;
  console.log(`${file}: ${(s.totalMs / 1000).toFixed(1)} s profiled`);
  console.log('by where the code lives:');
  for (const r of s.byPlace) console.log(`  ${pct(r.share)}  ${r.place}`);
  console.log('by function (self time):');
  for (const r of s.byFunction) console.log(`  ${pct(r.share)}  ${r.fn}`);
}

if (process.argv[1]?.endsWith('profile-summary.js')) main();
