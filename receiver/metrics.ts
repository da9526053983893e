import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { registerBuildInfo } from '../lib/build-info.js';

/** Every way a delivery can end. Labels are closed vocabularies: nothing author-typed. */
export const DeliveryOutcome = {
  Held: 'held',
  Refused: 'refused',
  /** A `once` trigger that had already fired for the target: answered 202, nothing created. */
  OnceSpent: 'once_spent',
  Ignored: 'ignored',
  Duplicate: 'duplicate',
  Unhandled: 'unhandled',
  Unauthorized: 'unauthorized',
  /** Authenticated by a secret scoped to other repositories than the one the delivery names: 401 (#30). */
  RepositoryNotAllowed: 'repository_not_allowed',
  /** A label the delivery said was added is not on the issue or pull request when the forge is asked (#30). */
  LabelUnconfirmed: 'label_unconfirmed',
  TooLarge: 'too_large',
  Malformed: 'malformed',
  Unavailable: 'unavailable',
  /** Refused 503 at the door: the connection or in-flight body cap was reached. */
  Busy: 'busy',
  Error: 'error',
} as const;
export type DeliveryOutcome = (typeof DeliveryOutcome)[keyof typeof DeliveryOutcome];

export class ReceiverMetrics {
  readonly registry = new Registry();
  readonly buildInfo = registerBuildInfo(this.registry, 'receiver');
  readonly deliveries = new Counter({
    name: 'waitgate_receiver_deliveries_total',
    help: 'Webhook deliveries by forge and outcome.',
    labelNames: ['forge', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly refusals = new Counter({
    name: 'waitgate_receiver_refusals_total',
    help: 'Deliveries refused, by refusal token.',
    labelNames: ['token'] as const,
    registers: [this.registry],
  });
  readonly connectionsClosedForRoom = new Counter({
    name: 'waitgate_receiver_connections_closed_for_room_total',
    help: 'Connections still sending their request head, closed at the connection cap to make room for a new one.',
    registers: [this.registry],
  });
  readonly triggersFileRefusals = new Counter({
    name: 'waitgate_receiver_triggers_file_refusals_total',
    help: 'Triggers files refused at load (the previous file stays in force).',
    registers: [this.registry],
  });

  constructor() {
    // Standard names (process_*, nodejs_*), so stock Node.js dashboards work.
    collectDefaultMetrics({ register: this.registry });
  }
}
