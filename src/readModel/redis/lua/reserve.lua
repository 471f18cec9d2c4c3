-- ARGV: prefix, projection, staged generation, then pairs of (collection key prefix, number of documents): a bulk
-- commit's documents new to the generation (see writeNewDocuments). Refuses unless the generation is still staged;
-- marks each collection as indexed by words (C:tx, as COMMIT does) and reserves that many handles in it, returning
-- the last handle of each.
local P, projection, G = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HGET', P .. 'gen:staged', projection) ~= G then
  return redis.error_reply('STALE generation ' .. G .. ' of ' .. projection .. ' is not staged')
end
local last = {}
for i = 4, #ARGV, 2 do
  redis.call('SET', ARGV[i] .. 'tx', '1')
  last[#last + 1] = redis.call('INCRBY', ARGV[i] .. 'seq', ARGV[i + 1])
end
return last
