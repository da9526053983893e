-- lockHold-3.lua: take the lock of one trigger and target and, in the same step, read what is
--          remembered of its holds, so what is read is never older than the lock.
-- KEYS[1]  the hold lock key
-- KEYS[2]  the finished marker of the trigger and target (a string: the HeldJob it names)
-- KEYS[3]  the highest generation handed out (a sorted set; its one member's score is it)
--          (the three share no hash slot: this needs one Valkey server, not a cluster)
-- ARGV[1]  token: the holder's random token, which unlockHold-2.lua compares first
-- ARGV[2]  the lock's ttl in milliseconds
-- ARGV[3]  the member of KEYS[3] whose score is the generation
-- returns  {1, marker or nil, generation or nil} when the lock was taken;
--          {0} when another holder has it (nothing read)
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', tonumber(ARGV[2])) then
  return {0}
end
return {1, redis.call('GET', KEYS[2]), redis.call('ZSCORE', KEYS[3], ARGV[3])}
