-- recallHold-2.lua: read what is remembered of the holds of one trigger and target, without
--          the lock (lockHold-3.lua reads the same under it).
-- KEYS[1]  the finished marker of the trigger and target (a string: the HeldJob it names)
-- KEYS[2]  the highest generation handed out (a sorted set; its one member's score is it)
--          (the two share no hash slot: this needs one Valkey server, not a cluster)
-- ARGV[1]  the member of KEYS[2] whose score is the generation
-- returns  {marker or false, the marker's PTTL, generation or false}; keys of the wrong type
--          (planted by another client of a shared Valkey) read as absent, never as an error
local marker = false
local markerTtl = -2
if redis.call('TYPE', KEYS[1]).ok == 'string' then
  marker = redis.call('GET', KEYS[1])
  markerTtl = redis.call('PTTL', KEYS[1])
end
local generation = false
if redis.call('TYPE', KEYS[2]).ok == 'zset' then generation = redis.call('ZSCORE', KEYS[2], ARGV[1]) end
return {marker, markerTtl, generation}
