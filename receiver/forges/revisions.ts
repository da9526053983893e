// The head of a repository's default branch, read from its forge through that forge's module,
// with the read-only API access the receiver was given. For triggers that pin the revision of
// an issue or work item (run.pinRevision), whose payload names no commit.
import type { Forge } from '../../api/vocabulary.js';
import { targetParts } from '../../api/target.js';
import type { LabelReader, RevisionReader } from '../delivery/deliver.js';
import type { ForgeApi } from './forge-module.js';
import { RECEIVER_FORGES } from './index.js';

export class ForgeRevisions implements RevisionReader, LabelReader {
  constructor(private readonly apis: Partial<Record<Forge, ForgeApi>>) {}

  async defaultBranchHead(forge: Forge, repository: string): Promise<string> {
    const api = this.apis[forge];
    if (!api) throw new Error(`no ${forge} API token is configured to read the default branch's head`);
    return RECEIVER_FORGES[forge].defaultBranchHead(api, repository);
  }

  async currentLabels(forge: Forge, target: string): Promise<readonly string[]> {
    const api = this.apis[forge];
    if (!api) throw new Error(`no ${forge} API token is configured to confirm labels`);
    const parts = targetParts(target);
    if (!parts) throw new Error('the target names no repository');
    return RECEIVER_FORGES[forge].currentLabels(api, parts);
  }
}
