-- acquireLease-1.lua: take a lease on a key if nobody holds it.
-- KEYS[1]  the lease key
-- ARGV[1]  token: the holder's random token, which renew and release compare first
-- ARGV[2]  ttl in milliseconds
-- returns  1 when acquired, 0 when another holder has it
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', tonumber(ARGV[2])) then
  return 1
end
return 0
