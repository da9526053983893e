// Every file in examples/ applies as it stands, through the real kube-apiserver (its schema,
// CEL rules and admission): a file that names no namespace is applied server-side into the
// test's own namespace; one that names a namespace is applied there with --dry-run=server (the
// namespace made first when missing, as the files' comments tell a user to). Then the
// examples work together: an operator reading the example ConfigMaps' data holds the example
// HeldJobs as the files say, and refuses neither.
import { afterAll, describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { PROFILES_CONFIGMAP } from '../../api/profiles.js';
import { TRIGGERS_CONFIGMAP } from '../../api/triggers/triggers-file.js';
import { ConditionReason, ConditionType, HELDJOB_KIND, Phase } from '../../api/vocabulary.js';
import { kubectl } from '../support/chart.js';
import { ROOT } from '../support/env.js';
import { TestKube } from '../support/kube.js';
import { phaseReached, withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const EXAMPLES = join(ROOT, 'examples');
const FILES = readdirSync(EXAMPLES)
  .filter((f) => /\.(ya?ml|json)$/.test(f))
  .sort();

interface Manifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly data?: Record<string, string>;
  readonly spec?: { readonly target?: string };
}

/** The documents of an example file, as they are written. */
function manifests(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(join(EXAMPLES, file), 'utf8'))
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

const kube = new TestKube();
let namespace: string | undefined;
async function testNamespace(): Promise<string> {
  namespace ??= await kube.createNamespace('examples');
  return namespace;
}
afterAll(async () => {
  if (namespace) await kube.deleteNamespace(namespace);
});

/** A namespace a file names, made when the cluster lacks it (kept: files applied later may need it too). */
async function ensureNamespace(name: string): Promise<void> {
  const r = await kubectl(['create', 'namespace', name]);
  if (r.code !== 0 && !/AlreadyExists|already exists/.test(r.stderr)) throw new Error(`kubectl create namespace ${name}: ${r.stderr}`);
}

describe('examples/', () => {
  test('holds example files', () => {
    expect(FILES).toEqual(expect.arrayContaining(['heldjob.yaml', 'profiles-configmap.yaml', 'triggers-configmap.yaml']));
  });

  test.each(FILES)(
    '%s applies as it stands',
    async (file) => {
      const docs = manifests(file);
      expect(docs.length).toBeGreaterThan(0);
      const named = [...new Set(docs.map((d) => d.metadata?.namespace).filter((n): n is string => n !== undefined))];
      const path = join(EXAMPLES, file);
      const args = ['apply', '--server-side', '--field-manager=waitgate-examples-test', '-f', path];
      let r;
      if (named.length > 0) {
        for (const n of named) await ensureNamespace(n);
        r = await kubectl([...args, '--dry-run=server']);
      } else {
        r = await kubectl([...args, '-n', await testNamespace()]);
      }
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} was refused:\n${r.stderr}${r.stdout}`);
      expect(r.stdout).toMatch(/serverside-applied/);
      // Each document, by kind and name, was applied.
      for (const d of docs) expect(r.stdout.toLowerCase()).toContain(`/${d.metadata?.name ?? ''} serverside-applied`);
    },
    Timeouts.testMs,
  );

  test('no example HeldJob targets the repository `make up` tells users to send deliveries for', () => {
    // A hold that launched refuses another delivery of its trigger for its target for 15
    // minutes (wait-superseded); `make up` suggests `hack/send-delivery.sh waitgate:deploy acme/web N`.
    const targets = FILES.flatMap(manifests)
      .filter((m) => m.kind === HELDJOB_KIND)
      .map((m) => m.spec?.target ?? '');
    expect(targets.length).toBeGreaterThan(0);
    for (const t of targets) expect(t).not.toMatch(/^acme\/web[#!]/);
  });
});

/** The data of the example ConfigMap named `name`. */
function exampleConfigMap(name: string): Record<string, string> {
  const cm = FILES.flatMap(manifests).find((m) => m.kind === 'ConfigMap' && m.metadata?.name === name);
  if (!cm?.data) throw new Error(`no example ConfigMap ${name} in examples/`);
  return cm.data;
}

const WINDOW_OPEN = '/tmp/waitgate-deploy-window-open';

describe('the examples together', () => {
  test(
    "an operator with the example ConfigMaps holds heldjob.yaml on its profile and runs heldjob-after.yaml's Job, refusing neither",
    async () => {
      await withScenario(
        'examples-run',
        async (s: Scenario) => {
          for (const file of ['heldjob.yaml', 'heldjob-after.yaml']) {
            const r = await kubectl(['apply', '--server-side', '-n', s.namespace, '-f', join(EXAMPLES, file)]);
            if (r.code !== 0) throw new Error(`kubectl apply -f examples/${file}: ${r.stderr}`);
          }
          const [windowName, afterName] = ['heldjob.yaml', 'heldjob-after.yaml'].map((f) => manifests(f)[0]?.metadata?.name ?? '');

          // heldjob.yaml: its profile's check answers, "not yet" unless the window is open here.
          const checked = await eventually(`${windowName} to have its first check answered`, async () => {
            const hj = await s.kube.getHeldJob(s.namespace, windowName as string);
            return hj?.status?.lastExitCode !== undefined || hj?.status?.phase === Phase.Refused ? hj : undefined;
          });
          expect(checked.status?.reason ?? '').toBe('');
          if (existsSync(WINDOW_OPEN)) {
            expect(checked.status?.lastExitCode).toBe(0);
          } else {
            expect(checked.status).toMatchObject({ phase: Phase.Held, lastExitCode: 3 });
          }
          expectMatchesTrigger(checked);

          // heldjob-after.yaml: its instant has passed, so its Job runs now, and ends well.
          const done = await phaseReached(s, afterName as string, Phase.Succeeded, Timeouts.jobMs);
          expectMatchesTrigger(done);
        },
        {
          configMaps: {
            [PROFILES_CONFIGMAP]: exampleConfigMap(PROFILES_CONFIGMAP),
            [TRIGGERS_CONFIGMAP]: exampleConfigMap(TRIGGERS_CONFIGMAP),
          },
        },
      );
    },
    Timeouts.testMs,
  );
});

/** The example's trigger is in the example triggers file, and its waits agree with it. */
function expectMatchesTrigger(hj: HeldJobObject): void {
  const trigger = hj.status?.conditions?.find((c) => c.type === ConditionType.TriggerChecked);
  expect(trigger).toMatchObject({ status: 'True', reason: ConditionReason.Matches });
}
