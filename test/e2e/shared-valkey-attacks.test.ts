// Finding 6 of the tenancy issue, end to end: a fleet's clusters share one Valkey, so anyone
// holding a credential to it can write under waitgate's keys. What they plant (a launch marker
// that never expires, a hold lock that never expires or holds no token) must neither refuse a
// trigger for ever nor answer 503 for ever. The receiver runs as a process against the real
// apiserver and the real Valkey; the attacker is a plain Valkey client on the same prefix.
import { describe, expect, test } from '@jest/globals';
import { RefusalToken } from '../../api/vocabulary.js';
import { ValkeyKeys } from '../../lib/valkey/keys.js';
import { deliveryUuid, githubLabeled, post, resultsOf } from '../support/forge.js';
import { trigger, withReceiver, type ReceiverScenario } from '../support/receiver-scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { withRedis } from '../support/valkey.js';

const LABEL = 'waitgate:deploy';
const TARGET = 'acme/web#7';
const keysOf = (s: ReceiverScenario) => new ValkeyKeys(s.env['WAITGATE_VALKEY_PREFIX'] ?? '');
// A day ahead: nothing launches during the test, and the hold keeps waiting.
const aDayAhead = () => ({ after: new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z') });
const WARNING = 'Ignored a Valkey key no waitgate process wrote (another client of a shared Valkey?)';

describe('a shared Valkey: what another client plants refuses and blocks nothing', () => {
  test.concurrent.each<[string, 'marker' | 'lock', (redis: import('ioredis').Redis, key: string) => Promise<unknown>]>([
    // On 0a3c475 this marker refused every delivery of the trigger and target, for ever.
    ['a launch marker with no expiry, naming a HeldJob that is gone', 'marker', (r, k) => r.set(k, 'web-7-deploy-1a2b3c4d-3')],
    ['a launch marker that outlives its 15-minute window', 'marker', (r, k) => r.set(k, 'web-7-deploy-1a2b3c4d-3', 'PX', 86_400_000)],
    // On 0a3c475 this lock answered every delivery 503, for ever.
    ['a hold lock with no expiry', 'lock', (r, k) => r.set(k, 'aaaaaaaaaaaaaaaaaaaaaaaa')],
    ['a hold lock that is no token of waitgate', 'lock', (r, k) => r.set(k, 'mine', 'PX', 3_600_000)],
  ])(
    '%s: the delivery holds, and the receiver says what it ignored',
    (_what, kind, plant) =>
      withReceiver(`valkey-planted-${kind}`, { triggers: [trigger({ waitFor: [aDayAhead()] })] }, async (s) => {
        const keys = keysOf(s);
        const key = kind === 'marker' ? keys.finishedMarker('deploy', TARGET) : keys.holdLock('deploy', TARGET);
        await withRedis((redis) => plant(redis, key));

        const answer = await post(s.url, githubLabeled({ label: LABEL, deliveryId: deliveryUuid(`planted-${kind}`) }));
        expect(answer.status).toBe(202);
        const [result] = resultsOf(answer);
        expect(result).toEqual({ trigger: 'deploy', outcome: 'held', heldJob: expect.any(String) });
        const hj = await s.kube.getHeldJob(s.namespace, result!.heldJob);
        expect(hj?.metadata.annotations?.['waitgate.dev/refusal']).toBeUndefined();
        await s.receiver.logged((l) => l['msg'] === WARNING && l['kind'] === kind && l['target'] === TARGET);

        // And waitgate's own bookkeeping still works: a second delivery is superseded by the hold.
        const again = resultsOf(await post(s.url, githubLabeled({ label: LABEL, deliveryId: deliveryUuid(`planted-${kind}-2`) })));
        expect(again).toEqual([expect.objectContaining({ outcome: 'refused', token: RefusalToken.Superseded })]);
      }),
    Timeouts.testMs,
  );
});
