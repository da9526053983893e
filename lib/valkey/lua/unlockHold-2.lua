-- unlockHold-2.lua: give back the lock of one trigger and target, only for the holder whose
--          token it carries, and remember the generation that holder handed out, if any.
-- KEYS[1]  the hold lock key
-- KEYS[2]  the highest generation handed out (a sorted set; its one member's score is it)
--          (the two share no hash slot: this needs one Valkey server, not a cluster)
-- ARGV[1]  token the lock was taken with
-- ARGV[2]  the member of KEYS[2] whose score is the generation
-- ARGV[3]  the generation handed out, or '' for none
-- ARGV[4]  how long the generation is kept after it is written, in milliseconds
-- returns  1 when the lock was given back, 0 when it had gone or is another's; a generation
--          given is remembered either way (its hold exists), and never lowers the one there
local released = 0
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  released = 1
end
if ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[2], 'GT', tonumber(ARGV[3]), ARGV[2])
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]))
end
return released
