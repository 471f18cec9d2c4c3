/**
 * The WXR import's speed: writes a WordPress export of N posts (default 1,000; three authors, nested categories,
 * tags, three paragraphs each, a comment on one post in five), imports it with `palimpsest import wxr` into a fresh
 * DATA_DIR as an operator would, then imports it again (a rerun, which must change nothing), and prints both times.
 *
 *   npx tsx bench/importWxr.ts [--posts N]
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { posts: { type: 'string', default: '1000' } } });
const POSTS = Number(values.posts);
if (!Number.isSafeInteger(POSTS) || POSTS < 1) throw new Error('--posts must be a whole number, 1 or more');

const cdata = (text: string) => `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
const pad = (n: number) => String(n).padStart(2, '0');
const localDate = (d: Date) =>
  `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;

function* exportLines(): Generator<string> {
  const site = 'https://old.example.org';
  yield '<?xml version="1.0" encoding="UTF-8" ?>';
  yield '<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">';
  yield `<channel><title>Bench site</title><link>${site}</link><description></description><language>en-US</language>`;
  yield `<wp:wxr_version>1.2</wp:wxr_version><wp:base_site_url>${site}</wp:base_site_url><wp:base_blog_url>${site}</wp:base_blog_url>`;
  const authors = ['ada', 'edith', 'arthur'];
  for (const [i, login] of authors.entries()) {
    yield `<wp:author><wp:author_id>${i + 1}</wp:author_id><wp:author_login>${cdata(login)}</wp:author_login><wp:author_email>${cdata(`${login}@example.org`)}</wp:author_email><wp:author_display_name>${cdata(login.toUpperCase())}</wp:author_display_name><wp:author_first_name>${cdata('')}</wp:author_first_name><wp:author_last_name>${cdata('')}</wp:author_last_name></wp:author>`;
  }
  // Ten top-level categories, each with a child.
  for (let c = 1; c <= 20; c++) {
    const parent = c > 10 ? `category-${c - 10}` : '';
    yield `<wp:category><wp:term_id>${c}</wp:term_id><wp:category_nicename>${cdata(`category-${c}`)}</wp:category_nicename><wp:category_parent>${cdata(parent)}</wp:category_parent><wp:cat_name>${cdata(`Category ${c}`)}</wp:cat_name></wp:category>`;
  }
  for (let t = 1; t <= 30; t++) {
    yield `<wp:tag><wp:term_id>${100 + t}</wp:term_id><wp:tag_slug>${cdata(`tag-${t}`)}</wp:tag_slug><wp:tag_name>${cdata(`Tag ${t}`)}</wp:tag_name></wp:tag>`;
  }
  const start = Date.UTC(2024, 0, 1);
  for (let n = 1; n <= POSTS; n++) {
    const id = 1000 + n;
    const date = localDate(new Date(start + n * 3_600_000));
    const category = (n % 20) + 1;
    const tags = [(n % 30) + 1, ((n * 7) % 30) + 1];
    const content = [1, 2, 3]
      .map(
        (p) =>
          `<!-- wp:paragraph -->\n<p>Paragraph ${p} of post ${n}: words about the subject, with <em>some</em> markup &amp; an entity.</p>\n<!-- /wp:paragraph -->`,
      )
      .join('\n\n');
    yield '<item>';
    yield `<title>${cdata(`Post number ${n}`)}</title><link>${site}/?p=${id}</link><dc:creator>${cdata(authors[n % 3]!)}</dc:creator><guid isPermaLink="false">${site}/?p=${id}</guid><description></description>`;
    yield `<content:encoded>${cdata(content)}</content:encoded><excerpt:encoded>${cdata('')}</excerpt:encoded>`;
    yield `<wp:post_id>${id}</wp:post_id><wp:post_date>${cdata(date)}</wp:post_date><wp:post_date_gmt>${cdata(date)}</wp:post_date_gmt><wp:post_modified>${cdata(date)}</wp:post_modified><wp:post_modified_gmt>${cdata(date)}</wp:post_modified_gmt>`;
    yield `<wp:comment_status>${cdata('open')}</wp:comment_status><wp:ping_status>${cdata('open')}</wp:ping_status><wp:post_name>${cdata(`post-number-${n}`)}</wp:post_name><wp:status>${cdata(n % 50 === 0 ? 'draft' : 'publish')}</wp:status>`;
    yield `<wp:post_parent>0</wp:post_parent><wp:menu_order>0</wp:menu_order><wp:post_type>${cdata('post')}</wp:post_type><wp:post_password>${cdata('')}</wp:post_password><wp:is_sticky>0</wp:is_sticky>`;
    yield `<category domain="category" nicename="category-${category}">${cdata(`Category ${category}`)}</category>`;
    for (const t of tags) yield `<category domain="post_tag" nicename="tag-${t}">${cdata(`Tag ${t}`)}</category>`;
    if (n % 5 === 0) {
      yield `<wp:comment><wp:comment_id>${n}</wp:comment_id><wp:comment_author>${cdata('A reader')}</wp:comment_author><wp:comment_author_email>${cdata('reader@example.org')}</wp:comment_author_email><wp:comment_author_url>${cdata('')}</wp:comment_author_url><wp:comment_author_IP>${cdata('192.0.2.1')}</wp:comment_author_IP><wp:comment_date>${cdata(date)}</wp:comment_date><wp:comment_date_gmt>${cdata(date)}</wp:comment_date_gmt><wp:comment_content>${cdata(`A comment on post ${n}.`)}</wp:comment_content><wp:comment_approved>${cdata('1')}</wp:comment_approved><wp:comment_type>${cdata('comment')}</wp:comment_type><wp:comment_parent>0</wp:comment_parent><wp:comment_user_id>0</wp:comment_user_id></wp:comment>`;
    }
    yield '</item>';
  }
  yield '</channel></rss>';
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-bench-import-'));
try {
  const file = path.join(dir, 'export.xml');
  fs.writeFileSync(file, `${[...exportLines()].join('\n')}\n`);
  const env = { ...process.env, DATA_DIR: path.join(dir, 'data'), REDIS_URL: '', EVENTSTORE_URL: '' };
  const run = async () => {
    const started = performance.now();
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/palimpsest.js', 'import', 'wxr', file], {
      cwd: ROOT,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { seconds: (performance.now() - started) / 1000, report: stdout.trim().split('\n').slice(-12).join('\n') };
  };
  console.log(`WXR of ${POSTS} posts: ${(fs.statSync(file).size / 1024 / 1024).toFixed(1)} MB`);
  const first = await run();
  console.log(`import into an empty site: ${first.seconds.toFixed(1)} s\n${first.report}`);
  const again = await run();
  console.log(`the same import again (changes nothing): ${again.seconds.toFixed(1)} s`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
