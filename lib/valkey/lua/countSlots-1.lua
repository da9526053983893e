-- countSlots-1.lua: how many live places a counting semaphore has taken.
-- KEYS[1]  the semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- now      the server's clock (TIME), never the caller's; places scored <= now have lapsed
-- returns  the number of live holders, after sweeping the lapsed ones
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
