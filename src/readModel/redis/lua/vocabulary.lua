-- The text index's vocabulary upkeep, shared by COMMIT and BULK_VOCABULARY. Per collection and text column:
--   C:w:<column>:<token>       set of handles whose column holds the token (a posting set)
--   C:v:<column>               set of the tokens whose posting set is not empty (the vocabulary)
--   C:y:<column>:<trigram>     set of the vocabulary's tokens of at most LONG_TOKEN_BYTES containing the trigram
--   C:y:<column>:long          set of the longer vocabulary tokens
-- grown: tokens that gained a posting (new to the vocabulary or not); shrunk: tokens that only lost some.
local LUA_TOKEN = '[0-9A-Za-z\128-\255]+'
local LONG_TOKENS = '${LONG_TOKENS}'
local function sadd(key, list)
  -- unpack is bounded by Lua's C stack (8000 values).
  for i = 1, #list, 4000 do redis.call('SADD', key, unpack(list, i, math.min(i + 3999, #list))) end
end
local function srem(key, list)
  for i = 1, #list, 4000 do redis.call('SREM', key, unpack(list, i, math.min(i + 3999, #list))) end
end
local function updateVocabulary(postingPrefix, vocabKey, trigramPrefix, grown, shrunk)
  local adds, removes = {}, {}
  local function each(tok, into)
    -- A token listed under each of its n trigrams costs n times its own length: a long one (a pasted blob, one
    -- word of 70,000 bytes) would make writes quadratic, so those are listed once, under LONG_TOKENS.
    if #tok > ${LONG_TOKEN_BYTES} then
      local list = into[LONG_TOKENS]
      if not list then list = {}; into[LONG_TOKENS] = list end
      list[#list + 1] = tok
      return
    end
    local seen = {}
    for i = 1, #tok - 2 do
      local tri = string.sub(tok, i, i + 2)
      if not seen[tri] then
        seen[tri] = true
        local list = into[tri]
        if not list then list = {}; into[tri] = list end
        list[#list + 1] = tok
      end
    end
  end
  if #grown > 0 then
    local present = chunked('SMISMEMBER', vocabKey, grown)
    local new = {}
    for i, tok in ipairs(grown) do if present[i] == 0 then new[#new + 1] = tok end end
    sadd(vocabKey, new)
    for _, tok in ipairs(new) do each(tok, adds) end
  end
  if #shrunk > 0 then
    local gone = {}
    for _, tok in ipairs(shrunk) do
      if redis.call('EXISTS', postingPrefix .. tok) == 0 then gone[#gone + 1] = tok end
    end
    srem(vocabKey, gone)
    for _, tok in ipairs(gone) do each(tok, removes) end
  end
  for tri, list in pairs(removes) do srem(trigramPrefix .. tri, list) end
  for tri, list in pairs(adds) do sadd(trigramPrefix .. tri, list) end
end
