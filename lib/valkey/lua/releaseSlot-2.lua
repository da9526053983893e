-- releaseSlot-2.lua: give a place back in two counting semaphores at once, only the one the token holds.
-- KEYS[1]  the first semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- KEYS[2]  the second semaphore, the same shape
-- ARGV[1]  token the places were acquired with
-- returns  how many places were given back (0, 1 or 2; a lapsed one not yet swept counts)
return redis.call('ZREM', KEYS[1], ARGV[1]) + redis.call('ZREM', KEYS[2], ARGV[1])
