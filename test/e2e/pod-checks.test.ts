// Checks as short-lived Pods on the local cluster: kwok ends each check Pod with the exit
// code the test names, and each HeldJob ends as the contract says.
import { describe, expect, test } from '@jest/globals';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import { withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually, staysTrue } from '../support/wait.js';

const NAME = 'web-7-deploy';
const SCRIPT = '#!/bin/sh\nexit 3\n';
/** The sweep period of the tests that watch it happen. */
const SWEEP_MS = 500;

function podProfiles(profiles: Record<string, { exitCode?: string; startAfter?: string; resources?: object }>): Record<string, string> {
  const json: Record<string, object> = {};
  for (const [name, p] of Object.entries(profiles)) {
    const annotations = {
      ...(p.exitCode !== undefined ? { 'waitgate.dev/exit-code': p.exitCode } : {}),
      // kwok keeps the Pod Pending this long before its container starts (a cold image pull).
      ...(p.startAfter !== undefined ? { 'waitgate.dev/start-after': p.startAfter } : {}),
    };
    json[name] = {
      mode: 'pod',
      script: 'check.sh',
      image: 'busybox:1.36',
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(p.resources ? { resources: p.resources } : {}),
    };
  }
  return { 'profiles.json': JSON.stringify(json), 'check.sh': SCRIPT };
}

async function checkPods(s: Scenario) {
  return (await s.kube.core.listNamespacedPod({ namespace: s.namespace, labelSelector: 'waitgate.dev/check=true' })).items;
}

