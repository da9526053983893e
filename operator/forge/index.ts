// Every forge the operator reports to, keyed by the Forge vocabulary: a forge added there and
// not here is a type error. Each entry makes the forge's comment client from its credentials.
import type { ForgeConfig, ForgeCredential } from '../../api/config/operator-config.js';
import { FORGES, type Forge } from '../../api/vocabulary.js';
import { AzureDevOpsForge } from './azure.js';
import { GitHubForge } from './github.js';
import { GitLabForge } from './gitlab.js';
import type { ForgeComments } from './reporter.js';

type ClientMaker<F extends Forge> = (credential: ForgeCredential[F], timeoutMs: number) => ForgeComments;

export const OPERATOR_FORGES: { readonly [F in Forge]: ClientMaker<F> } = {
  github: (c, timeoutMs) => new GitHubForge({ ...c, timeoutMs }),
  gitlab: (c, timeoutMs) => new GitLabForge({ ...c, timeoutMs }),
  azure: (c, timeoutMs) => new AzureDevOpsForge({ ...c, timeoutMs }),
};

function clientOf<F extends Forge>(forge: F, config: ForgeConfig, timeoutMs: number): ForgeComments | undefined {
  const credential = config[forge] as ForgeCredential[F] | undefined;
  return credential === undefined ? undefined : OPERATOR_FORGES[forge](credential, timeoutMs);
}

/** The comment clients of the forges that have credentials. */
export function forgeClientsOf(config: ForgeConfig, timeoutMs: number): Partial<Record<Forge, ForgeComments>> {
  return Object.fromEntries(
    FORGES.flatMap((f) => {
      const client = clientOf(f, config, timeoutMs);
      return client ? [[f, client]] : [];
    }),
  );
}
