// What the MCP server needs from the world, as small ports: the cluster (through the CLI's
// own kube helpers and the one cancel), the clock and a pause. cli/commands/mcp.ts wires the
// real ones; nothing else in cli/mcp does I/O.
import type * as k8s from '@kubernetes/client-node';
import type { HeldJobObject } from '../../api/heldjob-schema.js';
import { cancelHeldJob, type CancelOutcome } from '../cancel-heldjob.js';
import { getHeldJob, listHeldJobs } from '../kube.js';

export interface McpPorts {
  /** The HeldJobs of one namespace, or of every namespace when undefined (listHeldJobs). */
  list(namespace: string | undefined): Promise<HeldJobObject[]>;
  /** One HeldJob, or undefined when there is none of that name (getHeldJob). */
  get(namespace: string, name: string): Promise<HeldJobObject | undefined>;
  /** Cancels exactly `seen`: the function `waitgate cancel` runs (cli/cancel-heldjob.ts). */
  cancel(seen: HeldJobObject): Promise<CancelOutcome>;
  /** Epoch milliseconds. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export interface McpSettings {
  /** The namespace a tool uses when it is given none (-n, else the kubeconfig context's). */
  readonly defaultNamespace: string;
  /** How long the human has to answer the confirm. */
  readonly confirmTimeoutMs: number;
  /** How long cancel_held_job waits for the HeldJob to be gone before it answers. */
  readonly goneTimeoutMs: number;
}

/** The ports on a real cluster, under the kubeconfig's identity. */
export function clusterPorts(kc: k8s.KubeConfig): McpPorts {
  return {
    list: (namespace) => listHeldJobs(kc, namespace),
    get: (namespace, name) => getHeldJob(kc, namespace, name),
    cancel: (seen) => cancelHeldJob(kc, seen),
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
}
