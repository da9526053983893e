-- acquireLeases-2.lua: take two leases at once, both or neither (a delivery's id and its body).
-- KEYS[1]  the first lease key
-- KEYS[2]  the second lease key
-- ARGV[1]  token: the holder's random token (the same in both), which renew and release compare first
-- ARGV[2]  ttl in milliseconds, for both
-- returns  1 when both were taken; 0 when another holder has the first (nothing taken);
--          2 when another holder has the second (nothing taken)
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 2
end
local ttl = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl)
return 1
