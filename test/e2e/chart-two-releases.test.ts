// Two releases of the chart in one namespace (issue #36): every object is named after its
// release, so both `helm install`s succeed side by side; each release's operator, run as that
// release's ServiceAccount with the env its Deployment was rendered with, reads its own
// ConfigMaps (named after the release), leads on its own Lease, and serves a HeldJob in the
// namespace it watches, with its own profiles and none of the other's.
import { describe, expect, test } from '@jest/globals';
import { join } from 'node:path';
import { Phase, RefusalToken } from '../../api/vocabulary.js';
import { heldJob } from '../support/builders.js';
import {
  baseValues,
  CHART_DIR,
  deploymentEnv,
  helm,
  kubectl,
  mustRun,
  runTool,
  serviceAccountKubeconfig,
  valuesFile,
} from '../support/chart.js';
import { kubeconfigPath, requireEnv, ROOT } from '../support/env.js';
import { TestKube } from '../support/kube.js';
import { fixtureScript } from '../support/profiles.js';
import { operatorProcess, type ServiceProcess } from '../support/service-process.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

interface Release {
  readonly name: string;
  /** The namespace its operator watches, where its HeldJob is made. */
  readonly watch: string;
  /** Its one profile, which the other release does not declare. */
  readonly profile: string;
}

