// Slot leases against the server itself: waitgate's acquire + release round trips (two Lua
// scripts, server time, a token compared first) beside redis-benchmark running a trivial
// EVALSHA on the same server at the same number of connections, in the same run.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { connectValkey } from '../../lib/valkey/connection.js';
import { Slots } from '../../lib/valkey/slots.js';
import { inParallel } from '../common.js';
import { Better, type Row } from './report.js';

const run = promisify(execFile);

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
    const t0 = process.hrtime.bigint();
    await inParallel(
      Array.from({ length: clients }, (_, c) => c),
      clients,
      async (c) => {
        const s = slots[c] as Slots;
        for (let i = 0; i < rounds / clients; i++) {
          const token = `t-${c}-${i}`;
          const keys = [`${prefix}:all`, `${prefix}:scope-${i % 50}`];
          await s.acquire(keys, [1_000_000, 1_000_000], token, 60_000);
          await s.release(keys, token);
        }
      },
    );
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const rate = rounds / seconds;
    // The same client and connections calling a trivial script twice a round: what the client
    // costs, apart from what the slot scripts cost.
    const trivial = "return redis.call('TIME')";
    const t1 = process.hrtime.bigint();
    await inParallel(
      Array.from({ length: clients }, (_, c) => c),
      clients,
      async (c) => {
        const conn = connections[c] as (typeof connections)[number];
        for (let i = 0; i < rounds / clients; i++) {
          await conn.eval(trivial, 0);
          await conn.eval(trivial, 0);
        }
      },
    );
    const clientRate = rounds / (Number(process.hrtime.bigint() - t1) / 1e9);
    // The peer: the same number of connections, one trivial script call each round trip, so
    // it is compared per round trip (an acquire + release is two).
    const sha = (await run('redis-cli', ['-h', url.hostname, '-p', url.port, 'SCRIPT', 'LOAD', "return redis.call('TIME')"])).stdout.trim();
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
    const peerCalls = Number(/([\d.]+) requests per second/.exec(stdout)?.[1] ?? NaN);
    const peerRounds = peerCalls / 2;
    log(
      `slots: ${rounds} acquire+release round trips in ${seconds.toFixed(1)} s (${rate.toFixed(0)}/s); the same client, a trivial script twice: ${clientRate.toFixed(0)} pairs/s; redis-benchmark EVALSHA ${peerCalls.toFixed(0)} calls/s`,
    );
    return [
      {
        what: 'slot leases: acquire + release',
        how: `${rounds.toLocaleString('en-US')} pairs over ${clients} connections; peer: redis-benchmark, trivial EVALSHA, ${clients} connections, two calls per pair`,
        figure: rate,
        unit: 'pairs/s',
        against: { label: 'redis-benchmark', value: peerRounds },
        better: Better.Higher,
        target: 0.8,
        note: `the same Node client over the same ${clients} connections calling a trivial script twice a pair: ${clientRate.toFixed(0)} pairs/s (${((rate / clientRate) * 100).toFixed(0)} % of which the slot scripts keep; the rest of the gap to redis-benchmark is the client)`,
      },
    ];
  } finally {
    await Promise.all(connections.map((c) => c.quit().catch(() => undefined)));
  }
}
