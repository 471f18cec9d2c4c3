/**
 * CPU per first render of a bench post, in process: content.rendered, excerpt.rendered and title.rendered as
 * presentContent asks for them when the item is not kept (not memoised), each round on fresh strings of new posts.
 *
 *   npx tsx bench/render.ts [--posts 20000] [--rounds 7]
 *
 * Prints the CPU time per post (process.cpuUsage: all threads, so the collector's helpers count) of every round,
 * and the best and the median. Compare two trees by running each in turn, alternated, on the same machine.
 */
import { parseArgs } from 'node:util';
import { renderContentAndExcerpt, renderTitle } from '../src/text/render';
import { seedPostText } from './posts';

const { values } = parseArgs({
  options: { posts: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '7' } },
});
const posts = Number(values.posts);
const rounds = Number(values.rounds);
const options = { siteUrl: 'http://127.0.0.1:8080' };

const perPost: number[] = [];
let length = 0;
for (let round = 0; round < rounds; round++) {
  const texts = Array.from({ length: posts }, (_, i) => seedPostText(round * posts + i));
  const before = process.cpuUsage();
  for (const { title, content } of texts) {
    const rendered = renderContentAndExcerpt(content, '', options, false);
    length += rendered.content.length + rendered.excerpt.length + renderTitle(title).length;
  }
  const used = process.cpuUsage(before);
  perPost.push((used.user + used.system) / posts);
}
const sorted = [...perPost].sort((a, b) => a - b);
const us = (n: number) => `${n.toFixed(2)} µs`;
console.log(`rounds: ${perPost.map(us).join(', ')}`);
console.log(
  `per post: best ${us(sorted[0]!)}, median ${us(sorted[Math.floor(sorted.length / 2)]!)} (${posts} posts a round, ${length} characters rendered)`,
);