describe('two releases in one namespace', () => {
  test(
    'both install; each operator reads its own ConfigMaps, leads on its own Lease and serves its own namespace with its own profiles',
    async () => {
      const kube = new TestKube();
      const home = await kube.createNamespace('two-releases');
      const alpha: Release = { name: 'alpha', watch: await kube.createNamespace('two-releases-a'), profile: 'alpha-go' };
      const beta: Release = { name: 'beta', watch: await kube.createNamespace('two-releases-b'), profile: 'beta-go' };
      const installed: string[] = [];
      const operators: ServiceProcess[] = [];
      try {
        for (const r of [alpha, beta]) {
          const values = {
            ...baseValues(home),
            valkey: { url: requireEnv('VALKEY_URL'), prefix: `test-${home}-${r.name}` },
            watchNamespace: r.watch,
            workerName: r.name,
            // Its HeldJobs are written by the test, not delivered: no receiver.
            receiver: { enabled: false },
            // Exec mode: the operator runs here as a host process, so its checks run as ones too.
            profiles: { [r.profile]: { mode: 'exec', script: fixtureScript('exit-0.sh') } },
          };
          await mustRun('helm', [
            'install',
            r.name,
            CHART_DIR,
            '-n',
            home,
            '-f',
            valuesFile(`${home}-${r.name}`, values),
            '--kubeconfig',
            kubeconfigPath(),
          ]);
          installed.push(r.name);
        }

        // Each release's own ConfigMaps, with its own profile only.
        const cms = await kubectl(['get', 'configmaps', '-n', home, '-l', 'app.kubernetes.io/part-of=waitgate', '-o', 'name']);
        expect(cms.stdout.trim().split('\n').sort()).toEqual([
          'configmap/alpha-waitgate-profiles',
          'configmap/alpha-waitgate-triggers',
          'configmap/beta-waitgate-profiles',
          'configmap/beta-waitgate-triggers',
        ]);

        for (const r of [alpha, beta]) {
          const deployment = `${r.name}-waitgate-operator`;
          const env = await deploymentEnv(kube, home, deployment);
          expect(env).toMatchObject({
            WAITGATE_NAMESPACE: home,
            WAITGATE_WATCH_NAMESPACE: r.watch,
            WAITGATE_PROFILES_CONFIGMAP: `${r.name}-waitgate-profiles`,
            WAITGATE_TRIGGERS_CONFIGMAP: `${r.name}-waitgate-triggers`,
            WAITGATE_LEADER_ELECTION: 'true',
            WAITGATE_LEADER_ELECTION_ID: deployment,
          });
          const operator = operatorProcess(
            {
              ...env,
              KUBECONFIG: await serviceAccountKubeconfig(kube, home, `${r.name}-waitgate-operator`),
              // The kubelet fills this from the release's Secret in a pod.
              VALKEY_URL: requireEnv('VALKEY_URL'),
              WAITGATE_LOG_LEVEL: 'debug',
              // Outside a pod: no mounted ConfigMap (it writes the scripts from the ConfigMap itself).
              WAITGATE_PROFILES_DIR: '',
              WAITGATE_METRICS_HOST: '127.0.0.1',
              WAITGATE_METRICS_PORT: '0',
            },
            `${home}-${r.name}-operator`,
          );
          operators.push(operator);
          await operator.start();
        }
        const [alphaOp, betaOp] = operators as [ServiceProcess, ServiceProcess];
        // Both lead at once: each on its own Lease.
        await alphaOp.logged('Became leader', Timeouts.startMs);
        await betaOp.logged('Became leader', Timeouts.startMs);
        await alphaOp.logged((l) => l['msg'] === 'Loaded profiles' && JSON.stringify(l['profiles']) === JSON.stringify([alpha.profile]));
        await betaOp.logged((l) => l['msg'] === 'Loaded profiles' && JSON.stringify(l['profiles']) === JSON.stringify([beta.profile]));

        // A HeldJob in each watched namespace waiting for its release's profile, and one in
        // alpha's asking for beta's profile, which alpha does not declare.
        await kube.createHeldJob(alpha.watch, heldJob({ name: 'served', waitFor: [{ profile: alpha.profile }], exitCode: 0 }));
        await kube.createHeldJob(beta.watch, heldJob({ name: 'served', waitFor: [{ profile: beta.profile }], exitCode: 0 }));
        await kube.createHeldJob(alpha.watch, heldJob({ name: 'not-mine', waitFor: [{ profile: beta.profile }], exitCode: 0 }));

        for (const r of [alpha, beta]) {
          const hj = await eventually(
            `${r.watch}/served to succeed`,
            async () => {
              const got = await kube.getHeldJob(r.watch, 'served');
              return got?.status?.phase === Phase.Succeeded ? got : undefined;
            },
            Timeouts.jobMs,
          );
          expect(hj.status).toMatchObject({ checks: 1, lastExitCode: 0 });
        }
        const notMine = await eventually('alpha to refuse the profile only beta declares', async () => {
          const got = await kube.getHeldJob(alpha.watch, 'not-mine');
          return got?.status?.phase === Phase.Refused ? got : undefined;
        });
        expect(notMine.status?.reason).toBe(RefusalToken.ProfileUnknown);

        // Served by its own release: each operator checked its own profile, for its own namespace only.
        await alphaOp.logged((l) => l['msg'] === 'Checked profile' && l['profile'] === alpha.profile && l['exitCode'] === 0);
        await betaOp.logged((l) => l['msg'] === 'Checked profile' && l['profile'] === beta.profile && l['exitCode'] === 0);
        expect(alphaOp.logText()).not.toContain(beta.watch);
        expect(betaOp.logText()).not.toContain(alpha.watch);
        for (const op of operators) expect(op.logText()).not.toMatch(/forbidden/i);

        // doctor and check follow the names the installed operator is told: the first operator
        // Deployment of the namespace, alpha's, whose ConfigMaps are not waitgate-profiles.
        const cli = (args: string[]) =>
          runTool(process.execPath, [
            join(ROOT, 'bin', 'waitgate.js'),
            ...args,
            '--waitgate-namespace',
            home,
            '--kubeconfig',
            kubeconfigPath(),
          ]);
        const doctor = await cli(['doctor']);
        expect(doctor.stdout).toContain(`settings from Deployment ${home}/alpha-waitgate-operator`);
        expect(doctor.stdout).toContain(`${home}/alpha-waitgate-profiles declares 1 profile (${alpha.profile})`);
        expect(doctor.stdout).not.toContain(`cannot read ${home}/`);
        const check = await cli(['check', alpha.profile, 'acme/web#7']);
        expect([check.code, check.stderr]).toEqual([0, '']);
        const unknown = await cli(['check', beta.profile, 'acme/web#7']);
        expect(unknown.stderr).toContain(`profile ${beta.profile} is not declared in ${home}/alpha-waitgate-profiles`);
      } finally {
        for (const op of operators) await op.stop();
        for (const name of installed) await helm(['uninstall', name, '-n', home]);
        for (const ns of [home, alpha.watch, beta.watch]) await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs * 2,
  );
});
