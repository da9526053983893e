-- renewSlot-1.lua: extend a place in a counting semaphore, only while the token still holds it.
-- KEYS[1]  the semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- ARGV[1]  token the place was acquired with
-- ARGV[2]  now, epoch milliseconds, from the caller's clock; places scored <= now have lapsed
-- ARGV[3]  ttl in milliseconds: the place is held until now + ttl
-- returns  1 when renewed, 0 when the token holds no live place (never had one, lapsed, released)
local token, now, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local key = KEYS[1]

redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if not redis.call('ZSCORE', key, token) then return 0 end
redis.call('ZADD', key, 'XX', now + ttl, token)
-- Safety net: the key outlives its latest lease by one ttl, then goes even if nobody comes back.
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', key, tonumber(last[2]) - now + ttl)
return 1
