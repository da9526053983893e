-- renewLease-1.lua: extend a lease, only for the holder whose token it carries.
-- KEYS[1]  the lease key
-- ARGV[1]  token the lease was acquired with
-- ARGV[2]  new ttl in milliseconds, from now
-- returns  1 when renewed, 0 when the lease is gone or held by another token
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
  return 1
end
return 0
