/** The text of the bench's seeded posts (bench/run.ts seeds them; bench/render.ts renders them). */

/** A word in 1% of the seeded posts, for the search figure. */
export const SEARCH_WORD = 'zephyr';

export const PARAGRAPH =
  'Event sourcing keeps every change as a fact with who and when; the read model is only a projection of those facts, and it can be rebuilt from them at any time. ';

/** Title and block content of seeded post i (0-based): three paragraph blocks, the search word in one post in 100. */
export function seedPostText(i: number): { title: string; content: string } {
  const marker = i % 100 === 0 ? ` This post mentions the ${SEARCH_WORD}.` : '';
  const paragraph = (n: number) =>
    `<!-- wp:paragraph -->\n<p>${PARAGRAPH.repeat(2)}Paragraph ${n} of post ${i + 1}.${n === 2 ? marker : ''}</p>\n<!-- /wp:paragraph -->`;
  return { title: `Benchmark post ${i + 1}`, content: [1, 2, 3].map(paragraph).join('\n\n') };
}
