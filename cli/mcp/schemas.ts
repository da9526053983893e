// What the MCP tools take and give back, as zod shapes: the SDK turns them into the tools'
// JSON schemas and checks every structuredContent against its outputSchema before it is sent.
import { z } from 'zod';
import { RowState } from '../held-panel.js';
import { CANCEL_TOOL_OUTCOMES } from './confirm.js';

const text = z.string();
const maybe = z.string().nullable();
const count = z.number().int().nullable();

/** A DNS label as a namespace or HeldJob name is: the tools refuse anything else before asking the cluster. */
const dnsName = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/, 'a Kubernetes object name: lowercase letters, digits, - and .');

export const listInput = {
  namespace: dnsName.optional().describe("The namespace (default: the server's -n, else the kubeconfig context's namespace)."),
  allNamespaces: z.boolean().optional().describe('Every namespace the identity may list (needs a cluster-wide list right).'),
};

export const refInput = {
  namespace: dnsName.optional().describe("The HeldJob's namespace (default: the server's -n, else the kubeconfig context's namespace)."),
  name: dnsName.describe("The HeldJob's name (metadata.name), as list_held_jobs gives it."),
};

/** One row of `waitgate held -o json` (held-panel rowData). */
export const rowSchema = z.object({
  namespace: text,
  name: text,
  target: maybe,
  conditions: text,
  phase: z.enum(['Held', 'Pending']),
  state: z.enum(Object.values(RowState) as [RowState, ...RowState[]]),
  heldSince: maybe,
  waitedSeconds: z.number(),
  releaseAt: maybe.describe('When its after releases it (status.releaseAt).'),
  givesUpAt: maybe.describe('The latest it gives up if no check says go (status.givesUpAt).'),
  nextCheckAt: maybe.describe('When the operator looks at it next (status.nextCheckAt).'),
});

export const listOutput = {
  namespace: maybe.describe('The namespace listed; null for every namespace.'),
  counts: z.object({ waiting: z.number().int(), scopeQueued: z.number().int(), pending: z.number().int() }),
  holds: z.array(rowSchema),
};

export const describeOutput = {
  namespace: text,
  name: text,
  uid: text,
  deleting: z.boolean().describe('A cancel was already asked for: it is on its way out.'),
  spec: z.object({
    target: maybe,
    trigger: maybe,
    waitFor: z.array(z.object({ condition: text, value: text })),
  }),
  status: z.object({
    phase: text,
    reason: maybe,
    message: maybe,
    waitLabel: maybe,
    heldSince: maybe,
    waitingSince: maybe,
    waitedSeconds: z.number().int().nullable(),
    nextCheckAt: maybe,
    checksSince: maybe,
    expiresAt: maybe,
    releaseAt: maybe,
    givesUpAt: maybe,
    lastCheckAt: maybe,
    lastCheckProfile: maybe,
    jobName: maybe,
    launchedAt: maybe,
    finishedAt: maybe,
    waits: z.array(z.object({ condition: text, state: text, detail: maybe })),
    conditions: z.array(z.object({ type: text, status: text, reason: maybe, message: maybe, lastTransitionTime: maybe })),
    counters: z.object({
      checks: count,
      faults: count,
      maxChecks: count,
      maxFaults: count,
      lastExitCode: count,
      profileFaults: z.array(z.object({ profile: text, faults: z.number().int() })),
    }),
  }),
};

export const cancelOutput = {
  namespace: text,
  name: text,
  cancelled: z.boolean(),
  outcome: z.enum(CANCEL_TOOL_OUTCOMES),
  question: maybe.describe('What the human was asked; null when nobody was.'),
  was: z.enum(['held', 'queued', 'running', 'finished']).nullable().describe('What the cancelled HeldJob was.'),
  gone: z.boolean().nullable().describe('Whether it was gone when the tool answered (the operator may still be finishing).'),
  said: text,
};

export type ListData = z.infer<z.ZodObject<typeof listOutput>>;
export type DescribeData = z.infer<z.ZodObject<typeof describeOutput>>;
export type CancelData = z.infer<z.ZodObject<typeof cancelOutput>>;