describe('checks as Pods', () => {
  test.concurrent.each<[string, string, string, string | undefined, number | undefined]>([
    ['exit 0: go', 'go', Phase.Succeeded, undefined, 0],
    ['exit 3: not yet, then wait-expired at the maximum', 'notyet', Phase.Refused, RefusalToken.Expired, 3],
    ['exit 2: never', 'never', Phase.Refused, RefusalToken.Refused, 2],
    ['exit 1: could not tell', 'unsure', Phase.Refused, RefusalToken.Unanswerable, 1],
    [
      'no answer: the timeout reads as could not tell, and the Pod is deleted',
      'hangs',
      Phase.Refused,
      RefusalToken.Unanswerable,
      undefined,
    ],
    [
      'a Pod that cannot be scheduled reads as could not tell, never as not yet',
      'huge',
      Phase.Refused,
      RefusalToken.Unanswerable,
      undefined,
    ],
  ])(
    '%s',
    (_n, profile, phase, reason, lastExit) =>
      withScenario(
        `pod-${profile}`,
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile }] }));
          const hj = await eventually(
            `${NAME} to reach ${phase}`,
            async () => {
              const h = await s.kube.getHeldJob(s.namespace, NAME);
              return h?.status?.phase === phase ? h : undefined;
            },
            Timeouts.jobMs,
          );
          if (reason) expect(hj.status?.reason).toBe(reason);
          if (lastExit !== undefined) expect(hj.status?.lastExitCode).toBe(lastExit);
          await eventually('every check Pod to be deleted', async () => ((await checkPods(s)).length === 0 ? true : undefined));
        },
        {
          env: {
            WAITGATE_WAIT_MAX_FAULTS: '1',
            WAITGATE_WAIT_MAX_MS: '4000',
            WAITGATE_WAIT_CHECK_TIMEOUT_MS: '4000',
            // The unschedulable Pod is a fault once this has passed. Only that row gets the short
            // bound: on two loaded cores a Pod that does schedule may take more than 3 s to start,
            // and with one fault allowed the others would end wait-unanswerable for it.
            WAITGATE_POD_START_TIMEOUT_MS: profile === 'huge' ? '3000' : String(Timeouts.startMs),
          },
          configMaps: {
            'waitgate-profiles': podProfiles({
              go: { exitCode: '0' },
              notyet: { exitCode: '3' },
              never: { exitCode: '2' },
              unsure: { exitCode: '1' },
              hangs: { exitCode: 'never' },
              huge: { resources: { requests: { cpu: '100000' } } },
            }),
          },
        },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'a check Pod left behind by a crashed operator is removed when the next one starts',
    () =>
      withScenario(
        'pod-orphan',
        async (s) => {
          await eventually('the orphan to be removed', async () => ((await checkPods(s)).length === 0 ? true : undefined));
          await s.operator.logged('Deleted orphaned check Pod');
        },
        {
          configMaps: { 'waitgate-profiles': podProfiles({ go: { exitCode: '0' } }) },
          pods: [
            {
              metadata: {
                name: 'waitgate-check-orphan',
                labels: { 'waitgate.dev/check': 'true', 'waitgate.dev/worker': 'waitgate' },
                annotations: { 'waitgate.dev/exit-code': 'never' },
              },
              spec: { restartPolicy: 'Never', containers: [{ name: 'check', image: 'busybox' }] },
            },
          ],
        },
      ),
    Timeouts.testMs,
  );
  test.concurrent(
    'a check Pod orphaned while the operator runs is swept periodically; a running check keeps its Pod',
    () =>
      withScenario(
        'pod-sweep',
        async (s) => {
          // A check that runs on (kwok keeps its Pod running) and is still in its timeout.
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile: 'slow' }] }));
          const running = await eventually('the running check Pod', async () => (await checkPods(s))[0]?.metadata?.name);
          // What a deletion that failed, or a create that answered an error after all, leaves.
          await s.kube.core.createNamespacedPod({
            namespace: s.namespace,
            body: {
              metadata: {
                name: 'waitgate-check-orphan-late',
                labels: { 'waitgate.dev/check': 'true', 'waitgate.dev/worker': 'waitgate' },
                annotations: { 'waitgate.dev/exit-code': 'never' },
              },
              spec: { restartPolicy: 'Never', containers: [{ name: 'check', image: 'busybox' }] },
            },
          });
          await eventually('the late orphan to be swept', async () =>
            (await checkPods(s)).some((p) => p.metadata?.name === 'waitgate-check-orphan-late') ? undefined : true,
          );
          // The line may come after the Pod is gone (the delete answers first): waited for.
          await s.operator.logged(
            (l) => l['msg'] === 'Deleted orphaned check Pod' && l['pod'] === 'waitgate-check-orphan-late' && l['sweep'] === 'periodic',
          );
          // Several sweeps later the running check's Pod is still there.
          await staysTrue(
            'the running check keeps its Pod',
            async () => (await checkPods(s)).some((p) => p.metadata?.name === running),
            Date.now() + 5 * SWEEP_MS,
          );
        },
        {
          env: { WAITGATE_CHECK_POD_SWEEP_MS: String(SWEEP_MS), WAITGATE_WAIT_CHECK_TIMEOUT_MS: '60000' },
          configMaps: { 'waitgate-profiles': podProfiles({ slow: { exitCode: 'never' } }) },
        },
      ),
    Timeouts.testMs,
  );
});

