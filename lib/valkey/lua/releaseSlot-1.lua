-- releaseSlot-1.lua: give a place in a counting semaphore back, only the one the token holds.
-- KEYS[1]  the semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- ARGV[1]  token the place was acquired with
-- returns  1 when a place was given back (a lapsed one not yet swept counts), 0 when there was none
return redis.call('ZREM', KEYS[1], ARGV[1])
