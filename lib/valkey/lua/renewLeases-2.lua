-- renewLeases-2.lua: extend two leases taken together, each for the holder whose token it carries.
-- KEYS[1]  the first lease key
-- KEYS[2]  the second lease key
-- ARGV[1]  token the leases were taken with
-- ARGV[2]  the first lease's new ttl in milliseconds, from now
-- ARGV[3]  the second lease's new ttl in milliseconds, from now
-- returns  how many of the two were renewed (a lease gone or held by another token is not)
local renewed = 0
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
  renewed = renewed + 1
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]))
  renewed = renewed + 1
end
return renewed
