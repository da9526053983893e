-- renewSlot-1.lua: extend a place in a counting semaphore, only while the token still holds it.
-- KEYS[1]  the semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- ARGV[1]  token the place was acquired with
-- ARGV[2]  ttl in milliseconds: the place is held until now + ttl
-- now      the server's clock (TIME), never the caller's: callers whose clocks disagree still
--          agree on every lease; places scored <= now have lapsed. Needs effects replication
--          of scripts (the default from Redis 5, the only kind from Redis 7 and in Valkey).
-- returns  1 when renewed, 0 when the token holds no live place (never had one, lapsed, released)
local token, ttl = ARGV[1], tonumber(ARGV[2])
local key = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if not redis.call('ZSCORE', key, token) then return 0 end
redis.call('ZADD', key, 'XX', now + ttl, token)
-- Safety net: the key outlives its latest lease by one ttl, then goes even if nobody comes back.
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', key, tonumber(last[2]) - now + ttl)
return 1
