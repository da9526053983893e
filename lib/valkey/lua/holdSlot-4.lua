-- holdSlot-4.lua: keep the place of a running holder in two counting semaphores, whatever their
--          limits, and note it in its operator's index of running places. A running Job runs
--          whether or not its place is there, so a place it lost (lapsed, or lost with the data)
--          is taken back even past the limit: the semaphore then counts what really runs, and
--          refuses every new holder until it is back under its limit. A holder whose end was
--          recorded (releaseHeld-4.lua, marked ended) is never taken back: a keeper that read it
--          as running before its end (a cache that lags, a sweep under way) adds nothing.
-- KEYS[1]  first semaphore (the overall one): a sorted set of tokens scored by expiry (epoch ms)
-- KEYS[2]  second semaphore (the per-scope one), same shape
-- KEYS[3]  the index: a hash of token -> scope key, the places one operator keeps for its
--          running Jobs (its leader reclaims those whose HeldJob is gone or finished)
-- KEYS[4]  the ended holders: a sorted set of tokens scored by when their end was marked;
--          in a cluster, all four keys share one hash slot
-- ARGV[1]  token: the holder's token (the HeldJob's uid)
-- ARGV[2]  ttl in milliseconds: both places are held until now + ttl (long: renewed by every sweep)
-- ARGV[3]  the scope key, the index's value for the token
-- now      the server's clock (TIME), never the caller's (see acquireSlot-2.lua)
-- returns  {code, n1, n2}: code 1 when the token held a live place in both keys before the
--          call (kept), 0 when it had lost one (taken back now), 2 when its holder has ended
--          (nothing taken, nothing noted); n1, n2 the live holders of each key after
local token, ttl = ARGV[1], tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

for i = 1, 2 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
end
if redis.call('ZSCORE', KEYS[4], token) then
  return {2, redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2])}
end
local kept = 1
for i = 1, 2 do
  if not redis.call('ZSCORE', KEYS[i], token) then kept = 0 end
end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now + ttl, token)
  -- Safety net: the key outlives its latest lease by one ttl, then goes even if nobody comes back.
  local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', KEYS[i], tonumber(last[2]) - now + ttl)
end
redis.call('HSET', KEYS[3], token, ARGV[3])
-- The index outlives every place it lists: each of them lapses at most ttl from now.
redis.call('PEXPIRE', KEYS[3], ttl)
return {kept, redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2])}
