// Faults and slips that used to lose work or wedge a repository for good (issue 9): a Job the
// apiserver rejects, a Job that disappears under a Running hold, a profiles ConfigMap that
// goes, a broken check beside a healthy one. Each against the real apiserver and real scripts.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import {
  API_GROUP,
  API_VERSION,
  Annotations,
  ConditionReason,
  ConditionType,
  EventReason,
  FailureReason,
  HELDJOB_PLURAL,
  JOB_LAUNCH_FINALIZER,
  Labels,
  MANAGED_BY,
  Phase,
  RefusalToken,
} from '../../api/vocabulary.js';
import { jobNameFor } from '../../api/job-name.js';
import { afterIn, heldJob } from '../support/builders.js';
import { githubLabeled, post } from '../support/forge.js';
import { withHttpApiserverProxy } from '../support/http-apiserver-proxy.js';
import { fixtureScript, profilesConfigMap } from '../support/profiles.js';
import { trigger, withReceiver } from '../support/receiver-scenario.js';
import { phaseReached, withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

const reaches = phaseReached;

/** A profiles.json cut short: it does not parse. */
const UNPARSABLE = '{"go": {"mode": "exec", "script": "go.sh"';

/** A HeldJob whose job template the apiserver can never accept: a Pod without containers. */
function invalidJob(name: string, waitFor: object[]): Record<string, unknown> {
  const hj = heldJob({ name, waitFor }) as { spec: { job: { template: { spec: Record<string, unknown> } } } };
  hj.spec.job.template.spec = { restartPolicy: 'Never', containers: [] };
  return hj;
}

const reasonsOf = async (s: Scenario, name: string) => (await s.kube.eventsFor(s.namespace, name)).map((e) => e.reason);
/** An Event is recorded just after the status write it goes with: poll for it. */
const eventSaid = (s: Scenario, name: string, reason: string) =>
  eventually(`a ${reason} Event on ${name}`, async () => ((await reasonsOf(s, name)).includes(reason) ? true : undefined));

/** Polls until the hold is Held with its Waiting condition of `reason` (and a message `message` matches). */
const heldWaiting = (s: Scenario, name: string, reason: string, message?: RegExp, timeoutMs: number = Timeouts.shortMs) =>
  eventually(
    `${name} to be Held, waiting for ${reason}${message ? ` (${String(message)})` : ''}`,
    async () => {
      const hj = await s.kube.getHeldJob(s.namespace, name);
      const waiting = hj?.status?.conditions?.find((c) => c.type === ConditionType.Waiting);
      return hj?.status?.phase === Phase.Held && waiting?.reason === reason && (!message || message.test(waiting.message ?? ''))
        ? hj
        : undefined;
    },
    timeoutMs,
  );

/** The HeldJob a Job create's body (as text) is owned by. */
function ownerOfCreate(body: string): string | undefined {
  try {
    return (JSON.parse(body) as k8s.V1Job).metadata?.ownerReferences?.[0]?.name;
  } catch {
    return undefined;
  }
}

/** Whether a request is a Job create, not its dry run. */
function isJobCreate(method: string, path: string): boolean {
  const url = new URL(path, 'https://apiserver');
  return method === 'POST' && url.pathname.endsWith('/jobs') && !url.searchParams.has('dryRun');
}

describe('a Job the apiserver rejects ends its hold and frees the repository', () => {
  test.concurrent(
    'an invalid job is found at the first hold (a server-side dry run), not at its launch',
    () =>
      withScenario('fault-invalid', async (s) => {
        // The instant is an hour away: before, the rejection came only then.
        await s.kube.createHeldJob(s.namespace, invalidJob('bad', [{ after: afterIn(3_600_000).after }]));
        const hj = await reaches(s, 'bad', Phase.Failed, Timeouts.shortMs);
        expect(hj.status?.reason).toBe(FailureReason.JobRejected);
        expect(hj.status?.message).toMatch(/containers/);
        await eventSaid(s, 'bad', 'JobRejected');
        expect(await s.kube.listJobs(s.namespace)).toHaveLength(0);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'a Job name owned by something else: Failed JobRejected, and the next hold for that repository launches',
    () =>
      withScenario('fault-nametaken', async (s) => {
        const created = await s.kube.createHeldJob(s.namespace, heldJob({ name: 'first', waitFor: [{ after: afterIn(4000).after }] }));
        // A Job of the HeldJob's deterministic name, owned by nobody.
        const squatter: k8s.V1Job = {
          metadata: { name: jobNameFor({ name: 'first', uid: created.metadata.uid }), namespace: s.namespace },
          spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
        };
        await s.kube.batch.createNamespacedJob({ namespace: s.namespace, body: squatter });
        const failed = await reaches(s, 'first', Phase.Failed);
        expect(failed.status).toMatchObject({ reason: FailureReason.JobRejected });
        expect(failed.status?.message).toMatch(/belongs to something else/);
        // The default scope limit is one per repository: the slot came back.
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'second', target: 'acme/web#8' }));
        await reaches(s, 'second', Phase.Succeeded);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'a quota that forbids the Job (403): Failed JobRejected with the apiserver message; the slot is free',
    () =>
      withScenario('fault-quota', async (s) => {
        await s.kube.core.createNamespacedResourceQuota({
          namespace: s.namespace,
          body: { metadata: { name: 'no-jobs' }, spec: { hard: { 'count/jobs.batch': '0' } } },
        });
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'quota', waitFor: [{ after: afterIn(3000).after }] }));
        const hj = await reaches(s, 'quota', Phase.Failed);
        expect(hj.status?.reason).toBe(FailureReason.JobRejected);
        expect(hj.status?.message).toMatch(/403.*quota/i);
        await s.kube.core.deleteNamespacedResourceQuota({ namespace: s.namespace, name: 'no-jobs' });
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'after-quota', target: 'acme/web#8' }));
        await reaches(s, 'after-quota', Phase.Succeeded);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'a HeldJob name longer than a label value may be still launches (the label is hashed to fit)',
    () =>
      withScenario('fault-longname', async (s) => {
        const name = `deploy-${'x'.repeat(80)}-7`;
        await s.kube.createHeldJob(s.namespace, heldJob({ name }));
        await reaches(s, name, Phase.Succeeded);
        const [job] = await s.kube.listJobs(s.namespace);
        expect(job?.metadata?.labels?.['waitgate.dev/heldjob']?.length).toBeLessThanOrEqual(63);
      }),
    Timeouts.testMs,
  );
});

