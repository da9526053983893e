import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import {
  FakeHeldJobRecords,
  FakeHoldHistory,
  FakeLeaseStore,
  FakeOnceRecords,
  labelEvent,
  labelTrigger,
  recordingLog,
} from '../../test/support/fakes-receiver.js';
import { Deliverer } from '../delivery/deliver.js';
import { ConfigMapTriggerView } from './config-maps.js';

// Never started: the test hands it ConfigMap events as its informer would.
function view(): ConfigMapTriggerView {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new ConfigMapTriggerView(kc, 'waitgate-system', recordingLog().log);
}

const cm = (name: string, data: Record<string, string>): k8s.V1ConfigMap => ({ metadata: { name, namespace: 'waitgate-system' }, data });
const profiles = cm('waitgate-profiles', { 'profiles.json': JSON.stringify({ ci: { mode: 'exec', script: 'ci.sh' } }), 'ci.sh': 'exit 0' });
const onJira = labelTrigger({ waitFor: [{ profile: 'jira' }] });
const triggers = cm('waitgate-triggers', { 'triggers.json': JSON.stringify([{ name: onJira.name, on: onJira.on, run: onJira.run }]) });

describe('ConfigMapTriggerView: the profiles it declares', () => {
  test.each<[string, (v: ConfigMapTriggerView) => void, object]>([
    ['no waitgate-profiles ConfigMap seen yet (never created): cannot be read', () => {}, { state: 'unreadable' }],
    ['a ConfigMap that loads: its names', (v) => v.apply('add', profiles), { state: 'ok', names: new Set(['ci']) }],
    [
      'one that declares nothing: none',
      (v) => v.apply('add', cm('waitgate-profiles', { 'profiles.json': '{}' })),
      { state: 'ok', names: new Set() },
    ],
    [
      'one that does not load: cannot be read',
      (v) => v.apply('add', cm('waitgate-profiles', { 'profiles.json': '{' })),
      { state: 'unreadable' },
    ],
    [
      'deleted after it loaded: cannot be read',
      (v) => {
        v.apply('add', profiles);
        v.apply('delete', profiles);
      },
      { state: 'unreadable' },
    ],
    [
      'created again after a deletion: its names',
      (v) => {
        v.apply('add', profiles);
        v.apply('delete', profiles);
        v.apply('add', profiles);
      },
      { state: 'ok', names: new Set(['ci']) },
    ],
    ['another ConfigMap changes nothing', (v) => v.apply('add', cm('something-else', {})), { state: 'unreadable' }],
  ])('%s', (_name, events, expected) => {
    const v = view();
    events(v);
    expect(v.profiles()).toEqual(expected);
  });
});

describe('a missing profiles ConfigMap never refuses a delivery at the receiver', () => {
  test.each<[string, (v: ConfigMapTriggerView) => void]>([
    ['never created', () => {}],
    [
      'deleted',
      (v) => {
        v.apply('add', profiles);
        v.apply('delete', profiles);
      },
    ],
  ])('%s: the hold is created and the verdict left to the operator', async (_name, events) => {
    const v = view();
    v.apply('add', triggers);
    events(v);
    const records = new FakeHeldJobRecords();
    const now = () => Date.parse('2026-09-01T08:00:00Z');
    const leases = new FakeLeaseStore(now);
    const deliverer = new Deliverer({
      view: v,
      records,
      once: new FakeOnceRecords(),
      leases,
      history: new FakeHoldHistory(leases, new ValkeyKeys('wg')),
      namespace: 'jobs',
      keys: new ValkeyKeys('wg'),
      afterMaxMs: 30 * 86_400_000,
      now,
      log: recordingLog().log,
      lockWaitMs: 0,
    });
    expect(await deliverer.deliver(labelEvent())).toMatchObject({ outcome: 'handled', results: [{ trigger: 'deploy', outcome: 'held' }] });
    expect(records.created.map((m) => m.metadata.annotations['waitgate.dev/refusal'])).toEqual([undefined]);
    expect(records.marked).toEqual([]);
  });
});
