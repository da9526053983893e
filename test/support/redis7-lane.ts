// The redis7 project's set-up file (jest.config.js), run in each of its test files before the
// tests: the Redis 7 compatibility lane. VALKEY_URL is the redis-server 7 that
// integration-setup.ts started (or $WAITGATE_REDIS7_URL), and a server a test starts of its own
// (bench/chaos/redis-server.ts) is a redis-server too. Jest gives each test file a copy of the
// environment, so the integration project's files beside these keep valkey-server 9.
export {};

const url = process.env['WAITGATE_REDIS7_URL'];
if (!url)
  throw new Error('WAITGATE_REDIS7_URL is not set: run the redis7 project through jest.config.js (its globalSetup starts redis-server 7)');
process.env['VALKEY_URL'] = url;
process.env['WAITGATE_VALKEY_SERVER'] = 'redis';
