-- ARGV: quadruples of (posting prefix, vocabulary key, trigram prefix, tokens space-separated): a bulk commit's
-- tokens that gained postings, added to their column's vocabulary (those new to it with their trigrams).
--#include common
--#include vocabulary
for k = 1, #ARGV, 4 do
  local grown = {}
  for tok in string.gmatch(ARGV[k + 3], '[^ ]+') do grown[#grown + 1] = tok end
  updateVocabulary(ARGV[k], ARGV[k + 1], ARGV[k + 2], grown, {})
end
return 1
