-- releaseLease-1.lua: drop a lease, only for the holder whose token it carries.
-- KEYS[1]  the lease key
-- ARGV[1]  token the lease was acquired with
-- returns  1 when released, 0 when the lease is gone or held by another token
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
