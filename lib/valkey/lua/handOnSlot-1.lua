-- handOnSlot-1.lua: give one holder's place in a counting semaphore back and take a place for
-- another, in one step: a check that ends hands its place straight to the next one queued, with
-- no round trip between in which another operator could take it, and no second call.
-- KEYS[1]  the semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- ARGV[1]  from: the token whose place is given back (no-op where it holds none)
-- ARGV[2]  to: the token that takes a place, which renew and release compare first
-- ARGV[3]  limit: how many places the semaphore has (>= 1, checked by the caller)
-- ARGV[4]  ttl in milliseconds: `to`'s place is held until now + ttl
-- now      the server's clock (TIME), never the caller's; places scored <= now have lapsed
-- returns  {1} when `to` holds a place (taken, or renewed: it held one already);
--          {2, 1, n} when full with n live holders even without `from`'s place (the limit was
--          lowered, or places were taken back past it): `from`'s place is given back all the same
local from, to, limit, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local key = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

redis.call('ZREM', key, from)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if not redis.call('ZSCORE', key, to) then
  local n = redis.call('ZCARD', key)
  if n >= limit then return {2, 1, n} end
end
redis.call('ZADD', key, now + ttl, to)
-- Safety net: the key outlives its latest lease by one ttl, then goes even if nobody comes back.
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', key, tonumber(last[2]) - now + ttl)
return {1}
