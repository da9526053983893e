-- releaseLeases-2.lua: drop two leases taken together, each only for the holder whose token it carries.
-- KEYS[1]  the first lease key
-- KEYS[2]  the second lease key
-- ARGV[1]  token the leases were taken with
-- returns  how many of the two were released
local released = 0
for i = 1, 2 do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
    released = released + 1
  end
end
return released
