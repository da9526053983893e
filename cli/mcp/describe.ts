// describe_held_job's answer, pure: one HeldJob as data. Its spec's target, trigger and
// conditions, its phase and reason, each wait, each condition and the counters; never the
// Job template, an annotation or a label. Every string is cluster data: one line, bounded
// (dataText), and every list is capped, so a HeldJob cannot hand a model a wall of text.
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { TARGET_PATTERN } from '../../api/heldjob-schema.js';
import { Phase } from '../../api/vocabulary.js';
import { dataText, dataTextOrNull } from './data-text.js';
import type { DescribeData } from './schemas.js';

/** Caps on the lists: a spec has at most 4 conditions, a status one wait each and a few conditions. */
const MAX_WAIT_FOR = 8;
const MAX_WAITS = 8;
const MAX_CONDITIONS = 16;
const MAX_PROFILES = 8;
/** Free text (messages, details) is cut here. */
const MESSAGE_MAX = 300;

const TARGET = new RegExp(TARGET_PATTERN);

const asRecord = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
const time = (v: unknown): string | null => dataTextOrNull(v, 40);

/** Each condition as its one key and its value: `{ condition: 'after', value: '2026-09-01T09:00:00Z' }`. */
function waitForOf(spec: Record<string, unknown>): DescribeData['spec']['waitFor'] {
  return asArray(spec['waitFor'])
    .slice(0, MAX_WAIT_FOR)
    .map((c) => {
      const entries = Object.entries(asRecord(c));
      const [key, value] = entries[0] ?? ['?', ''];
      return {
        condition: dataText(key, 32),
        value: typeof value === 'string' ? dataText(value, 80) : dataText(JSON.stringify(value) ?? '', 80),
      };
    });
}

export function describeHeldJob(hj: HeldJobObject): DescribeData {
  const spec = asRecord(hj.spec);
  const status = asRecord(hj.status);
  const target = typeof spec['target'] === 'string' && spec['target'].length <= 256 && TARGET.test(spec['target']) ? spec['target'] : null;
  const limits = asRecord(status['limits']);
  return {
    namespace: hj.metadata.namespace,
    name: hj.metadata.name,
    uid: hj.metadata.uid,
    deleting: Boolean(hj.metadata.deletionTimestamp),
    spec: {
      target,
      trigger: dataTextOrNull(spec['trigger'], 253),
      waitFor: waitForOf(spec),
    },
    status: {
      phase: dataTextOrNull(status['phase'], 32) ?? Phase.Pending,
      reason: dataTextOrNull(status['reason'], 64),
      message: dataTextOrNull(status['message'], MESSAGE_MAX),
      waitLabel: dataTextOrNull(status['waitLabel']),
      heldSince: time(status['heldSince']),
      waitingSince: time(status['waitingSince']),
      waitedSeconds: int(status['waitedSeconds']),
      nextCheckAt: time(status['nextCheckAt']),
      checksSince: time(status['checksSince']),
      expiresAt: time(status['expiresAt']),
      releaseAt: time(status['releaseAt']),
      givesUpAt: time(status['givesUpAt']),
      lastCheckAt: time(status['lastCheckAt']),
      lastCheckProfile: dataTextOrNull(status['lastCheckProfile'], 63),
      jobName: dataTextOrNull(status['jobName'], 63),
      launchedAt: time(status['launchedAt']),
      finishedAt: time(status['finishedAt']),
      waits: asArray(status['waits'])
        .slice(0, MAX_WAITS)
        .map((w) => {
          const r = asRecord(w);
          return {
            condition: dataTextOrNull(r['condition'], 80) ?? '?',
            state: dataTextOrNull(r['state'], 64) ?? '?',
            detail: dataTextOrNull(r['detail'], MESSAGE_MAX),
          };
        }),
      conditions: asArray(status['conditions'])
        .slice(0, MAX_CONDITIONS)
        .map((c) => {
          const r = asRecord(c);
          return {
            type: dataTextOrNull(r['type'], 64) ?? '?',
            status: dataTextOrNull(r['status'], 16) ?? 'Unknown',
            reason: dataTextOrNull(r['reason'], 64),
            message: dataTextOrNull(r['message'], MESSAGE_MAX),
            lastTransitionTime: time(r['lastTransitionTime']),
          };
        }),
      counters: {
        checks: int(status['checks']),
        faults: int(status['faults']),
        maxChecks: int(limits['maxChecks']),
        maxFaults: int(limits['maxFaults']),
        lastExitCode: int(status['lastExitCode']),
        profileFaults: Object.entries(asRecord(status['profileFaults']))
          .slice(0, MAX_PROFILES)
          .flatMap(([profile, faults]) =>
            typeof faults === 'number' && Number.isInteger(faults) ? [{ profile: dataText(profile, 63), faults }] : [],
          ),
      },
    },
  };
}
