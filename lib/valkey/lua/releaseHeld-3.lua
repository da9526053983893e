-- releaseHeld-3.lua: give a place back in two counting semaphores, and take it off its
--          operator's index of running places (see holdSlot-3.lua); only the token's own.
-- KEYS[1]  the first semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- KEYS[2]  the second semaphore, the same shape
-- KEYS[3]  the index: a hash of token -> scope key; in a cluster, all three share one hash slot
-- ARGV[1]  token the places were taken with
-- returns  how many places were given back (0, 1 or 2; a lapsed one not yet swept counts)
redis.call('HDEL', KEYS[3], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1]) + redis.call('ZREM', KEYS[2], ARGV[1])
