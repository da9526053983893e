-- acquireShare-4.lua: take one place in the fleet's counting semaphore within one namespace's
-- fair share of it, or renew the place the token holds; with a token to give back, hand that
-- token's place on to this one in the same step.
-- KEYS[1]  the fleet's semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- KEYS[2]  this namespace's semaphore, the same shape: the places its holders hold in KEYS[1]
-- KEYS[3]  the active namespaces: a sorted set of namespace semaphores (KEYS[2] of each), each
--          scored by when its activity lapses (epoch ms); a namespace is active while it has
--          asked for a place within its activity window
-- KEYS[4]  the namespace semaphore of the token given back (ARGV[5]); KEYS[2] when there is
--          none, or when it is of this namespace. In a cluster, all four keys share a hash slot
-- ARGV[1]  token: the holder's token, which renew and release compare first
-- ARGV[2]  limit: how many places the fleet's semaphore has (>= 1, checked by the caller)
-- ARGV[3]  ttl in milliseconds: the place is held until now + ttl
-- ARGV[4]  activity window in milliseconds: this namespace is active until now + window at least
--          (never shortened by a shorter window asked for later)
-- ARGV[5]  optional: a token whose place is given back first, in KEYS[1] and KEYS[4] (a check
--          that ends hands its place straight to the next one queued); no-op where it holds none
-- now      the server's clock (TIME), never the caller's: callers whose clocks disagree still
--          agree on every lease; places and activity scored <= now have lapsed. Needs effects
--          replication of scripts (the default from Redis 5, the only kind from Redis 7 and in Valkey).
-- share    ceil(limit / active namespaces), this one counted: a namespace alone has every place.
--          One holding more than its share keeps what it holds, but takes no new place.
-- returns  {1} when acquired in both, also when the token already held a live place in both
--          (renewed, idempotent);
--          {2, 1, n} when the fleet is full with n live holders;
--          {2, 2, m} when this namespace holds m live places, its share or more;
--          refused, nothing but lapsed places, the place given back (ARGV[5]) and this
--          namespace's activity has changed: a place the token held before the call stays as it was
local token, limit, ttl, activeMs, from = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local fleet, namespace, active, fromNamespace = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

if from then
  redis.call('ZREM', fleet, from)
  redis.call('ZREM', fromNamespace, from)
end
for i = 1, 4 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
end
-- Asking makes the namespace active, refused or not: the share of every other shrinks now.
redis.call('ZADD', active, 'GT', now + activeMs, namespace)
-- Safety net: the set outlives this activity by one window (raised to two windows, never
-- lowered here), then goes even if nobody comes back.
if redis.call('PTTL', active) < 2 * activeMs then redis.call('PEXPIRE', active, 2 * activeMs) end
local share = math.ceil(limit / redis.call('ZCARD', active))
-- Every check before any write: a refusal leaves no half-taken pair behind.
-- The count first: only a full semaphore asks whether the token is already in it (a renewal).
local limits = {limit, share}
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
