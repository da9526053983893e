// The HeldJob's schema, once. The CRD in crds/ is generated from these zod schemas
// (hack/gen-crd.ts), and the operator re-checks every HeldJob it reads against them, so
// admission and the operator cannot disagree about what a wait may say.
import { z } from 'zod';
import { INSTANT_PATTERN } from './instant.js';
import { TARGET_MAX_LENGTH, TARGET_PATTERN } from './target.js';
import { REPORT_OUTCOMES, REPORT_TRANSITIONS } from './forge-reports.js';
import { CHECK_VERDICTS } from './check-verdict.js';
import { FAILURE_REASONS, PHASES, REFUSAL_TOKENS } from './vocabulary.js';

export const MAX_CONDITIONS = 4;

export { TARGET_PATTERN };

const afterCondition = z
  .object({
    after: z.string().max(64).regex(new RegExp(INSTANT_PATTERN)).meta({
      description: 'An ISO 8601 instant carrying its own zone (Z or ±HH:MM). The job is held until then.',
    }),
  })
  .strict();

const profileCondition = z
  .object({
    profile: z
      .string()
      .min(1)
      .max(63)
      .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/)
      .meta({
        description: 'The name of a wait profile (a check script) declared in the waitgate-profiles ConfigMap.',
      }),
  })
  .strict();

/** A Kubernetes group name as the apiserver hands it over in request.userInfo.groups: printable, no whitespace. */
export const APPROVAL_GROUP_PATTERN = '^[!-~]{1,253}$';

const approvalCondition = z
  .object({
    approval: z.string().min(1).max(253).regex(new RegExp(APPROVAL_GROUP_PATTERN)).meta({
      description:
        'A Kubernetes group whose member says go: `waitgate approve` records who (annotation waitgate.dev/approved-by), and the admission policy admits only a member naming themselves. Spends no check.',
    }),
  })
  .strict();

export const waitConditionSchema = z.union([afterCondition, profileCondition, approvalCondition]);
export type WaitCondition = z.infer<typeof waitConditionSchema>;

/** CEL rules the apiserver enforces on spec.waitFor; the zod refinements below say the same. */
export const WAIT_FOR_CEL = [
  { rule: 'self.filter(c, has(c.after)).size() <= 1', message: 'waitFor may hold at most one after condition' },
  {
    rule: 'self.all(a, !has(a.profile) || self.filter(b, has(b.profile) && b.profile == a.profile).size() == 1)',
    message: 'waitFor may not name the same profile twice',
  },
  { rule: 'self.filter(c, has(c.approval)).size() <= 1', message: 'waitFor may hold at most one approval condition' },
] as const;

export const waitForSchema = z
  .array(waitConditionSchema)
  .max(MAX_CONDITIONS)
  .superRefine((conds, ctx) => {
    if (conds.filter((c) => 'after' in c).length > 1) {
      ctx.addIssue({ code: 'custom', message: WAIT_FOR_CEL[0].message });
    }
    const profiles = conds.flatMap((c) => ('profile' in c ? [c.profile] : []));
    if (new Set(profiles).size !== profiles.length) {
      ctx.addIssue({ code: 'custom', message: WAIT_FOR_CEL[1].message });
    }
    if (conds.filter((c) => 'approval' in c).length > 1) {
      ctx.addIssue({ code: 'custom', message: WAIT_FOR_CEL[2].message });
    }
  })
  .meta({
    description: 'Up to four conditions, one key each; all must clear before the job starts.',
    'x-kubernetes-validations': WAIT_FOR_CEL,
  });

/** A batch/v1 JobSpec. The apiserver validates it when the Job is created. */
const jobSpecSchema = z
  .object({
    template: z.object({}).passthrough().meta({
      description:
        'The Pod template of the Job (batch/v1 JobSpec.template), kept as written and validated by the apiserver. At the first reconcile that would hold it, the operator dry-runs the whole Job (a server-side create with dryRun=All): one the apiserver refuses ends the hold Failed, reason JobRejected, before any wait is spent instead of at the launch.',
      'x-kubernetes-preserve-unknown-fields': true,
    }),
  })
  .passthrough()
  .meta({
    description: 'The batch/v1 JobSpec of the Job to launch once every condition has cleared.',
    'x-kubernetes-preserve-unknown-fields': true,
  });

/** A commit id: 40 hex digits (SHA-1), or 64 (SHA-256 repositories). */
export const REVISION_PATTERN = '^[0-9a-f]{40}([0-9a-f]{24})?$';

export const heldJobSpecSchema = z
  .object({
    target: z.string().max(TARGET_MAX_LENGTH).regex(new RegExp(TARGET_PATTERN)).meta({
      description: 'The id-only target: <owner>/<repo>#<n> or <owner>/<repo>!<n>. Never a title or body.',
    }),
    trigger: z.string().min(1).max(253).meta({ description: 'The name of the trigger entry that fired.' }),
    waitFor: waitForSchema.optional(),
    job: jobSpecSchema,
    revision: z.string().regex(new RegExp(REVISION_PATTERN)).optional().meta({
      description:
        "The commit the labeller saw, recorded at hold time when the trigger pins it (run.pinRevision): a pull or merge request's head, or an issue's default branch head. The Job is told it as WAITGATE_REVISION.",
    }),
  })
  .strict()
  .meta({
    description:
      'What to launch, for which target, and what it waits for. Written by the receiver or by hand; never changed by the operator.',
  });
