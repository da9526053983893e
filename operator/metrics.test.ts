import { describe, expect, test } from '@jest/globals';
import { Phase } from '../api/vocabulary.js';
import { VERSION } from '../lib/version.js';
import { OperatorMetrics } from './metrics.js';

const counts = {
  byPhase: new Map([
    [Phase.Held, 3],
    [Phase.Running, 1],
  ]),
  heldByProfile: new Map([['jira', 2]]),
};

describe('OperatorMetrics', () => {
  test.each([
    ['a reconcile that returns', async () => {}, 'success'],
    [
      'a reconcile that throws',
      async () => {
        throw new Error('apiserver away');
      },
      'error',
    ],
  ])('%s is counted and timed as %s, and its error passed on', async (_what, reconcile, result) => {
    const m = new OperatorMetrics();
    const run = m.timeReconcile(reconcile);
    if (result === 'error') await expect(run).rejects.toThrow('apiserver away');
    else await run;
    const text = await m.registry.metrics();
    expect(text).toContain(`waitgate_reconcile_total{result="${result}"} 1`);
    expect(text).toContain(`waitgate_reconcile_duration_seconds_count{result="${result}"} 1`);
    const other = result === 'success' ? 'error' : 'success';
    expect(text).toContain(`waitgate_reconcile_total{result="${other}"} 0`);
  });

  test.each([
    [
      'the leader exports the per-phase and per-profile gauges',
      true,
      ['waitgate_heldjobs{phase="Held"} 3', 'waitgate_held_by_profile{profile="jira"} 2', 'waitgate_leader 1'],
    ],
    ['a follower exports none of them, so a sum over replicas counts each HeldJob once', false, ['waitgate_leader 0']],
  ])('%s', async (_what, leading, present) => {
    const m = new OperatorMetrics();
    m.isLeader = () => leading;
    m.onScrape = () => m.setHeldJobCounts(leading ? counts : undefined);
    // A replica that led and then lost the lead drops what it exported.
    m.setHeldJobCounts(counts);
    const text = await m.registry.metrics();
    for (const line of present) expect(text).toContain(line);
    if (!leading) {
      expect(text).not.toMatch(/^waitgate_heldjobs\{/m);
      expect(text).not.toMatch(/^waitgate_held_by_profile\{/m);
    }
  });

  test('process and Node.js metrics keep their standard names; build info carries the version', async () => {
    const m = new OperatorMetrics();
    m.queueDepth = () => 7;
    m.wakesArmed = () => 10_000;
    const text = await m.registry.metrics();
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).not.toMatch(/^waitgate_operator_/m);
    expect(text).toContain(`waitgate_build_info{version="${VERSION}",component="operator"} 1`);
    expect(text).toContain('waitgate_workqueue_depth 7');
    expect(text).toContain('waitgate_wakes_armed 10000');
    expect(text).toContain('waitgate_informer_restarts_total{informer="jobs"} 0');
  });
});
