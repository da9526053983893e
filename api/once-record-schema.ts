// The OnceRecord's schema: the record that a `once` trigger has fired for a target
// (receiver/delivery/once.ts). A resource of its own, so the receiver's rights on it are
// rights on nothing else (it used to be a ConfigMap, and the receiver could write ConfigMaps).
// Its CRD in crds/ is generated from this (hack/gen-crd.ts). Ids only, like the HeldJob.
import { z } from 'zod';
import { TARGET_MAX_LENGTH, TARGET_PATTERN } from './target.js';

/** Claimed when the delivery took the record; fired once its HeldJob was created. */
export const OnceState = { Claimed: 'claimed', Fired: 'fired' } as const;
export type OnceState = (typeof OnceState)[keyof typeof OnceState];

export const onceRecordSpecSchema = z
  .object({
    trigger: z.string().min(1).max(253).meta({ description: 'The name of the once trigger that fired.' }),
    target: z.string().max(TARGET_MAX_LENGTH).regex(new RegExp(TARGET_PATTERN)).meta({
      description: 'The id-only target it fired for: <owner>/<repo>#<n> or <owner>/<repo>!<n>.',
    }),
    forge: z.string().min(1).max(32).meta({ description: 'The forge of the delivery that fired it.' }),
    delivery: z.string().min(1).max(256).meta({ description: "That delivery's id: only it may go on after a failure." }),
    heldJob: z.string().min(1).max(253).meta({ description: 'The HeldJob that delivery creates, in this namespace.' }),
    state: z
      .enum([OnceState.Claimed, OnceState.Fired])
      .meta({ description: 'claimed: the delivery took the record; fired: its HeldJob was created.' }),
  })
  .strict()
  .meta({ description: 'Which once trigger fired for which target, through which delivery and HeldJob. Written by the receiver.' });
export type OnceRecordSpec = z.infer<typeof onceRecordSpecSchema>;
