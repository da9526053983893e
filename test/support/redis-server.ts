// A redis-server of one test's own: the one the chaos run restarts, shared with the tests.
export { OwnRedisServer } from '../../bench/chaos/redis-server.js';
