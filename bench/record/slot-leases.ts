// Slot leases against the server itself: waitgate's acquire + release round trips (two Lua
// scripts, server time, a token compared first, two limits at once) beside the Redis semaphore
// a Node user would pick, redis-semaphore's Semaphore, acquiring and releasing over the same
// connections the same number of times, in the same run. Noted beside: the same client calling
// a trivial script twice a pair, and redis-benchmark (a C client) calling one.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { Semaphore } from 'redis-semaphore';
import { connectValkey } from '../../lib/valkey/connection.js';
import { Slots } from '../../lib/valkey/slots.js';
import { inParallel } from '../common.js';
import { startCostMeter } from './cost-meter.js';
import { costLines, type Costs } from './costs.js';
import { Better, Target, type Row } from './report.js';

const run = promisify(execFile);

/** Runs `round(connection, client, i)` rounds/clients times on each connection, all connections at once; pairs a second and the costs. */
async function timed(
  connections: readonly Redis[],
  rounds: number,
  round: (conn: Redis, c: number, i: number) => Promise<void>,
): Promise<{ rate: number; costs: Costs }> {
  const meter = await startCostMeter({ apiserver: false, cluster: ['redis'] });
  const t0 = process.hrtime.bigint();
  await inParallel(
    connections.map((_, c) => c),
    connections.length,
    async (c) => {
      const conn = connections[c] as Redis;
      for (let i = 0; i < rounds / connections.length; i++) await round(conn, c, i);
    },
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { rate: rounds / seconds, costs: await meter.stop(rounds, 'pair') };
}

/** The run of median rate among an odd number of runs. */
function median<T extends { rate: number }>(runs: readonly T[]): T {
  return [...runs].sort((a, b) => a.rate - b.rate)[Math.floor(runs.length / 2)] as T;
}

export async function slotLeaseRows(valkeyUrl: string, rounds: number, clients: number, log: (l: string) => void): Promise<Row[]> {
  const url = new URL(valkeyUrl);
  const prefix = `bench-slots-${Date.now().toString(36)}`;
  const connections = Array.from({ length: clients }, () => connectValkey(valkeyUrl));
  try {
    // The client sends nothing before it is connected (no offline queue).
    await Promise.all(
      connections.map((c) => (c.status === 'ready' ? Promise.resolve() : new Promise((resolve) => c.once('ready', resolve)))),
    );
    const slots = connections.map((c) => new Slots(c));
    // Warm the script cache on every connection.
    await Promise.all(slots.map((s, i) => s.acquire([`${prefix}:all`], [1_000_000], `warm-${i}`, 60_000)));
    await Promise.all(slots.map((s, i) => s.release([`${prefix}:all`], `warm-${i}`)));
    const oursRound = async (_conn: Redis, c: number, i: number) => {
      const s = slots[c] as Slots;
      const token = `t-${c}-${i}`;
      const keys = [`${prefix}:all`, `${prefix}:scope-${i % 50}`];
      await s.acquire(keys, [1_000_000, 1_000_000], token, 60_000);
      await s.release(keys, token);
    };
    // The peer: a Semaphore as its README has it, one per lease, with the same limit and lease
    // time; the first acquire on each connection loads its script.
    const semaphore = (conn: Redis) => new Semaphore(conn, `${prefix}:semaphore`, 1_000_000, { lockTimeout: 60_000 });
    const peerRound = async (conn: Redis) => {
      const lease = semaphore(conn);
      await lease.acquire();
      await lease.release();
    };
    // Each is warmed (its code compiled by the JIT, its scripts loaded) with a quarter of the
    // rounds untimed, then timed three times, the two taking turns, and the median run kept:
    // a run of a second or so is at the mercy of whichever went first and a stray pause.
    await timed(connections, rounds / 4, oursRound);
    await timed(connections, rounds / 4, peerRound);
    const oursRuns: { rate: number; costs: Costs }[] = [];
    const peerRuns: { rate: number; costs: Costs }[] = [];
    for (let r = 0; r < 3; r++) {
      oursRuns.push(await timed(connections, rounds, oursRound));
      peerRuns.push(await timed(connections, rounds, peerRound));
    }
    const ours = median(oursRuns);
    const peer = median(peerRuns);
    // The same client and connections calling a trivial script twice a round: what the client
    // costs, apart from what the slot scripts cost.
    const trivial = "return redis.call('TIME')";
    const client = await timed(connections, rounds, async (conn) => {
      await conn.eval(trivial, 0);
      await conn.eval(trivial, 0);
    });
    // redis-benchmark: the same number of connections, one trivial script call each round
    // trip, so it is compared per round trip (an acquire + release is two).
    const sha = (await run('redis-cli', ['-h', url.hostname, '-p', url.port, 'SCRIPT', 'LOAD', trivial])).stdout.trim();
    const { stdout } = await run('redis-benchmark', [
      '-h',
      url.hostname,
      '-p',
      url.port,
      '-c',
      String(clients),
      '-n',
      String(rounds * 2),
      '-q',
      'EVALSHA',
      sha,
      '0',
    ]);
    const benchCalls = Number(/([\d.]+) requests per second/.exec(stdout)?.[1] ?? NaN);
    const benchPairs = benchCalls / 2;
    log(
      `slots: ${rounds} acquire+release pairs: waitgate ${ours.rate.toFixed(0)}/s (runs ${oursRuns.map((r) => r.rate.toFixed(0)).join(', ')}), redis-semaphore ${peer.rate.toFixed(0)}/s (runs ${peerRuns.map((r) => r.rate.toFixed(0)).join(', ')}); the same client, a trivial script twice: ${client.rate.toFixed(0)} pairs/s; redis-benchmark EVALSHA ${benchCalls.toFixed(0)} calls/s; ${costLines(ours.costs).join('; ')}`,
    );
    return [
      {
        what: 'slot leases: acquire + release',
        how: `${rounds.toLocaleString('en-US')} pairs over ${clients} connections, each lease on two limits (all and its scope); peer: redis-semaphore's Semaphore (one limit), acquire + release over the same connections, as many; each warmed, then the median of three runs taking turns`,
        figure: ours.rate,
        unit: 'pairs/s',
        against: { label: 'redis-semaphore', value: peer.rate },
        better: Better.Higher,
        target: Target.slots,
        note: `beside: the same Node client over the same ${clients} connections calling a trivial script twice a pair made ${client.rate.toFixed(0)} pairs/s (the slot scripts keep ${((ours.rate / client.rate) * 100).toFixed(0)} % of it); redis-benchmark (a C client, a trivial EVALSHA, two calls a pair) ${benchPairs.toFixed(0)} pairs/s (waitgate ${(ours.rate / benchPairs).toFixed(2)} of it)`,
        costs: ours.costs,
        peerCosts: peer.costs,
      },
    ];
  } finally {
    await Promise.all(connections.map((c) => c.quit().catch(() => undefined)));
  }
}
