// Toggling one label, against the real receiver process and the real apiserver: every delivery
// after the first of a trigger and target is refused, and what those refusals cost stays
// bounded. They are counted on one record per trigger, target and token, which carries ids
// and times and no Job spec, and the receiver reads the HeldJobs in its way by name, not by
// listing the target's HeldJobs for every delivery (issue 22, item 5).
import { describe, expect, test } from '@jest/globals';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { deliveryUuid, githubLabeled, post, resultsOf, type TriggerResult } from '../support/forge.js';
import { withHttpApiserverProxy } from '../support/http-apiserver-proxy.js';
import { metricValue } from '../support/metrics.js';
import { trigger, withReceiver } from '../support/receiver-scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const LABEL = 'waitgate:deploy';
/** The image of both triggers' Job: a record that carried the Job spec would carry this. */
const IMAGE = 'registry.example/toggle-marker-7f3a:1';
const DELIVERIES = 300;
/** Deliveries in flight at once, as a forge sends a burst of relabels. */
const WIDTH = 4;

// A day ahead: inside the 30-day bound, far enough that nothing launches during the test.
const aDayAhead = () => ({ after: new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z') });

/** A LIST of HeldJobs (a collection GET), as opposed to a GET of one by name. */
const isHeldJobList = (r: { method: string; path: string }) => r.method === 'GET' && /\/heldjobs(\?|$)/.test(r.path);

describe('receiver: toggling one label', () => {
  test(
    `${DELIVERIES} deliveries of one target and trigger: all answered, one hold, one counted record per token, no Job spec in it, no LIST per delivery`,
    () =>
      withHttpApiserverProxy((proxy, kubeconfig) =>
        withReceiver(
          'rcv-toggle',
          {
            triggers: [
              trigger({ waitFor: [aDayAhead()], containers: [{ name: 'deploy', image: IMAGE }] }),
              // Refused at the door on every delivery: its profile is not declared.
              trigger({ name: 'needs-jira', waitFor: [{ profile: 'jira' }], containers: [{ name: 'deploy', image: IMAGE }] }),
            ],
            profiles: { ci: { mode: 'exec', script: 'ci.sh' } },
          },
          async (s) => {
            const ids = Array.from({ length: DELIVERIES }, (_, i) => deliveryUuid(`${s.namespace}-toggle-${i}`));
            const answers: { status: number; results: TriggerResult[] }[] = [];
            const listsBefore = proxy.seen.filter(isHeldJobList).length;
            // All but the last, WIDTH at a time; the last alone, so it is the record's last delivery.
            let next = 0;
            await Promise.all(
              Array.from({ length: WIDTH }, async () => {
                while (next < DELIVERIES - 1) {
                  const id = ids[next++]!;
                  const r = await post(s.url, githubLabeled({ label: LABEL, deliveryId: id }));
                  answers.push({ status: r.status, results: resultsOf(r) });
                }
              }),
            );
            const last = await post(s.url, githubLabeled({ label: LABEL, deliveryId: ids[DELIVERIES - 1]! }));
            answers.push({ status: last.status, results: resultsOf(last) });
            const receiverLists = proxy.seen.filter(isHeldJobList).length - listsBefore;

            const outcomes = (name: string) => answers.map((a) => a.results.find((r) => r.trigger === name));
            const deploy = outcomes('deploy');
            const jira = outcomes('needs-jira');
            const heldJobs = await s.kube.listHeldJobs(s.namespace);
            const summary = {
              answered: answers.length,
              not2xx: answers.filter((a) => a.status < 200 || a.status > 299).map((a) => a.status),
              held: deploy.filter((r) => r?.outcome === 'held').length,
              superseded: deploy.filter((r) => r?.token === RefusalToken.Superseded).length,
              profileUnknown: jira.filter((r) => r?.token === RefusalToken.ProfileUnknown).length,
              heldJobs: heldJobs.length,
              receiverLists,
            };
            console.log(`toggle: ${JSON.stringify(summary)}`);

            // Every delivery answered 2xx, each trigger ending in a hold or a recorded refusal.
            expect(summary.answered).toBe(DELIVERIES);
            expect(summary.not2xx).toEqual([]);
            expect(summary.held).toBe(1);
            expect(summary.superseded).toBe(DELIVERIES - 1);
            expect(summary.profileUnknown).toBe(DELIVERIES);

            // Bounded: the hold and one record per trigger and token, not one per delivery.
            expect(summary.heldJobs).toBe(3);
            // No LIST per delivery: at most the one of the first delivery, when Valkey remembered
            // no hold of this trigger and target yet.
            expect(summary.receiverLists).toBeLessThanOrEqual(1);

            // Each refusal names its trigger's one record, and the record counts them all.
            const hold = heldJobs.find((h) => h.metadata.name === deploy.find((r) => r?.outcome === 'held')?.heldJob);
            expect(hold).toBeDefined();
            for (const [results, token, count] of [
              [deploy, RefusalToken.Superseded, DELIVERIES - 1],
              [jira, RefusalToken.ProfileUnknown, DELIVERIES],
            ] as const) {
              const names = new Set(results.filter((r) => r?.outcome === 'refused').map((r) => r?.heldJob));
              expect(names.size).toBe(1);
              const name = [...names][0]!;
              const record = await eventually(`the ${token} record to be Refused`, async () => {
                const hj = await s.kube.getHeldJob(s.namespace, name);
                return hj?.status?.phase === Phase.Refused ? hj : undefined;
              });
              expect(record.status?.reason).toBe(token);
              const a = record.metadata.annotations ?? {};
              expect(a['waitgate.dev/refusal']).toBe(token);
              expect(Number(a['waitgate.dev/refusal-count'])).toBe(count);
              expect(a['waitgate.dev/refusal-last-delivery']).toBe(ids[DELIVERIES - 1]);
              const first = Date.parse(a['waitgate.dev/refusal-first-seen'] ?? '');
              const lastSeen = Date.parse(a['waitgate.dev/refusal-last-seen'] ?? '');
              expect(first).toBeLessThanOrEqual(lastSeen);
              expect(lastSeen).toBeLessThanOrEqual(Date.now());
              // Ids and times only: no Job spec, whatever the trigger's job says, and small.
              const serialized = JSON.stringify(record);
              expect(serialized).not.toContain(IMAGE);
              expect(serialized).not.toContain('containers');
              expect(serialized.length).toBeLessThan(8192);
              expect(await metricValue(s.metricsUrl, `waitgate_receiver_refusals_total{token="${token}"}`)).toBe(count);
            }
            // The hold itself carries its Job, as it must: the search above would have found it.
            expect(JSON.stringify(hold)).toContain(IMAGE);
          },
          { KUBECONFIG: kubeconfig },
        ),
      ),
    Timeouts.testMs * 3,
  );
});
