// What an exec check sees of the operator's environment, through a real operator and real
// scripts. The operator is given a secret-looking variable (and has VALKEY_URL and KUBECONFIG,
// as every operator does); output is never read, so each script answers by its exit code: go
// when it sees exactly what it should, could not tell (1) otherwise, and one fault refuses.
import { describe, expect, test } from '@jest/globals';
import { Phase } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import { fixtureScript, profilesConfigMap } from '../support/profiles.js';
import { phaseReached, withScenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';

const NAME = 'web-7-deploy';
const GIVEN = { WAITGATE_TEST_SECRET: 'hunter2', WAITGATE_TEST_ALLOWED: 'yes', WAITGATE_WAIT_MAX_FAULTS: '1' };

describe("exec checks see an allow-list of the operator's environment, and can still read the operator's own", () => {
  test.concurrent.each<[string, string, Record<string, string>]>([
    [
      'by default: PATH and the allowed names, no secret, no VALKEY_URL, no KUBECONFIG',
      'env-allow-list.sh',
      { WAITGATE_CHECK_ENV_ALLOW: 'WAITGATE_TEST_ALLOWED' },
    ],
    ['with WAITGATE_CHECK_ENV_INHERIT=true: everything, the secret included', 'env-inherited.sh', { WAITGATE_CHECK_ENV_INHERIT: 'true' }],
    // The allow-list stops accidental leaks, not a script that looks: its parent is the
    // operator, the same user, and /proc hands out the operator's environment whole.
    [
      "what the allow-list does not stop: the operator's whole environment, read back from /proc/$PPID/environ",
      'env-parent-environ.sh',
      {},
    ],
  ])(
    '%s',
    (_name, script, env) =>
      withScenario(
        'check-env',
        async (s) => {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: NAME, waitFor: [{ profile: 'env' }] }));
          const hj = await phaseReached(s, NAME, Phase.Succeeded);
          expect(hj.status?.lastExitCode).toBe(0);
        },
        { env: { ...GIVEN, ...env }, configMaps: { 'waitgate-profiles': profilesConfigMap({ env: fixtureScript(script) }) } },
      ),
    Timeouts.testMs,
  );
});
