-- countSlots-1.lua: how many live places a counting semaphore has taken.
-- KEYS[1]  the semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- ARGV[1]  now, epoch milliseconds, from the caller's clock; places scored <= now have lapsed
-- returns  the number of live holders, after sweeping the lapsed ones
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]))
return redis.call('ZCARD', KEYS[1])