describe('pod mode is the default: exec is only ever chosen', () => {
  /** A profile as a new install writes it: no mode, no image. */
  const silentProfile = (exitCode: string) => ({
    'profiles.json': JSON.stringify({ plain: { script: 'check.sh', annotations: { 'waitgate.dev/exit-code': exitCode } } }),
    'check.sh': SCRIPT,
  });

  test.concurrent(
    "a profile naming no mode and no image runs in a Pod of the operator's check image, with no token",
    () =>
      withScenario(
        'pod-default',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile: 'plain' }] }));
          const pod = await eventually('a check Pod', async () => (await checkPods(s))[0]);
          expect(pod.spec?.containers[0]?.image).toBe('registry.example/waitgate:check');
          expect(pod.spec?.automountServiceAccountToken).toBe(false);
          const hj = await eventually(
            `${NAME} to succeed`,
            async () => {
              const h = await s.kube.getHeldJob(s.namespace, NAME);
              return h?.status?.phase === Phase.Succeeded ? h : undefined;
            },
            Timeouts.jobMs,
          );
          expect(hj.status?.lastExitCode).toBe(0);
        },
        { env: { WAITGATE_CHECK_IMAGE: 'registry.example/waitgate:check' }, configMaps: { 'waitgate-profiles': silentProfile('0') } },
      ),
    Timeouts.testMs,
  );

  test.concurrent(
    'with no image anywhere, the hold pauses and says which variable to set; setting none of it runs anything',
    () =>
      withScenario(
        'pod-noimage',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile: 'plain' }] }));
          const hj = await eventually(
            `${NAME} to say its profiles are unreadable`,
            async () => {
              const h = await s.kube.getHeldJob(s.namespace, NAME);
              const waiting = h?.status?.conditions?.find((c) => c.type === 'Waiting');
              return waiting?.reason === 'ProfilesUnreadable' ? h : undefined;
            },
            Timeouts.jobMs,
          );
          expect(hj.status?.phase).toBe(Phase.Held);
          expect(hj.status?.conditions?.find((c) => c.type === 'Waiting')?.message).toMatch(/WAITGATE_CHECK_IMAGE/);
          await staysTrue('no check Pod', async () => (await checkPods(s)).length === 0, Date.now() + 2000);
        },
        { env: { WAITGATE_CHECK_IMAGE: '' }, configMaps: { 'waitgate-profiles': silentProfile('0') } },
      ),
    Timeouts.testMs,
  );
});

describe('check Pods on a slow cluster: the start has its own timeout', () => {
  test.concurrent.each<[string, string, string, string | undefined, RegExp | undefined]>([
    [
      'Pending longer than the check timeout, shorter than the start timeout: its answer still counts',
      'slowstart',
      Phase.Succeeded,
      undefined,
      undefined,
    ],
    [
      'Pending past the start timeout: a fault that says so',
      'neverstarts',
      Phase.Refused,
      RefusalToken.Unanswerable,
      /^neverstarts: check Pod did not start within 15 s: \w+ \(could-not-tell\)/,
    ],
  ])(
    '%s',
    (_n, profile, phase, reason, faultMessage) =>
      withScenario(
        `pod-${profile}`,
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile }] }));
          const hj = await eventually(
            `${NAME} to reach ${phase}`,
            async () => {
              const h = await s.kube.getHeldJob(s.namespace, NAME);
              return h?.status?.phase === phase ? h : undefined;
            },
            Timeouts.jobMs,
          );
          if (reason) expect(hj.status?.reason).toBe(reason);
          if (faultMessage) {
            const event = await eventually('the check Event', async () =>
              (await s.kube.eventsFor(s.namespace, NAME)).find((e) => faultMessage.test(e.message ?? '')),
            );
            expect(event.type).toBe('Warning');
          }
          await eventually('every check Pod to be deleted', async () => ((await checkPods(s)).length === 0 ? true : undefined));
        },
        {
          env: {
            WAITGATE_WAIT_MAX_FAULTS: '1',
            // 3 s: the answer, due half a second after the start, still lands inside it on two
            // loaded cores (at 2 s a CI run timed it out), and the 4 s Pending stays past it.
            WAITGATE_WAIT_CHECK_TIMEOUT_MS: '3000',
            // Wide margins: under a loaded run, scheduling and kwok's start lag by seconds.
            WAITGATE_POD_START_TIMEOUT_MS: '15000',
          },
          configMaps: {
            'waitgate-profiles': podProfiles({
              // Starts 4 s after its creation (past the 3 s check timeout, well inside the 15 s
              // start timeout) and answers go half a second later.
              slowstart: { exitCode: '0', startAfter: '4s' },
              neverstarts: { exitCode: '0', startAfter: '60s' },
            }),
          },
        },
      ),
    Timeouts.testMs,
  );
});