describe('a Job create the apiserver asks to try again backs off and holds no slot meanwhile', () => {
  test.concurrent(
    '503, then 429, to the Job create: the hold stays Held LaunchRetrying, a second hold in the repository launches meanwhile, then the first launches',
    () =>
      withHttpApiserverProxy((proxy, kubeconfig) =>
        withScenario(
          'fault-retryable',
          async (s) => {
            // The operator reaches the apiserver through the proxy, which answers the first
            // hold's Job create itself (its dry run and every other call go through).
            let code = 503;
            proxy.answerRequests((method, path, body) => (isJobCreate(method, path) && ownerOfCreate(body) === 'first' ? code : undefined));
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'first', target: 'acme/web#7' }));
            await heldWaiting(s, 'first', ConditionReason.LaunchRetrying, /503/);
            await eventSaid(s, 'first', EventReason.LaunchRetrying);

            // One launch at a time in acme/web: the slot is free while the first waits to try again.
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'second', target: 'acme/web#8' }));
            await reaches(s, 'second', Phase.Succeeded);

            code = 429;
            const first = await heldWaiting(s, 'first', ConditionReason.LaunchRetrying, /429/, Timeouts.jobMs);
            // Not ended: no end recorded, no Job.
            expect(first.status?.finishedAt).toBeUndefined();
            expect((await s.kube.listJobs(s.namespace)).filter((j) => j.metadata?.ownerReferences?.[0]?.name === 'first')).toHaveLength(0);

            proxy.heal();
            await reaches(s, 'first', Phase.Succeeded);
            const owners = (await s.kube.listJobs(s.namespace)).map((j) => j.metadata?.ownerReferences?.[0]?.name).sort();
            expect(owners).toEqual(['first', 'second']);
          },
          { env: { KUBECONFIG: kubeconfig, WAITGATE_SCOPE_LIMIT: '1' } },
        ),
      ),
    Timeouts.testMs,
  );
});

