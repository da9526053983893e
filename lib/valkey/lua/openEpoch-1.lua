-- openEpoch-1.lua: the registry's epoch, begun here when there is none.
-- KEYS[1]  the epoch key: a random id, written once and never changed; it vanishes only with the
--          rest of the data (FLUSHALL, a restart without persistence, a failover to an empty
--          replica), so a new id means every place taken before it may have been lost
-- ARGV[1]  candidate: a fresh random id, the epoch if none is open
-- returns  the epoch now open: the one found, or the candidate
local epoch = redis.call('GET', KEYS[1])
if epoch then return epoch end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
