// Every forge the receiver takes deliveries from, keyed by the Forge vocabulary: a forge added
// there and not here is a type error. The server routes, authenticates and parses through this
// table alone.
import type { Forge } from '../../api/vocabulary.js';
import { azureForge } from './azure.js';
import type { ReceiverForgeModule } from './forge-module.js';
import { githubForge } from './github.js';
import { gitlabForge } from './gitlab.js';

export const RECEIVER_FORGES: Readonly<Record<Forge, ReceiverForgeModule>> = {
  github: githubForge,
  gitlab: gitlabForge,
  azure: azureForge,
};

/** The forge whose route is `path`, if any. */
export function forgeOfRoute(path: string): Forge | undefined {
  return (Object.keys(RECEIVER_FORGES) as Forge[]).find((f) => RECEIVER_FORGES[f].route === path);
}
