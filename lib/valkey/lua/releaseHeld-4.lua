-- releaseHeld-4.lua: give a place back in two counting semaphores, and take it off its
--          operator's index of running places (see holdSlot-4.lua); only the token's own. When
--          its holder has ended (the hold is over or gone, never to run again), the token is also
--          marked ended, so no keeper takes its place back afterwards (holdSlot-4.lua).
-- KEYS[1]  the first semaphore: a sorted set of holder tokens, each scored by its lease expiry (epoch ms)
-- KEYS[2]  the second semaphore, the same shape
-- KEYS[3]  the index: a hash of token -> scope key
-- KEYS[4]  the ended holders: a sorted set of tokens scored by when their end was marked (epoch
--          ms); in a cluster, all four keys share one hash slot
-- ARGV[1]  token the places were taken with
-- ARGV[2]  "1": the holder has ended, mark it; "0": given back only for now (it may ask again)
-- ARGV[3]  how long, in milliseconds, an end mark is kept (marks older than this are dropped)
-- now      the server's clock (TIME), never the caller's (see acquireSlot-2.lua)
-- returns  how many places were given back (0, 1 or 2; a lapsed one not yet swept counts)
local token = ARGV[1]
redis.call('HDEL', KEYS[3], token)
if ARGV[2] == '1' then
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local keep = tonumber(ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - keep)
  redis.call('ZADD', KEYS[4], now, token)
  redis.call('PEXPIRE', KEYS[4], keep)
end
return redis.call('ZREM', KEYS[1], token) + redis.call('ZREM', KEYS[2], token)