describe('a Job that disappears under a Running hold ends it', () => {
  /** Waits until the hold is Running and its Job's creation recorded (the launch fence is off it); the Job's name. */
  async function launchRecorded(s: Scenario, name: string): Promise<string> {
    const hj = await reaches(s, name, Phase.Running);
    const jobName = hj.status?.jobName as string;
    await eventually('the launch fence to come off the Job', async () => {
      const job = await s.kube.batch.readNamespacedJob({ name: jobName, namespace: s.namespace });
      return job.metadata?.finalizers?.includes(JOB_LAUNCH_FINALIZER) ? undefined : true;
    });
    return jobName;
  }

  /** A Running hold whose Job runs until deleted, its creation recorded. */
  async function runningJob(s: Scenario, name: string, target = 'acme/web#7'): Promise<string> {
    await s.kube.createHeldJob(s.namespace, heldJob({ name, target, exitCode: 'never' }));
    return launchRecorded(s, name);
  }

  test.concurrent(
    'kubectl delete job: Failed JobMissing, and the scope slot goes back',
    () =>
      withScenario('fault-jobgone', async (s) => {
        const jobName = await runningJob(s, 'first');
        await s.kube.batch.deleteNamespacedJob({ name: jobName, namespace: s.namespace, propagationPolicy: 'Background' });
        const hj = await reaches(s, 'first', Phase.Failed);
        expect(hj.status?.reason).toBe(FailureReason.JobMissing);
        await eventSaid(s, 'first', 'JobMissing');
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'second', target: 'acme/web#8' }));
        await reaches(s, 'second', Phase.Succeeded);
        // Never launched twice.
        expect((await s.kube.listJobs(s.namespace)).filter((j) => j.metadata?.name === jobName)).toHaveLength(0);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'the Job deleted while the operator is down: the operator back ends the hold JobMissing and launches nothing again',
    () =>
      withScenario('fault-jobgone-down', async (s) => {
        const jobName = await runningJob(s, 'first');
        await s.operator.stop();
        await s.kube.batch.deleteNamespacedJob({ name: jobName, namespace: s.namespace, propagationPolicy: 'Background' });
        await eventually(
          'the Job to be gone',
          async () => ((await s.kube.jobExists(s.namespace, jobName)) ? undefined : true),
          Timeouts.gcMs,
        );
        const second = await s.restartOperator();
        const hj = await reaches(s, 'first', Phase.Failed);
        expect(hj.status?.reason).toBe(FailureReason.JobMissing);
        await staysTrue('no second Job', async () => !(await s.kube.jobExists(s.namespace, jobName)), Date.now() + 2000);
        expect(second.logLines().filter((l) => l['msg'] === 'Created Job')).toHaveLength(0);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'a Job its TTL removed as soon as it finished, before the operator recorded the end: Succeeded, not JobMissing',
    () =>
      withHttpApiserverProxy((proxy, kubeconfig) =>
        withScenario(
          'fault-job-ttl',
          async (s) => {
            // ttlSecondsAfterFinished 0: the TTL controller removes the Job the moment it ends.
            await s.kube.createHeldJob(s.namespace, heldJob({ name: 'ttl', exitCode: 0, runFor: '3s', jobTtlSeconds: 0 }));
            const jobName = await launchRecorded(s, 'ttl');
            // The operator sees the Job end but cannot write it down until the Job is gone.
            proxy.answerRequests((method, path) => (method === 'PUT' && path.includes('/heldjobs/ttl/status') ? 503 : undefined));
            await eventually(
              'the TTL controller to remove the finished Job',
              async () => ((await s.kube.jobExists(s.namespace, jobName)) ? undefined : true),
              Timeouts.jobMs,
            );
            // The operator has seen the Job gone with the end still unwritten. Waited for by what the
            // operator says, not by its next retry: after a slow Job its work-queue backoff may
            // already be past 15 s (it was 16 s in a CI run on a loaded machine).
            await s.operator.logged('Found the Job gone', Timeouts.jobMs);
            // The end was seen and its write refused before the Job went.
            expect(proxy.answeredCount).toBeGreaterThan(0);
            proxy.heal();
            // The next try comes after the work queue's backoff, at most RECONCILE_RETRY_MAX_MS.
            const hj = await reaches(s, 'ttl', Phase.Succeeded, Timeouts.gcMs + 10_000);
            expect(hj.status?.reason).not.toBe(FailureReason.JobMissing);
            expect(await reasonsOf(s, 'ttl')).not.toContain(FailureReason.JobMissing);
          },
          { env: { KUBECONFIG: kubeconfig } },
        ),
      ),
    Timeouts.testMs,
  );
});

describe('an operator stopped between recording a launch and creating its Job', () => {
  /** What the stopped operator left: a HeldJob whose status records the launch, its create unconfirmed. */
  async function recordedLaunch(s: Scenario, name: string): Promise<{ uid: string; jobName: string }> {
    await s.operator.stop();
    const hj = await s.kube.createHeldJob(s.namespace, heldJob({ name, waitFor: [{ after: afterIn(-60_000).after }] }));
    const jobName = jobNameFor({ name, uid: hj.metadata.uid });
    const now = new Date().toISOString();
    await s.kube.custom.patchNamespacedCustomObjectStatus(
      {
        group: API_GROUP,
        version: API_VERSION,
        plural: HELDJOB_PLURAL,
        namespace: s.namespace,
        name,
        body: {
          status: {
            phase: Phase.Running,
            jobName,
            launchedAt: now,
            conditions: [
              { type: 'Launched', status: 'Unknown', reason: 'Creating', message: `creating Job ${jobName}`, lastTransitionTime: now },
            ],
          },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    return { uid: hj.metadata.uid, jobName };
  }

  test.concurrent(
    'the create never landed: the next operator finds neither the Job nor a trace of it and creates it, once',
    () =>
      withScenario('fault-record-nocreate', async (s) => {
        const { jobName } = await recordedLaunch(s, 'first');
        const second = await s.restartOperator();
        const hj = await reaches(s, 'first', Phase.Succeeded);
        expect(hj.status?.jobName).toBe(jobName);
        expect(await second.loggedTimes('Created Job', 1)).toHaveLength(1);
      }),
    Timeouts.testMs,
  );

  test.concurrent(
    'the create landed and the Job was deleted before the status said so: its fence keeps it until the record; then JobMissing, never created again',
    () =>
      withScenario('fault-record-came-went', async (s) => {
        const { uid, jobName } = await recordedLaunch(s, 'first');
        // The Job the stopped operator did create (fenced, as it creates them), deleted before anyone recorded it.
        await s.kube.batch.createNamespacedJob({
          namespace: s.namespace,
          body: {
            metadata: {
              name: jobName,
              labels: { [Labels.managedBy]: MANAGED_BY },
              finalizers: [JOB_LAUNCH_FINALIZER],
              ownerReferences: [{ apiVersion: `${API_GROUP}/${API_VERSION}`, kind: 'HeldJob', name: 'first', uid, controller: true }],
            },
            spec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
          },
        });
        await s.kube.batch.deleteNamespacedJob({ name: jobName, namespace: s.namespace, propagationPolicy: 'Background' });
        await staysTrue('the fence to keep the deleted Job', async () => s.kube.jobExists(s.namespace, jobName), Date.now() + 2000);
        const second = await s.restartOperator();
        const hj = await reaches(s, 'first', Phase.Failed);
        expect(hj.status?.reason).toBe(FailureReason.JobMissing);
        await staysTrue('no second Job', async () => !(await s.kube.jobExists(s.namespace, jobName)), Date.now() + 2000);
        expect(second.logLines().filter((l) => l['msg'] === 'Created Job')).toHaveLength(0);
      }),
    Timeouts.testMs,
  );
});

describe('a profiles ConfigMap that cannot be read pauses profile holds; it refuses none', () => {
  test.concurrent(
    'deleted, then recreated: the hold waits, saying why, and then launches',
    () =>
      withScenario(
        'fault-profiles-gone',
        async (s) => {
          await s.kube.core.deleteNamespacedConfigMap({ name: 'waitgate-profiles', namespace: s.namespace });
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'p', waitFor: [{ profile: 'go' }] }));
          await heldWaiting(s, 'p', ConditionReason.ProfilesUnreadable);
          await eventSaid(s, 'p', 'ProfilesUnreadable');
          const port = (await s.operator.logged('Started'))['metricsPort'];
          expect(await (await fetch(`http://127.0.0.1:${String(port)}/metrics`)).text()).toContain('waitgate_profiles_readable 0');
          await staysTrue(
            'no refusal, no check',
            async () => {
              const hj = await s.kube.getHeldJob(s.namespace, 'p');
              return hj?.status?.phase === Phase.Held && (hj.status.checks ?? 0) === 0;
            },
            Date.now() + 3000,
          );
          await s.kube.core.createNamespacedConfigMap({
            namespace: s.namespace,
            body: { metadata: { name: 'waitgate-profiles' }, data: profilesConfigMap({ go: fixtureScript('exit-0.sh') }) },
          });
          await reaches(s, 'p', Phase.Succeeded);
        },
        { configMaps: { 'waitgate-profiles': profilesConfigMap({ go: fixtureScript('exit-0.sh') }) } },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a profiles.json that does not parse: the hold waits Held, saying why, and launches once it parses',
    () =>
      withScenario(
        'fault-profiles-unparsable',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: 'p', waitFor: [{ profile: 'go' }] }));
          await heldWaiting(s, 'p', ConditionReason.ProfilesUnreadable, /profiles\.json is not valid JSON/);
          await eventSaid(s, 'p', EventReason.ProfilesUnreadable);
          await staysTrue(
            'no refusal, no check',
            async () => {
              const hj = await s.kube.getHeldJob(s.namespace, 'p');
              return hj?.status?.phase === Phase.Held && (hj.status.checks ?? 0) === 0;
            },
            Date.now() + 3000,
          );
          await s.kube.core.replaceNamespacedConfigMap({
            name: 'waitgate-profiles',
            namespace: s.namespace,
            body: { metadata: { name: 'waitgate-profiles' }, data: profilesConfigMap({ go: fixtureScript('exit-0.sh') }) },
          });
          await reaches(s, 'p', Phase.Succeeded);
        },
        { configMaps: { 'waitgate-profiles': { ...profilesConfigMap({ go: fixtureScript('exit-0.sh') }), 'profiles.json': UNPARSABLE } } },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'the receiver with a profiles.json that does not parse holds a delivery naming a profile; it refuses nothing',
    () =>
      withReceiver(
        'fault-rcv-profiles-unparsable',
        {
          triggers: [trigger({ waitFor: [{ profile: 'go' }] })],
          profilesData: { 'profiles.json': UNPARSABLE, 'go.sh': fixtureScript('exit-0.sh') },
        },
        async (s) => {
          await s.receiver.logged((l) => String(l['msg']).startsWith('Profiles ConfigMap does not load'));
          const answer = await post(s.url, githubLabeled({ label: 'waitgate:deploy' }));
          expect(answer.status).toBe(202);
          expect(answer.json['results']).toEqual([{ trigger: 'deploy', outcome: 'held', heldJob: expect.any(String) }]);
          const [hj, ...others] = await s.kube.listHeldJobs(s.namespace);
          expect(others).toEqual([]);
          expect(hj?.metadata.annotations?.[Annotations.refusal]).toBeUndefined();
          expect(hj?.status?.phase).not.toBe(Phase.Refused);
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'an operator pointed at a namespace with no profiles ConfigMap refuses nothing',
    () =>
      withScenario('fault-profiles-wrongns', async (s) => {
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'p', waitFor: [{ profile: 'go' }] }));
        await staysTrue(
          'held, not refused',
          async () => (await s.kube.getHeldJob(s.namespace, 'p'))?.status?.phase !== Phase.Refused,
          Date.now() + 4000,
        );
        const hj = await s.kube.getHeldJob(s.namespace, 'p');
        expect(hj?.status?.conditions?.find((c) => c.type === 'Waiting')?.message).toMatch(/not in namespace/);
      }),
    Timeouts.testMs,
  );
});

test.concurrent(
  'a broken check beside a healthy one: wait-unanswerable within a minute, its faults counted on their own',
  () =>
    withScenario(
      'fault-two-profiles',
      async (s) => {
        await s.kube.createHeldJob(s.namespace, heldJob({ name: 'two', waitFor: [{ profile: 'healthy' }, { profile: 'broken' }] }));
        // Two rounds at the 30 s floor of the cadence: before, the healthy go reset the count
        // and the hold waited for its maximum (a day) instead.
        const hj = await reaches(s, 'two', Phase.Refused, 90_000);
        expect(hj.status?.reason).toBe(RefusalToken.Unanswerable);
        expect(hj.status?.profileFaults).toEqual({ healthy: 0, broken: 2 });
        expect(hj.status?.message).toContain('"broken"');
      },
      {
        env: { WAITGATE_WAIT_MAX_FAULTS: '2' },
        configMaps: { 'waitgate-profiles': profilesConfigMap({ healthy: fixtureScript('exit-0.sh'), broken: fixtureScript('exit-1.sh') }) },
      },
    ),
  Timeouts.testMs,
);
