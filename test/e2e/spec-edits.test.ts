// A spec edited under the operator, and messages too long for a status (issue 22, items 4 and
// 6), against the real apiserver and a real operator process. The CRD keeps unknown spec
// fields, so `kubectl patch hj X -p '{"spec":{"note":"x"}}'` lands; the operator's check then
// refuses the spec, and a launched hold must still end as its Job did and give its repository
// back. An apiserver refusal can be far over the 32 KiB a condition message may hold; the hold
// must still end. (The chart's admission policy that refuses such edits after the launch is
// tested in admission-policy.test.ts; no chart is installed here, so nothing refuses them.)
import { describe, expect, test } from '@jest/globals';
import { STATUS_TEXT_MAX_BYTES, utf8Bytes } from '../../api/bounded-text.js';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { ConditionType, EventReason, FailureReason, JOB_LAUNCH_FINALIZER, Phase, RefusalToken } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { kubectl } from '../support/chart.js';
import { phaseReached, withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

/**
 * Patches a HeldJob as an admin would. A chart another test installed for every namespace
 * meanwhile brings its admission policy, which refuses a change to a launched hold's spec: that
 * refusal is waited out (it goes with that release), any other failure fails the test.
 */
async function patch(s: Scenario, name: string, type: 'merge' | 'json', body: unknown): Promise<void> {
  const r = await eventually(
    `the patch of ${name} to be admitted`,
    async () => {
      const r = await kubectl(['-n', s.namespace, 'patch', 'heldjobs.waitgate.dev', name, `--type=${type}`, '-p', JSON.stringify(body)]);
      return r.code !== 0 && /heldjob-spec-immutable/.test(r.stderr) ? undefined : r;
    },
    Timeouts.jobMs,
  );
  if (r.code !== 0) throw new Error(`kubectl patch ${name}: ${r.stderr}`);
}

const eventsOf = (s: Scenario, name: string) => s.kube.eventsFor(s.namespace, name);
/** Polls until an Event of `reason` is on the HeldJob; that Event. */
const eventSaid = (s: Scenario, name: string, reason: string) =>
  eventually(`a ${reason} Event on ${name}`, async () => (await eventsOf(s, name)).find((e) => e.reason === reason));

/** Polls until the hold is Held and its Waiting condition says `reason`. */
const heldFor = (s: Scenario, name: string, reason: string) =>
  eventually(`${name} to be Held, waiting for ${reason}`, async () => {
    const hj = await s.kube.getHeldJob(s.namespace, name);
    const waiting = hj?.status?.conditions?.find((c) => c.type === ConditionType.Waiting);
    return hj?.status?.phase === Phase.Held && waiting?.reason === reason ? hj : undefined;
  });

/** The hold's own Job, once its creation is recorded (the launch fence is off it). */
async function launchedJob(s: Scenario, name: string) {
  const hj = await phaseReached(s, name, Phase.Running);
  const jobName = hj.status?.jobName as string;
  return eventually(`the launch fence to come off ${jobName}`, async () => {
    const job = await s.kube.batch.readNamespacedJob({ name: jobName, namespace: s.namespace });
    return job.metadata?.finalizers?.includes(JOB_LAUNCH_FINALIZER) ? undefined : job;
  });
}

/** Ends a Job that kwok keeps running (exit code "never"): its Pod is told to exit 0. */
async function endJob(s: Scenario, jobName: string): Promise<void> {
  const pods = await eventually(`a Pod of ${jobName}`, async () => {
    const list = await s.kube.core.listNamespacedPod({ namespace: s.namespace, labelSelector: `job-name=${jobName}` });
    return list.items.length > 0 ? list.items : undefined;
  });
  for (const pod of pods) {
    const r = await kubectl(['-n', s.namespace, 'annotate', 'pod', pod.metadata?.name ?? '', '--overwrite', 'waitgate.dev/exit-code=0']);
    if (r.code !== 0) throw new Error(r.stderr);
  }
}

/** Every message in a status and its conditions, and the Events' messages, fit the bound. */
function expectBounded(hj: HeldJobObject, events: { message?: string }[]): void {
  const texts = [hj.status?.message, ...(hj.status?.conditions ?? []).map((c) => c.message), ...events.map((e) => e.message)];
  const sizes = texts.filter((t): t is string => t !== undefined).map(utf8Bytes);
  expect(sizes.length).toBeGreaterThan(2);
  expect(Math.max(...sizes)).toBeLessThanOrEqual(STATUS_TEXT_MAX_BYTES);
}

describe('a spec edited under the operator', () => {
  test.concurrent(
    'edited while held it launches as edited; given an unknown field while Running, it ends as its Job did and gives its repository back',
    () =>
      withScenario('spec-running', async (s) => {
        // Held until its instant, its Job then kept running until the test ends it.
        await s.kube.createHeldJob(
          s.namespace,
          heldJob({ name: 'first', target: 'acme/web#7', exitCode: 'never', waitFor: [{ after: afterIn(10_000).after }] }),
        );
        // Held for an hour: its spec is edited into one that does not read (a misspelt waitFor,
        // which the CRD keeps and the operator refuses rather than run the job early).
        await s.kube.createHeldJob(
          s.namespace,
          heldJob({ name: 'broken', target: 'acme/api#1', waitFor: [{ after: afterIn(3_600_000).after }] }),
        );
        await heldFor(s, 'first', 'Held');
        await heldFor(s, 'broken', 'Held');

        // While held the spec may change, and the launch builds the Job from it as it is then.
        await patch(s, 'first', 'json', [{ op: 'replace', path: '/spec/job/template/spec/containers/0/image', value: 'busybox:edited' }]);
        await patch(s, 'broken', 'merge', { spec: { waitfor: [{ after: afterIn(60_000).after }] } });
        const broken = await phaseReached(s, 'broken', Phase.Refused, Timeouts.shortMs);
        expect(broken.status).toMatchObject({ reason: RefusalToken.Unreadable });
        expect(broken.status?.message).toMatch(/Unrecognized key: "waitfor"/);
        expect((await eventSaid(s, 'broken', EventReason.Refused)).message).toMatch(/^wait-unreadable: .*"waitfor"/);

        const job = await launchedJob(s, 'first');
        expect(job.spec?.template.spec?.containers[0]?.image).toBe('busybox:edited');
        // One Job at a time in acme/web (the default scope limit): the second waits for the place.
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'second', target: 'acme/web#8' }));
        await heldFor(s, 'second', 'ScopeQueued');

        // A field the schema does not know: the spec no longer passes the operator's check. Its
        // place stays taken while its Job runs (the second stays queued).
        await patch(s, 'first', 'merge', { spec: { note: 'x' } });
        await staysTrue(
          'the second to stay queued while the first runs',
          async () => (await s.kube.getHeldJob(s.namespace, 'second'))?.status?.phase === Phase.Held,
          Date.now() + 3_000,
        );

        // The Job ends: so does the hold, as its Job did.
        await endJob(s, job.metadata?.name as string);
        const first = await phaseReached(s, 'first', Phase.Succeeded);
        expect(first.status?.message).toBe(`Job ${job.metadata?.name as string} succeeded`);
        expect(first.status?.scope).toBe(`ns/${s.namespace}:acme/web`);
        expect(first.status?.observedGeneration).toBe(3);
        expect(first.status?.conditions?.find((c) => c.type === ConditionType.Finished)).toMatchObject({
          status: 'True',
          reason: 'Succeeded',
        });
        await eventSaid(s, 'first', EventReason.Succeeded);
        // The place came back: the second launches and runs to its end.
        await phaseReached(s, 'second', Phase.Succeeded);

        // The edit was said once, as a Warning naming the problem.
        const said = (await eventsOf(s, 'first')).filter((e) => e.reason === EventReason.SpecChangeIgnored);
        expect(said).toHaveLength(1);
        expect(said[0]?.type).toBe('Warning');
        expect(said[0]?.message).toMatch(
          /changed after the launch \(generation 3\) and no longer reads \(spec: Unrecognized key: "note"\)/,
        );

        // The log says what happened.
        const ofFirst = (msg: string) => (l: Record<string, unknown>) => l['heldjob'] === `${s.namespace}/first` && l['msg'] === msg;
        expect((await s.operator.logged(ofFirst(`Said ${EventReason.SpecChangeIgnored}`)))['message']).toMatch(/no longer reads/);
        await s.operator.logged(ofFirst('Moved to Succeeded'));
      }),
    Timeouts.testMs,
  );
});