export type HeldJobSpec = z.infer<typeof heldJobSpecSchema>;

const time = z.string().meta({ format: 'date-time' });

/** One condition, as metav1.Condition has it; reasons are CamelCase (ConditionReason). */
const kubeConditionSchema = z.object({
  type: z.string().min(1).max(316).meta({
    description: 'The condition type: Waiting, Launched, Finished, TriggerChecked, Ready (the summary), Reconciling or Stalled (kstatus).',
  }),
  status: z.enum(['True', 'False', 'Unknown']).meta({ description: 'Whether the condition holds: True, False or Unknown.' }),
  reason: z.string().max(1024).meta({ description: 'Why, in one CamelCase word (for example WaitingForChecks, JobCreated).' }),
  message: z.string().max(32768).optional().meta({ description: "Why, in a sentence a person reads. Never a check script's output." }),
  lastTransitionTime: time.meta({ description: 'When the status last changed (not when it was last written).' }),
  observedGeneration: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: "The HeldJob's metadata.generation the condition was set from." }),
});
export type KubeCondition = z.infer<typeof kubeConditionSchema>;

const forgeReportSchema = z.object({
  transition: z.enum(REPORT_TRANSITIONS).meta({ description: 'Which transition was reported: refused, launched or finished.' }),
  outcome: z
    .enum(REPORT_OUTCOMES)
    .meta({ description: 'Posted (the comment is on the forge), GaveUp (the forge kept failing), or Skipped (nothing sent).' }),
  at: time.meta({ description: 'When the report ended: the comment was posted, or reporting gave up or was skipped.' }),
  commentId: z.string().optional().meta({ description: "The forge's id of the comment." }),
  attempts: z.number().int().min(0).optional().meta({ description: 'How many times the comment was tried.' }),
  error: z.string().optional().meta({ description: 'Why reporting gave up (a status code or a connection error; never a response body).' }),
  skipped: z.string().optional().meta({
    description:
      'Why nothing was reported (outcome Skipped): the HeldJob was not made by the receiver nor in a namespace allowed to report.',
  }),
});
export type ForgeReport = z.infer<typeof forgeReportSchema>;

