-- Removes a sealed game's keys once the archive holds it (the rules service runs it, having
-- compared the archive's copy with these keys byte for byte), leaving a tombstone meta. The
-- randomness service removes its own keys of the game (seed, secrets, draws) when asked next.
-- KEYS[1] log, KEYS[2] meta, KEYS[3] command ids; ARGV[1] the head version and ARGV[2] the
-- head hash that were compared, ARGV[3] how long the tombstone stays (s).
-- Nothing is removed unless the meta says sealed at exactly that head: a game in play, or one
-- that moved since the comparison, is refused whole.
-- The tombstone (version, head, chain, sealed, archived) tells readers to go to the archive
-- and the randomness service that the game is archived, and makes append.lua refuse a create
-- under the game's id (its version is not 0) while a retried CreateGame that checked the
-- archive just before this could still arrive.
local meta = redis.call('HMGET', KEYS[2], 'version', 'head', 'sealed', 'archived', 'chain')
if meta[4] or not meta[1] then return {'gone'} end  -- removed before (its tombstone lapsed)
if meta[3] ~= '1' then return {'in-play', meta[1]} end
if meta[1] ~= ARGV[1] or meta[2] ~= ARGV[2] then return {'moved', meta[1]} end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HSET', KEYS[2], 'version', meta[1], 'head', meta[2], 'chain', meta[5] or '1',
  'sealed', '1', 'archived', '1')
redis.call('EXPIRE', KEYS[2], ARGV[3])
return {'forgotten'}
