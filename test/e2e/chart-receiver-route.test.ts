// The receiver reachable from a forge (receiver.ingress, receiver.httpRoute): only the webhook
// path, to the receiver Service's webhook port, never a metrics port; the URL a forge must call
// in the install notes; the Ingress accepted by the real apiserver, and the HTTPRoute too where
// the Gateway API CRDs are installed.
import { describe, expect, test } from '@jest/globals';
import { CHART_DIR, installNotes, kubectl, manifest, RELEASE, renderChart, runTool, valuesFile, type Manifest } from '../support/chart.js';
import { TestKube } from '../support/kube.js';
import { Timeouts } from '../support/timeouts.js';

const RECEIVER = `${RELEASE}-receiver`;
const VALKEY = ['--set', 'valkey.url=redis://valkey:6379'];
const HTTPROUTES_CRD = 'httproutes.gateway.networking.k8s.io';

const spec = (m: Manifest) => m['spec'] as Record<string, unknown>;
const routes = (ms: Manifest[]) => ms.filter((m) => m.kind === 'Ingress' || m.kind === 'HTTPRoute');
const render = (values: object, args: string[] = []) => renderChart('team-a', [...VALKEY, '-f', valuesFile('route', values), ...args]);
/** The Ingress backend every rule must have: the receiver Service, by its webhook port's name. */
const webhookBackend = { service: { name: RECEIVER, port: { name: 'http' } } };
const webhookPath = (path: string) => ({ paths: [{ path, pathType: 'Prefix', backend: webhookBackend }] });

/** The receiver Service exposes the webhook port only, and it leads to the container's webhook port. */
function expectWebhookPortOnly(ms: Manifest[], servicePort: number): void {
  expect(spec(manifest(ms, 'Service', RECEIVER))['ports']).toEqual([
    { name: 'http', port: servicePort, targetPort: 'http', protocol: 'TCP' },
  ]);
  const container = (
    spec(manifest(ms, 'Deployment', RECEIVER)) as { template: { spec: { containers: { ports: object[]; env: object[] }[] } } }
  ).template.spec.containers[0];
  expect(container?.ports).toContainEqual({ name: 'http', containerPort: 8080, protocol: 'TCP' });
  expect(container?.env).toContainEqual({ name: 'WAITGATE_RECEIVER_PORT', value: '8080' });
  expect(container?.ports).toContainEqual({ name: 'metrics', containerPort: 8082, protocol: 'TCP' });
}

