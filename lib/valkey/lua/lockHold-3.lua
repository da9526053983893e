-- lockHold-3.lua: take the lock of one trigger and target and, in the same step, read what is
--          remembered of its holds, so what is read is never older than the lock.
-- KEYS[1]  the hold lock key
-- KEYS[2]  the finished marker of the trigger and target (a string: the HeldJob it names)
-- KEYS[3]  the highest generation handed out (a sorted set; its one member's score is it)
--          (the three share no hash slot: this needs one Valkey server, not a cluster)
-- ARGV[1]  token: the holder's random token (24 hex digits), which unlockHold-2.lua compares first
-- ARGV[2]  the lock's ttl in milliseconds
-- ARGV[3]  the member of KEYS[3] whose score is the generation
-- returns  {1, marker or false, the marker's PTTL, generation or false, taken over (0 or 1)}
--          when the lock was taken; {0} when another holder has it (nothing read).
--          A lock is another holder's only when it looks like one: a string of 24 hex digits
--          expiring within one ttl. Anything else (no expiry, a longer one, another type or
--          value) was planted, not taken, and is taken over (the 5th element says so). Keys of
--          the wrong type read as absent, so a planted hash answers nothing rather than an error.
local ttl = tonumber(ARGV[2])
local takenOver = 0
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ttl) then
  local left = redis.call('PTTL', KEYS[1])
  local held = false
  if redis.call('TYPE', KEYS[1]).ok == 'string' then held = redis.call('GET', KEYS[1]) end
  if held and string.len(held) == 24 and string.match(held, '^%x+$') and left > 0 and left <= ttl then
    return {0}
  end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
  takenOver = 1
end
local marker = false
local markerTtl = -2
if redis.call('TYPE', KEYS[2]).ok == 'string' then
  marker = redis.call('GET', KEYS[2])
  markerTtl = redis.call('PTTL', KEYS[2])
end
local generation = false
if redis.call('TYPE', KEYS[3]).ok == 'zset' then generation = redis.call('ZSCORE', KEYS[3], ARGV[3]) end
return {1, marker, markerTtl, generation, takenOver}
