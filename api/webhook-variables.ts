// The receiver's variables that authenticate each forge's deliveries, and the forge API token
// each may use: one home for the names, which the receiver parses (receiver/config.ts) and
// doctor reads off the receiver's Deployment to say which protection is in force.
import type { Forge } from './vocabulary.js';

export const WEBHOOK_VARIABLES = {
  github: {
    unscoped: ['WAITGATE_GITHUB_WEBHOOK_SECRET', 'WAITGATE_GITHUB_WEBHOOK_SECRETS'],
    scoped: 'WAITGATE_GITHUB_WEBHOOK_SCOPED_SECRETS',
    token: 'WAITGATE_GITHUB_TOKEN',
  },
  gitlab: {
    unscoped: ['WAITGATE_GITLAB_WEBHOOK_TOKEN', 'WAITGATE_GITLAB_WEBHOOK_TOKENS'],
    scoped: 'WAITGATE_GITLAB_WEBHOOK_SCOPED_TOKENS',
    token: 'WAITGATE_GITLAB_TOKEN',
  },
  azure: {
    unscoped: ['WAITGATE_AZURE_WEBHOOK_SECRET', 'WAITGATE_AZURE_WEBHOOK_SECRETS'],
    scoped: 'WAITGATE_AZURE_WEBHOOK_SCOPED_SECRETS',
    token: 'WAITGATE_AZURE_TOKEN',
  },
} as const satisfies Record<Forge, { unscoped: readonly string[]; scoped: string; token: string }>;

/** Asks the forge, before holding, whether the label is on the target now. */
export const CONFIRM_LABELS_VARIABLE = 'WAITGATE_RECEIVER_CONFIRM_LABELS';