describe('a message over 32 KiB never keeps a hold from ending', () => {
  test.concurrent(
    'the apiserver refuses a Job with an 80 KB message, at the first hold and at the launch: Failed JobRejected, every message bounded, the repository free',
    () =>
      withScenario('spec-huge', async (s) => {
        // The apiserver echoes a label value in its refusal: 40,000 characters of it, twice.
        const huge = 'x'.repeat(40_000);
        const withLabel = (hj: Record<string, unknown>): Record<string, unknown> => {
          const spec = hj['spec'] as { job: { template: { metadata: { labels?: Record<string, string> } } } };
          spec.job.template.metadata.labels = { huge };
          return hj;
        };
        // Found by the dry run at the first hold (a hold that waits; one that launches at once
        // is not dry-run, its create answers).
        await s.kube.createHeldJob(
          s.namespace,
          withLabel(heldJob({ name: 'dry', target: 'acme/web#1', waitFor: [{ after: afterIn(60_000).after }] })),
        );
        // Valid at its first hold, edited while held: found by the create at its launch.
        await s.kube.createHeldJob(
          s.namespace,
          heldJob({ name: 'create', target: 'acme/api#2', waitFor: [{ after: afterIn(10_000).after }] }),
        );
        await heldFor(s, 'create', 'Held');
        await patch(s, 'create', 'merge', { spec: { job: { template: { metadata: { labels: { huge } } } } } });

        for (const [name, found] of [
          ['dry', /^the job can never be created \(422\): /],
          ['create', /^the apiserver refused the Job \(422\): /],
        ] as const) {
          const hj = await phaseReached(s, name, Phase.Failed);
          expect(hj.status?.reason).toBe(FailureReason.JobRejected);
          expect(hj.status?.message).toMatch(found);
          expect(hj.status?.message).toMatch(/… \[cut from \d{5,} bytes\]$/);
          const events = await eventually(`the JobRejected Event on ${name}`, async () => {
            const all = await eventsOf(s, name);
            return all.some((e) => e.reason === FailureReason.JobRejected) ? all : undefined;
          });
          expectBounded(hj, events);
        }
        // Neither holds its repository: the next hold of each launches.
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'web-next', target: 'acme/web#3' }));
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'api-next', target: 'acme/api#4' }));
        await phaseReached(s, 'web-next', Phase.Succeeded);
        await phaseReached(s, 'api-next', Phase.Succeeded);
        // Said once each, not on every try.
        const rejected = await s.operator.loggedTimes('Moved to Failed', 2);
        expect(rejected).toHaveLength(2);
      }),
    Timeouts.testMs,
  );
});
