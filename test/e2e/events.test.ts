// Events as tools and people read them, against the real apiserver: one when a verdict changes,
// the same Event again counted on the one there, and which controller and replica said it.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { hostname } from 'node:os';
import { API_GROUP, API_VERSION, EventReason, EventType, HELDJOB_PLURAL, Phase, RefusalToken } from '../../api/vocabulary.js';
import { KubeHeldJobs } from '../../operator/adapters/kube-heldjobs.js';
import { heldJob } from '../support/builders.js';
import { TestKube } from '../support/kube.js';
import { fixtureScript, profilesConfigMap } from '../support/profiles.js';
import { phaseReached, withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const NAME = 'web-7-deploy';

describe('the same Event again is counted on the one there', () => {
  const kube = new TestKube();
  let ns = '';
  beforeAll(async () => {
    ns = await kube.createNamespace('events-count');
  });
  afterAll(async () => {
    await kube.deleteNamespace(ns);
  });

  test(
    'said three times, by two operator processes (a restart): one Event, count 3; another message is another Event',
    async () => {
      const hj = await kube.createHeldJob(ns, heldJob({ name: NAME }));
      const said = { type: EventType.Warning, reason: EventReason.LaunchRetrying, message: 'the Job create failed, 503; trying again' };
      const first = new KubeHeldJobs(kube.kc, { component: 'waitgate-operator', instance: 'replica-a' });
      const t0 = Date.parse('2026-09-01T08:00:00Z');
      await first.recordEvent(hj, said, t0);
      await first.recordEvent(hj, said, t0 + 60_000);
      // A restarted operator remembers nothing in memory: the name finds the Event.
      await new KubeHeldJobs(kube.kc, { component: 'waitgate-operator', instance: 'replica-b' }).recordEvent(hj, said, t0 + 120_000);
      await first.recordEvent(hj, { ...said, message: 'the Job create failed, 429; trying again' }, t0 + 180_000);

      const events = await kube.eventsFor(ns, NAME);
      expect(events).toHaveLength(2);
      const counted = events.find((e) => e.message === said.message);
      expect(counted).toMatchObject({
        count: 3,
        reason: 'LaunchRetrying',
        type: 'Warning',
        reportingComponent: 'waitgate-operator',
        reportingInstance: 'replica-a',
        involvedObject: { kind: 'HeldJob', name: NAME, uid: hj.metadata.uid },
      });
      expect(new Date(counted?.firstTimestamp as Date).toISOString()).toBe(new Date(t0).toISOString());
      expect(new Date(counted?.lastTimestamp as Date).toISOString()).toBe(new Date(t0 + 120_000).toISOString());
      expect(events.find((e) => e.message !== said.message)?.count).toBe(1);
    },
    Timeouts.testMs,
  );
});

/** Brings the hold's next check forward to now, as if its interval had passed (the 30 s floor would make this test minutes long). */
async function nudge(s: Scenario): Promise<void> {
  await s.kube.custom.patchNamespacedCustomObjectStatus(
    {
      group: API_GROUP,
      version: API_VERSION,
      plural: HELDJOB_PLURAL,
      namespace: s.namespace,
      name: NAME,
      body: { status: { nextCheckAt: new Date().toISOString() } },
    },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
}

const checked = (s: Scenario, n: number) =>
  eventually(`check ${n} recorded`, async () => {
    const hj = await s.kube.getHeldJob(s.namespace, NAME);
    return (hj?.status?.checks ?? 0) >= n && hj?.status?.nextCheckAt !== undefined ? hj : undefined;
  });

describe('an Event when the verdict changes, not one per check', () => {
  test.concurrent(
    'a profile that says not yet three times: one CheckNotYet Event, then the refusal; from this operator and this replica',
    () =>
      withScenario(
        'events-notyet',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile: 'notyet' }] }));
          await checked(s, 1);
          await nudge(s);
          await checked(s, 2);
          await nudge(s);
          const hj = await phaseReached(s, NAME, Phase.Refused, Timeouts.shortMs);
          expect(hj.status).toMatchObject({ reason: RefusalToken.Expired, checks: 3, lastVerdicts: { notyet: 'not-yet' } });
          const events = await eventually('the Refused Event', async () => {
            const list = await s.kube.eventsFor(s.namespace, NAME);
            return list.some((e) => e.reason === 'Refused') ? list : undefined;
          });
          const checks = events.filter((e) => (e.reason ?? '').startsWith('Check'));
          expect(checks.map((e) => [e.reason, e.count])).toEqual([['CheckNotYet', 1]]);
          for (const e of events) {
            expect(e).toMatchObject({ reportingComponent: 'waitgate-operator', reportingInstance: hostname() });
            expect(e.reason).toMatch(/^[A-Z][A-Za-z0-9]*$/);
          }
          // The summary tools read: Ready False and Stalled True, with the refusal's CamelCase reason.
          expect(hj.status?.conditions?.filter((c) => c.type === 'Ready' || c.type === 'Stalled')).toEqual([
            expect.objectContaining({ type: 'Ready', status: 'False', reason: 'WaitExpired', observedGeneration: hj.metadata.generation }),
            expect.objectContaining({ type: 'Stalled', status: 'True', reason: 'WaitExpired', observedGeneration: hj.metadata.generation }),
          ]);
        },
        {
          env: { WAITGATE_WAIT_MAX_CHECKS: '3' },
          configMaps: { 'waitgate-profiles': profilesConfigMap({ notyet: fixtureScript('exit-3.sh') }) },
        },
      ),
    Timeouts.testMs,
  );
});
