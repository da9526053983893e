// `waitgate mcp` driven by the MCP SDK's own client over stdio: a real `node bin/waitgate.js
// mcp` process, acting as a ServiceAccount that may read and delete HeldJobs in the scenario's
// namespace only, against the real apiserver, with a real operator holding the HeldJobs.
import { describe, expect, test } from '@jest/globals';
import * as k8s from '@kubernetes/client-node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { API_GROUP, HELDJOB_PLURAL, Phase } from '../../api/vocabulary.js';
import { afterIn, heldJob } from '../support/builders.js';
import { serviceAccountKubeconfig } from '../support/chart.js';
import { ROOT } from '../support/env.js';
import { withScenario, type Scenario } from '../support/scenario.js';
import { Timeouts } from '../support/timeouts.js';
import { eventually } from '../support/wait.js';

const CLI = join(ROOT, 'bin', 'waitgate.js');
const USER = 'mcp-user';
/** An after a day ahead: the HeldJob holds and nothing else happens. */
const dayAhead = () => ({ after: afterIn(24 * 60 * 60_000).after });

/** A ServiceAccount that may get, list and delete HeldJobs in the scenario's namespace, and nothing else; its kubeconfig. */
async function readerKubeconfig(s: Scenario): Promise<string> {
  const { namespace } = s;
  await s.kube.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: USER } } });
  const rbac = s.kube.kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: USER },
      rules: [{ apiGroups: [API_GROUP], resources: [HELDJOB_PLURAL], verbs: ['get', 'list', 'watch', 'delete'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: USER },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: USER },
      subjects: [{ kind: 'ServiceAccount', name: USER, namespace }],
    },
  });
  return serviceAccountKubeconfig(s.kube, namespace, USER);
}

type Answer = (message: string) => Promise<ElicitResult>;

interface Session {
  readonly client: Client;
  /** The questions the server asked, in order. */
  readonly asked: string[];
  stderr(): string;
}

/** Starts `waitgate mcp` and connects the SDK's client to it; `answer` undefined: a client without elicitation. */
async function connect(kubeconfig: string, answer: Answer | undefined, extraArgs: string[] = []): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--kubeconfig', kubeconfig, ...extraArgs],
    env: { PATH: process.env['PATH'] ?? '' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const client = new Client({ name: 'waitgate-e2e', version: '0.0.0' }, { capabilities: answer ? { elicitation: { form: {} } } : {} });
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params.message);
      return answer(req.params.message);
    });
  }
  await client.connect(transport);
  return { client, asked, stderr: () => stderr };
}

