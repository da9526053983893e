-- acquireSlot-3.lua: take one place in each of two counting semaphores, both or neither, and only
--          in the epoch the caller has registered its running holders in (see openEpoch-1.lua).
-- KEYS[1]  first semaphore (e.g. the overall one): a sorted set of tokens scored by expiry (epoch ms)
-- KEYS[2]  second semaphore (e.g. the per-scope one), same shape
-- KEYS[3]  the epoch key of the two; in a cluster, all three share one hash slot
-- ARGV[1]  token: the holder's token, which renew and release compare first
-- ARGV[2]  limit of KEYS[1] (>= 1, checked by the caller)
-- ARGV[3]  limit of KEYS[2] (>= 1, checked by the caller)
-- ARGV[4]  ttl in milliseconds: both places are held until now + ttl
-- ARGV[5]  epoch: the one the caller last re-registered every holder it keeps alive in
-- now      the server's clock (TIME), never the caller's: callers whose clocks disagree still
--          agree on every lease; places scored <= now have lapsed. Needs effects replication
--          of scripts (the default from Redis 5, the only kind from Redis 7 and in Valkey).
-- returns  {1} when acquired in both, also when the token already held a live place in both or in
--          one of them (renewed, idempotent);
--          {2, i, n} when KEYS[i] (the first full one) has n live holders;
--          {3} when KEYS[3] is gone or holds another epoch: the caller must re-register its
--          holders first (open the epoch, renew or re-take their places), then ask again.
--          Refused either way, nothing but lapsed places has changed.
local token = ARGV[1]
local limits = {tonumber(ARGV[2]), tonumber(ARGV[3])}
local ttl = tonumber(ARGV[4])

if redis.call('GET', KEYS[3]) ~= ARGV[5] then return {3} end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 1, 2 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
end
-- Every check before any write: a refusal leaves no half-taken pair behind.
-- The count first: only a full semaphore asks whether the token is already in it (a renewal).
for i = 1, 2 do
  local n = redis.call('ZCARD', KEYS[i])
  if n >= limits[i] and not redis.call('ZSCORE', KEYS[i], token) then return {2, i, n} end
end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now + ttl, token)
  -- Safety net: the key outlives this lease by one ttl (raised to two ttls, never lowered here,
  -- so it outlives every lease taken before too), then goes even if nobody comes back.
  if redis.call('PTTL', KEYS[i]) < 2 * ttl then redis.call('PEXPIRE', KEYS[i], 2 * ttl) end
end
return {1}
