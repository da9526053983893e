// #30, finding 4: a trigger without waitFor is bounded. Against the real apiserver, the real
// Valkey-compatible server and a real operator: twenty quick relabels of one issue leave at most
// one running and one pending HeldJob, the pending one the newest delivery's (each older pending
// hold is ended wait-superseded and deleted), and every other delivery counted on one
// wait-superseded record; an Azure DevOps pull request updated again and again (pushes, votes)
// makes no more.
import { describe, expect, test } from '@jest/globals';
import { Annotations, Phase, RefusalToken } from '../../api/vocabulary.js';
import { tallyOf } from '../../receiver/delivery/plan.js';
import { azurePullRequest, githubLabeled, post, resultsOf } from '../support/forge.js';
import { trigger, withOperator, withReceiver } from '../support/receiver-scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const LABEL = 'waitgate:deploy';

const isRecord = (h: { metadata: { annotations?: Record<string, string> } }) => h.metadata.annotations?.[Annotations.refusal] !== undefined;

describe('receiver: a trigger without waitFor is bounded (#30, finding 4)', () => {
  test(
    'twenty quick relabels of one issue: at most one running and one pending HeldJob, the newest pending wins, the rest counted on one record',
    () =>
      withReceiver('rcv-bounded', { triggers: [trigger({ name: 'notify', labels: [LABEL], exitCode: 'never' })] }, (s) =>
        withOperator(s, async () => {
          const answers: { outcome: string; heldJob?: string }[] = [];
          for (let i = 0; i < 20; i++) {
            const r = await post(s.url, githubLabeled({ label: LABEL, number: 7 }));
            expect(r.status).toBe(202);
            answers.push(...resultsOf(r).map((x) => ({ outcome: x.token ?? x.outcome, ...(x.heldJob ? { heldJob: x.heldJob } : {}) })));
          }
          expect(answers).toHaveLength(20);
          // The operator ends each superseded pending hold wait-superseded and deletes it; what is
          // left: at most two holds, one record, and every delivery either a hold or counted there.
          const settled = await eventually(
            'the superseded holds ended and gone, every delivery a hold or counted',
            async () => {
              const all = await s.kube.listHeldJobs(s.namespace);
              const holds = all.filter((h) => !isRecord(h));
              const records = all.filter(isRecord);
              if (holds.length > 2 || records.length !== 1) return undefined;
              const count = tallyOf(records[0]!).count;
              // A hold marked as its Job was being created (the launch writes nothing first) runs,
              // and its delivery was counted as well: it is both a hold and a count.
              const markedRunning = holds.filter((h) => h.metadata.annotations?.[Annotations.supersededBy] !== undefined).length;
              return count + holds.length - markedRunning === 20 ? { holds, record: records[0]!, count } : undefined;
            },
            Timeouts.jobMs,
          );
          expect(settled.holds.length).toBeGreaterThanOrEqual(1);
          expect(settled.record.metadata.annotations?.[Annotations.refusal]).toBe(RefusalToken.Superseded);
          expect(settled.holds.every((h) => h.status?.phase !== Phase.Refused)).toBe(true);
          // The newest pending wins: the last delivery that made a hold still has it.
          // With one place per scope (the default) the second hold waits pending behind the first,
          // so later deliveries replace it: more deliveries hold than the two the old bound let.
          expect(answers.filter((a) => a.outcome === 'held').length).toBeGreaterThan(2);
          const lastHeld = [...answers].reverse().find((a) => a.outcome === 'held');
          expect(settled.holds.map((h) => h.metadata.name)).toContain(lastHeld?.heldJob);
          await eventually(
            'a hold to run',
            async () => {
              const hs = (await s.kube.listHeldJobs(s.namespace)).filter((h) => !isRecord(h));
              return hs.some((h) => h.status?.phase === Phase.Running) ? true : undefined;
            },
            Timeouts.jobMs,
          );
          const jobs = await s.kube.batch.listNamespacedJob({ namespace: s.namespace });
          expect(jobs.items.length).toBeLessThanOrEqual(2);
        }),
      ),
    Timeouts.testMs,
  );

  test(
    'an Azure DevOps pull request updated again and again (pushes, votes) with its label still on fires nothing more; a label added fires',
    () =>
      withReceiver(
        'rcv-bounded-azure',
        {
          triggers: [
            trigger({ name: 'pr', kind: 'azure', labels: [LABEL] }),
            trigger({ name: 'second', kind: 'azure', labels: ['waitgate:second'] }),
          ],
        },
        async (s) => {
          const update = (labels: string[]) => post(s.url, azurePullRequest({ repo: 'web', id: 12, labels }));
          expect(resultsOf(await update([LABEL]))).toMatchObject([{ trigger: 'pr', outcome: 'held' }]);
          for (let i = 0; i < 5; i++) {
            const again = await update([LABEL]);
            expect(again.status).toBe(202);
            expect(again.json).toEqual({ outcome: 'ignored' });
          }
          expect((await s.kube.listHeldJobs(s.namespace)).filter((h) => !isRecord(h))).toHaveLength(1);
          // A label added by an update fires its own trigger, and the one still on does not fire again.
          expect(resultsOf(await update([LABEL, 'waitgate:second']))).toEqual([
            { trigger: 'second', outcome: 'held', heldJob: expect.any(String) },
          ]);
          // An update that carries no label fires nothing.
          expect((await update([])).json).toMatchObject({ outcome: 'unhandled' });
          expect((await s.kube.listHeldJobs(s.namespace)).filter((h) => !isRecord(h))).toHaveLength(2);
        },
      ),
    Timeouts.testMs,
  );
});