async function call(session: Session, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await session.client.callTool({ name, arguments: args }, undefined, { timeout: Timeouts.shortMs * 4 })) as CallToolResult;
}

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('waitgate mcp', () => {
  test(
    'lists three holds; a declined cancel keeps the hold, an accepted one cancels it, no answer and no elicitation cancel nothing; RBAC decides what it reads',
    () =>
      withScenario('mcp', async (s) => {
        const kubeconfig = await readerKubeconfig(s);
        for (const i of [1, 2, 3]) {
          await s.kube.createHeldJob(s.namespace, heldJob({ name: `hold-${i}`, target: `acme/web#${i}`, waitFor: [dayAhead()] }));
        }
        for (const i of [1, 2, 3]) {
          await eventually(`hold-${i} to be Held`, async () =>
            (await s.kube.getHeldJob(s.namespace, `hold-${i}`))?.status?.phase === Phase.Held ? true : undefined,
          );
        }
        const exists = async (name: string) => (await s.kube.getHeldJob(s.namespace, name)) !== undefined;

        let next: Answer = () => Promise.resolve({ action: 'decline' });
        const session = await connect(kubeconfig, (m) => next(m), ['-n', s.namespace]);
        try {
          expect((await session.client.listTools()).tools.map((t) => t.name).sort()).toEqual([
            'cancel_held_job',
            'describe_held_job',
            'list_held_jobs',
          ]);

          // The three holds, as data with namespace and name, and the same as JSON text.
          const list = await call(session, 'list_held_jobs', {});
          expect(list.isError).toBeFalsy();
          const data = list.structuredContent as { namespace: string; counts: Record<string, number>; holds: Record<string, unknown>[] };
          expect(data.namespace).toBe(s.namespace);
          expect(data.counts).toEqual({ waiting: 3, scopeQueued: 0, pending: 0 });
          expect(data.holds.map((h) => [h['namespace'], h['name'], h['target'], h['phase']]).sort()).toEqual(
            [1, 2, 3].map((i) => [s.namespace, `hold-${i}`, `acme/web#${i}`, 'Held']),
          );
          expect(JSON.parse(textOf(list))).toEqual(data);

          const described = await call(session, 'describe_held_job', { name: 'hold-1' });
          expect(described.structuredContent).toMatchObject({
            namespace: s.namespace,
            name: 'hold-1',
            spec: { target: 'acme/web#1', trigger: 'deploy', waitFor: [{ condition: 'after', value: expect.any(String) }] },
            status: { phase: 'Held', reason: null },
          });

          // Declined: asked what exactly would go, and the hold stays.
          const declined = await call(session, 'cancel_held_job', { name: 'hold-1' });
          expect(declined.isError).toBeFalsy();
          expect(declined.structuredContent).toMatchObject({ cancelled: false, outcome: 'declined' });
          expect(session.asked).toEqual([
            expect.stringMatching(new RegExp(`^Cancel acme/web#1 \\(${s.namespace}/hold-1\\), waiting \\d+s for after \\S+Z\\?$`)),
          ]);
          expect(await exists('hold-1')).toBe(true);

          // Accepted: cancelled as `waitgate cancel` cancels it, and gone.
          next = () => Promise.resolve({ action: 'accept', content: { confirm: true } });
          const accepted = await call(session, 'cancel_held_job', { name: 'hold-2' });
          expect(accepted.isError).toBeFalsy();
          expect(accepted.structuredContent).toMatchObject({ cancelled: true, outcome: 'accepted', was: 'held', gone: true });
          expect((accepted.structuredContent as { said: string }).said).toBe(
            `Cancelling ${s.namespace}/hold-2 (acme/web#2): it was held on its conditions and never ran; nothing will start. ${s.namespace}/hold-2 is gone.`,
          );
          expect(await exists('hold-2')).toBe(false);

          // A namespace this identity may not read: a clear error, from the apiserver's own words.
          const forbidden = await call(session, 'list_held_jobs', { namespace: 'default' });
          expect(forbidden.isError).toBe(true);
          expect(textOf(forbidden)).toMatch(
            new RegExp(`^cannot list HeldJobs in default: HTTP 403: .*system:serviceaccount:${s.namespace}:${USER}.* cannot list`),
          );
          expect(session.stderr()).not.toMatch(/jsonrpc/);
        } finally {
          await session.client.close();
        }

        // No answer in time: nothing cancelled.
        const silent = await connect(kubeconfig, () => new Promise<ElicitResult>(() => undefined), [
          '-n',
          s.namespace,
          '--confirm-timeout',
          '1s',
        ]);
        try {
          const unanswered = await call(silent, 'cancel_held_job', { name: 'hold-3' });
          expect(unanswered.structuredContent).toMatchObject({ cancelled: false, outcome: 'timed-out' });
          expect(silent.asked).toHaveLength(1);
          expect(await exists('hold-3')).toBe(true);
        } finally {
          await silent.client.close();
        }

        // A client without elicitation: nobody can be asked, so nothing is cancelled, and it says so.
        const plain = await connect(kubeconfig, undefined);
        try {
          const refused = await call(plain, 'cancel_held_job', { namespace: s.namespace, name: 'hold-3' });
          expect(refused.isError).toBe(true);
          expect(refused.structuredContent).toMatchObject({ cancelled: false, outcome: 'no-elicitation', question: null });
          expect(textOf(refused)).toMatch(/declared no elicitation/);
          expect(await exists('hold-3')).toBe(true);
          expect(await exists('hold-1')).toBe(true);
        } finally {
          await plain.client.close();
        }
      }),
    Timeouts.testMs * 2,
  );
});