export const heldJobStatusSchema = z
  .object({
    phase: z.enum(PHASES).optional().meta({
      description:
        'Where the HeldJob is: Pending (not yet looked at), Held (waiting), Running (its Job runs), or one end: Succeeded, Failed or Refused. Exactly one end, and never left.',
    }),
    reason: z
      .union([z.enum(REFUSAL_TOKENS), z.enum(FAILURE_REASONS), z.literal('')])
      .optional()
      .meta({
        description: 'The refusal token when phase is Refused; JobRejected or JobMissing when phase is Failed without its Job failing.',
      }),
    message: z
      .string()
      .optional()
      .meta({ description: 'The last thing to know about the HeldJob, in a sentence: why it waits, or how it ended.' }),
    waitLabel: z.string().optional().meta({ description: 'The conditions in one line, as the WAITING FOR column shows them.' }),
    heldSince: time.optional().meta({ description: 'When the first hold began; waiting is measured from here.' }),
    waitingSince: time.optional().meta({ description: 'Set while the HeldJob waits (the WAITED column); cleared when it stops waiting.' }),
    waitedSeconds: z.number().int().min(0).optional().meta({ description: 'How long the HeldJob waited, once it stopped waiting.' }),
    nextCheckAt: time.optional().meta({ description: 'The next instant the operator will look at this HeldJob again.' }),
    checksSince: time
      .optional()
      .meta({ description: 'When profile checks began (the after, if any, had cleared); the maximum wait counts from here.' }),
    expiresAt: time.optional().meta({ description: 'When a profile hold gives up (wait-expired), after one last check.' }),
    releaseAt: time.optional().meta({
      description: 'When the after condition releases the hold (its instant, in UTC). Set while an after is part of the wait.',
    }),
    givesUpAt: time.optional().meta({
      description:
        'The latest the hold gives up if nothing clears it: for profile checks, the check that spends the last of the check count or the maximum wait, whichever comes first, refreshed after every check (api/cadence.ts, the figure doctor prints); for an approval, the end of its maximum wait. Unset while nothing bounds the wait, and once it has stopped waiting.',
    }),
    checks: z.number().int().min(0).optional().meta({ description: 'Profile checks run so far.' }),
    faults: z.number().int().min(0).optional().meta({ description: '"Could not tell" answers in a row: the most of any one profile.' }),
    profileFaults: z.record(z.string(), z.number().int().min(0)).optional().meta({
      description: '"Could not tell" answers in a row, per profile; a profile reaching the maximum ends the hold wait-unanswerable.',
    }),
    limits: z
      .object({
        maxChecks: z
          .number()
          .int()
          .min(0)
          .meta({ description: 'Profile checks this hold may spend (WAITGATE_WAIT_MAX_CHECKS when it began).' }),
        maxFaults: z
          .number()
          .int()
          .min(0)
          .meta({ description: '"Could not tell" answers in a row one profile may give before the hold ends wait-unanswerable.' }),
      })
      .optional()
      .meta({
        description: 'The budgets this hold was given when its checks began; a later change of the configuration does not move them.',
      }),
    lastExitCode: z
      .number()
      .int()
      .optional()
      .meta({ description: "The last check's exit code (0 go, 3 not yet, 2 never; anything else could not tell)." }),
    lastVerdicts: z.record(z.string(), z.enum(CHECK_VERDICTS)).optional().meta({
      description: "Each profile's last answer (go, not-yet, could-not-tell, never); a check Event is recorded when it changes.",
    }),
    lastCheckAt: time.optional().meta({ description: 'When the last profile check ended.' }),
    lastCheckProfile: z.string().optional().meta({ description: 'The profile the last check ran.' }),
    clearedProfiles: z.array(z.string()).optional().meta({ description: 'Profiles that answered go in the current round of checks.' }),
    afterClearedAt: time.optional().meta({ description: "When the after condition's instant was seen to have passed." }),
    approval: z
      .object({
        by: z.string().meta({ description: 'The user name of the member of the approval group who said go (waitgate.dev/approved-by).' }),
        at: time.meta({ description: 'When the operator first saw the approval.' }),
        reason: z.string().optional().meta({ description: "Why, in the approver's words (waitgate.dev/approval-reason), if given." }),
      })
      .optional()
      .meta({
        description:
          "Who approved the hold's approval condition, and when; the launched Job is told them (WAITGATE_APPROVED_BY, WAITGATE_APPROVED_AT).",
      }),
    waits: z
      .array(
        z.object({
          condition: z.string().meta({ description: 'The condition as written: after=<instant>, profile=<name> or approval=<group>.' }),
          state: z.string().meta({ description: 'Waiting, Cleared or NotChecked (not reached yet: an earlier condition still holds).' }),
          detail: z.string().optional().meta({ description: 'What is known of it: the instant, the last exit code, who approved.' }),
        }),
      )
      .optional()
      .meta({ description: 'Each wait condition and its state.' }),
    jobName: z
      .string()
      .optional()
      .meta({ description: 'The launched Job, in this namespace. Its name is derived from the HeldJob, so a retry never makes a second.' }),
    scope: z.string().optional().meta({
      description:
        "The scope (the target's repository on its forge, github:acme/web, for a HeldJob the receiver made; ns/<namespace>:acme/web for one written by hand) whose slot the launched Job holds, recorded at the launch: the slot is kept and given back under this name whatever the spec says later.",
    }),
    launchedAt: time.optional().meta({ description: 'When the Job was created.' }),
    finishedAt: time.optional().meta({ description: 'When the HeldJob reached its end (Succeeded, Failed or Refused).' }),
    observedGeneration: z
      .number()
      .int()
      .min(0)
      .optional()
      .meta({ description: "The spec's metadata.generation this status was written from." }),
    conditions: z
      .array(kubeConditionSchema)
      .optional()
      .meta({
        description: 'Kubernetes-style conditions, one per type; Ready summarises, Reconciling and Stalled are for kstatus.',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    reports: z.array(forgeReportSchema).optional().meta({
      description:
        'What was reported to the forge, one entry per transition: written once the comment is on the forge, or once reporting gave up.',
    }),
  })
  .strict()
  .meta({
    description: 'What the operator observed and decided; everything a restarted operator needs is here. Written by the operator only.',
  });
export type HeldJobStatus = z.infer<typeof heldJobStatusSchema>;

export interface HeldJobMetadata {
  name: string;
  namespace: string;
  uid: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string | Date;
  deletionTimestamp?: string | Date;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** The operator's own (FINALIZER) while it holds one; others' are left alone. */
  finalizers?: string[];
}

/** A HeldJob as read from the apiserver; spec is unknown until checked. */
export interface HeldJobObject {
  apiVersion?: string;
  kind?: string;
  metadata: HeldJobMetadata;
  spec?: unknown;
  status?: HeldJobStatus;
}

export type SpecCheck = { readonly ok: true; readonly spec: HeldJobSpec } | { readonly ok: false; readonly problems: readonly string[] };

/** The operator's own re-check of a spec it has read. */
export function checkSpec(spec: unknown): SpecCheck {
  const r = heldJobSpecSchema.safeParse(spec);
  if (r.success) return { ok: true, spec: r.data };
  return {
    ok: false,
    problems: r.error.issues.map((i) => `${i.path.length ? `spec.${i.path.join('.')}` : 'spec'}: ${i.message}`),
  };
}
