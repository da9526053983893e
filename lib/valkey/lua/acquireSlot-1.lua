-- acquireSlot-1.lua: take one place in a counting semaphore, or renew the place the token holds;
-- with a token to give back, hand that token's place on to this one in the same step.
-- KEYS[1]  the semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- ARGV[1]  token: the holder's token, which renew and release compare first
-- ARGV[2]  limit: how many places the semaphore has (>= 1, checked by the caller)
-- ARGV[3]  ttl in milliseconds: the place is held until now + ttl
-- ARGV[4]  optional: a token whose place is given back first (a check that ends hands its place
--          straight to the next one queued: no round trip between in which another operator
--          could take it, and no second call); no-op where it holds none
-- now      the server's clock (TIME), never the caller's: callers whose clocks disagree still
--          agree on every lease; places scored <= now have lapsed. Needs effects replication
--          of scripts (the default from Redis 5, the only kind from Redis 7 and in Valkey).
-- returns  {1} when acquired, also when the token already held a live place (renewed, idempotent);
--          {2, 1, n} when full with n live holders, and then nothing but lapsed places and the
--          place given back (ARGV[4]) has changed
local token, limit, ttl, from = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local key = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

if from then redis.call('ZREM', key, from) end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
-- The count first: only a full semaphore asks whether the token is already in it (a renewal).
local n = redis.call('ZCARD', key)
if n >= limit and not redis.call('ZSCORE', key, token) then return {2, 1, n} end
redis.call('ZADD', key, now + ttl, token)
-- Safety net: the key outlives this lease by one ttl (raised to two ttls, never lowered here, so
-- it outlives every lease taken before too), then goes even if nobody comes back.
if redis.call('PTTL', key) < 2 * ttl then redis.call('PEXPIRE', key, 2 * ttl) end
return {1}