describe('receiver.ingress', () => {
  test.concurrent(
    'off by default: no Ingress and no HTTPRoute',
    async () => {
      expect(routes(await renderChart('team-a', VALKEY))).toEqual([]);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'routes /webhooks, by prefix, for each host, to the receiver Service by its webhook port; class, annotations and TLS as given',
    async () => {
      const tls = [{ secretName: 'waitgate-tls', hosts: ['hooks.example.com'] }];
      const ms = await render({
        receiver: {
          ingress: {
            enabled: true,
            className: 'nginx',
            annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
            hosts: ['hooks.example.com', 'hooks.example.org'],
            tls,
          },
        },
      });
      expect(routes(ms).map((m) => m.kind)).toEqual(['Ingress']);
      const ingress = manifest(ms, 'Ingress', RECEIVER);
      expect(ingress.metadata.namespace).toBe('team-a');
      expect(ingress.metadata['annotations']).toEqual({ 'cert-manager.io/cluster-issuer': 'letsencrypt' });
      expect(spec(ingress)).toEqual({
        ingressClassName: 'nginx',
        tls,
        rules: [
          { host: 'hooks.example.com', http: webhookPath('/webhooks') },
          { host: 'hooks.example.org', http: webhookPath('/webhooks') },
        ],
      });
      expectWebhookPortOnly(ms, 80);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    "no host: one rule for any host; one forge's path alone",
    async () => {
      const any = manifest(await render({ receiver: { ingress: { enabled: true } } }), 'Ingress', RECEIVER);
      expect(spec(any)).toEqual({ rules: [{ http: webhookPath('/webhooks') }] });
      const github = manifest(
        await render({ receiver: { ingress: { enabled: true, hosts: ['hooks.example.com'], path: '/webhooks/github' } } }),
        'Ingress',
        RECEIVER,
      );
      expect(spec(github)['rules']).toEqual([{ host: 'hooks.example.com', http: webhookPath('/webhooks/github') }]);
    },
    Timeouts.testMs,
  );
});

describe('receiver.httpRoute', () => {
  test.concurrent(
    'routes the /webhooks prefix of its hostnames, from the Gateways named, to the receiver Service port',
    async () => {
      const parentRefs = [{ name: 'public', namespace: 'gateways', sectionName: 'https' }];
      const ms = await render({
        receiver: {
          httpRoute: { enabled: true, parentRefs, hostnames: ['hooks.example.com'], annotations: { 'example.com/team': 'ci' } },
        },
      });
      expect(routes(ms).map((m) => m.kind)).toEqual(['HTTPRoute']);
      const route = manifest(ms, 'HTTPRoute', RECEIVER);
      expect(route['apiVersion']).toBe('gateway.networking.k8s.io/v1');
      expect(route.metadata.namespace).toBe('team-a');
      expect(route.metadata['annotations']).toEqual({ 'example.com/team': 'ci' });
      expect(spec(route)).toEqual({
        parentRefs,
        hostnames: ['hooks.example.com'],
        rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/webhooks' } }], backendRefs: [{ name: RECEIVER, port: 80 }] }],
      });
      expectWebhookPortOnly(ms, 80);

      // The backend follows the Service's port; no hostnames: the Gateway's.
      const moved = await render({
        receiver: { service: { port: 8443 }, httpRoute: { enabled: true, parentRefs, path: '/webhooks/gitlab' } },
      });
      expect(spec(manifest(moved, 'HTTPRoute', RECEIVER))).toEqual({
        parentRefs,
        rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/webhooks/gitlab' } }], backendRefs: [{ name: RECEIVER, port: 8443 }] }],
      });
      expectWebhookPortOnly(moved, 8443);
    },
    Timeouts.testMs,
  );
});

describe('refused', () => {
  test.concurrent.each<[string, string[], RegExp]>([
    ['a path outside /webhooks', ['--set', 'receiver.ingress.path=/'], /\/receiver\/ingress\/path'/],
    ['the health path', ['--set', 'receiver.httpRoute.path=/healthz'], /\/receiver\/httpRoute\/path'/],
    ['the metrics path', ['--set', 'receiver.ingress.path=/metrics'], /\/receiver\/ingress\/path'/],
    ['a host that is a URL', ['--set-json', 'receiver.ingress.hosts=["https://hooks.example.com"]'], /\/receiver\/ingress\/hosts\/0'/],
    [
      'a parentRef without a name',
      ['--set-json', 'receiver.httpRoute.parentRefs=[{"namespace":"gw"}]'],
      /\/receiver\/httpRoute\/parentRefs\/0'/,
    ],
    ['a value the Ingress does not have', ['--set', 'receiver.ingress.host=x'], /additional properties 'host' not allowed/],
  ])(
    '`helm lint` fails on %s, naming the value',
    async (_what, args, message) => {
      const r = await runTool('helm', ['lint', CHART_DIR, ...VALKEY, ...args]);
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toMatch(/values don't meet the specifications of the schema/);
      expect(r.stdout + r.stderr).toMatch(message);
    },
    Timeouts.testMs,
  );

  test.concurrent.each<[string, string[], RegExp]>([
    ['an HTTPRoute attached to no Gateway', ['--set', 'receiver.httpRoute.enabled=true'], /receiver\.httpRoute\.parentRefs is empty/],
    [
      'an Ingress with no receiver',
      ['--set', 'receiver.ingress.enabled=true', '--set', 'receiver.enabled=false'],
      /receiver\.ingress\.enabled is true but receiver\.enabled is false/,
    ],
    [
      'an HTTPRoute with no receiver',
      [
        '--set',
        'receiver.httpRoute.enabled=true',
        '--set-json',
        'receiver.httpRoute.parentRefs=[{"name":"gw"}]',
        '--set',
        'receiver.enabled=false',
      ],
      /receiver\.httpRoute\.enabled is true but receiver\.enabled is false/,
    ],
  ])(
    '`helm template` fails on %s, saying why',
    async (_what, args, message) => {
      const r = await runTool('helm', ['template', RELEASE, CHART_DIR, '-n', 'team-a', ...VALKEY, ...args]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(message);
    },
    Timeouts.testMs,
  );
});

describe('NOTES: the URL a forge must call', () => {
  const receiverSection = (notes: string) =>
    notes.slice(notes.indexOf('Receiver:'), notes.search(/^(Admission|Network|WARNING: Kubernetes)/m));

  test.concurrent(
    'no Ingress or HTTPRoute: the Service is cluster-internal, and a port-forward reaches it from here',
    async () => {
      const notes = receiverSection(await installNotes('team-a', VALKEY));
      expect(notes).toMatch(
        /Its Service waitgate-receiver\.team-a\.svc is cluster-internal: a forge outside the\s+cluster cannot reach it/,
      );
      expect(notes).toMatch(/^ +kubectl -n team-a port-forward svc\/waitgate-receiver 8080:80$/m);
      expect(notes).toMatch(/http:\/\/localhost:8080\/webhooks\/github, \/webhooks\/gitlab or \/webhooks\/azure/);
      // No forge is told to call a name only the cluster resolves.
      expect(notes).not.toMatch(/Point forge webhooks at/);
      expect(notes).not.toMatch(/https?:\/\/waitgate-receiver/);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'an Ingress with a host: https:// URLs for GitHub and GitLab where its TLS covers the host, http:// and a warning where not',
    async () => {
      const notes = receiverSection(
        await installNotes('team-a', [
          ...VALKEY,
          '-f',
          valuesFile('route-notes', {
            receiver: {
              ingress: {
                enabled: true,
                hosts: ['hooks.example.com', 'plain.example.com'],
                tls: [{ secretName: 'hooks-tls', hosts: ['hooks.example.com'] }],
              },
            },
          }),
        ]),
      );
      const urls = [...notes.matchAll(/^ +(https?:\/\/\S+)$/gm)].map((m) => m[1]);
      expect(urls).toEqual([
        'https://hooks.example.com/webhooks/github',
        'https://hooks.example.com/webhooks/gitlab',
        'https://hooks.example.com/webhooks/azure',
        'http://plain.example.com/webhooks/github',
        'http://plain.example.com/webhooks/gitlab',
        'http://plain.example.com/webhooks/azure',
      ]);
      expect(notes).toMatch(/WARNING: no receiver\.ingress\.tls entry covers plain\.example\.com/);
      expect(notes).not.toMatch(/covers hooks\.example\.com/);
      expect(notes).not.toMatch(/port-forward|cluster-internal/);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    "an HTTPRoute with hostnames: https:// URLs (TLS is the Gateway's); one forge's path: that URL alone",
    async () => {
      const notes = receiverSection(
        await installNotes('team-a', [
          ...VALKEY,
          '-f',
          valuesFile('route-notes', {
            receiver: {
              httpRoute: { enabled: true, parentRefs: [{ name: 'public' }], hostnames: ['hooks.example.com'], path: '/webhooks/gitlab' },
            },
          }),
        ]),
      );
      expect([...notes.matchAll(/^ +(https?:\/\/\S+)$/gm)].map((m) => m[1])).toEqual(['https://hooks.example.com/webhooks/gitlab']);
      expect(notes).not.toMatch(/WARNING|port-forward/);
    },
    Timeouts.testMs,
  );

  test.concurrent(
    'a route without a host: where to read the address; a LoadBalancer Service: its address',
    async () => {
      const ingress = receiverSection(await installNotes('team-a', [...VALKEY, '--set', 'receiver.ingress.enabled=true']));
      expect(ingress).toMatch(/Ingress waitgate-receiver, which names no host/);
      expect(ingress).toMatch(/kubectl -n team-a get ingress waitgate-receiver/);
      const lb = receiverSection(await installNotes('team-a', [...VALKEY, '--set', 'receiver.service.type=LoadBalancer']));
      expect(lb).toMatch(/http:\/\/ADDRESS:80\/webhooks\/github \(or \/webhooks\/gitlab, \/webhooks\/azure\)/);
      expect(lb).not.toMatch(/cluster-internal/);
    },
    Timeouts.testMs,
  );
});

describe('on the real apiserver', () => {
  test.concurrent(
    '`kubectl apply --dry-run=server` accepts the Ingress, and the HTTPRoute where the Gateway API CRDs are installed',
    async () => {
      const kube = new TestKube();
      const ns = await kube.createNamespace('chart-route');
      try {
        const parentRefs = [{ name: 'public', namespace: 'gateways', sectionName: 'https' }];
        const ms = await renderChart(ns, [
          ...VALKEY,
          '-f',
          valuesFile('route-dry', {
            receiver: {
              ingress: {
                enabled: true,
                hosts: ['hooks.example.com'],
                tls: [{ secretName: 'hooks-tls', hosts: ['hooks.example.com'] }],
              },
              httpRoute: { enabled: true, parentRefs, hostnames: ['hooks.example.com'] },
            },
          }),
        ]);
        const dryRun = (m: Manifest) => kubectl(['apply', '--dry-run=server', '-n', ns, '-f', '-'], { input: JSON.stringify(m) });
        const ingress = await dryRun(manifest(ms, 'Ingress', RECEIVER));
        expect(ingress.stderr).toBe('');
        expect(ingress.stdout).toMatch(/ingress\.networking\.k8s\.io\/waitgate-receiver created \(server dry run\)/);

        const crd = await kubectl(['get', 'crd', HTTPROUTES_CRD, '-o', 'name']);
        if (crd.code !== 0) {
          // No Gateway API here: what was rendered is checked above; the apiserver cannot judge it.
          expect(crd.stderr).toMatch(/NotFound/);
          return;
        }
        const route = await dryRun(manifest(ms, 'HTTPRoute', RECEIVER));
        expect(route.stderr).toBe('');
        expect(route.stdout).toMatch(/httproute\.gateway\.networking\.k8s\.io\/waitgate-receiver created \(server dry run\)/);
      } finally {
        await kube.deleteNamespace(ns);
      }
    },
    Timeouts.testMs,
  );
});
