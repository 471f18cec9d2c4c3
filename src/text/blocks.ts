/** Block markup: parsing `<!-- wp:name {attrs} -->` delimiters, rendering blocks back, and the excerpt's blocks. */

import { WS } from './textPatterns';

/** A parsed block: `name` is null for HTML outside any block ("freeform"). */
export interface ParsedBlock {
  name: string | null;
  /** The attribute JSON as written (not parsed), or null. */
  attrs: string | null;
  innerBlocks: ParsedBlock[];
  /** HTML pieces, with null where an inner block goes. */
  innerContent: Array<string | null>;
}

const BLOCK_DELIMITER = new RegExp(
  `<!--${WS}+(\\/)?wp:([a-z][a-z0-9_-]*\\/)?([a-z][a-z0-9_-]*)${WS}+` +
    `(\\{(?:[^}]|\\}(?!${WS}+\\/?-->))*\\}${WS}+)?(\\/)?-->`,
  'g',
);

/** PHP empty() on a string: "" and "0" count as empty (the block parser drops such HTML pieces). */
const isEmptyPiece = (s: string) => s === '' || s === '0';

interface OpenBlock {
  block: ParsedBlock;
  tokenStart: number;
  tokenEnd: number;
  /** Where this block's not-yet-collected HTML starts. */
  prevOffset: number;
  /** Start of top-level HTML between the previous block and this one, if any. */
  leadingHtmlStart: number | null;
}

function freeformBlock(html: string): ParsedBlock {
  return { name: null, attrs: null, innerBlocks: [], innerContent: [html] };
}

function newBlock(ns: string | undefined, name: string, attrs: string | undefined): ParsedBlock {
  return {
    name: (ns ?? 'core/') + name,
    attrs: attrs ? attrs.replace(TRAILING_WS, '') : null,
    innerBlocks: [],
    innerContent: [],
  };
}

const TRAILING_WS = new RegExp(`${WS}+$`);

/**
 * The parser's state over one document. (Methods rather than closures made per call: the closures cost more
 * than parsing a short post.)
 */
class BlockParser {
  readonly output: ParsedBlock[] = [];
  readonly stack: OpenBlock[] = [];

  constructor(private readonly document: string) {}

  appendHtml(block: ParsedBlock, html: string): void {
    if (!isEmptyPiece(html)) block.innerContent.push(html);
  }

  addInner(block: ParsedBlock, tokenStart: number, lastOffset: number): void {
    const parent = this.stack[this.stack.length - 1]!;
    parent.block.innerBlocks.push(block);
    this.appendHtml(parent.block, this.document.slice(parent.prevOffset, tokenStart));
    parent.block.innerContent.push(null);
    parent.prevOffset = lastOffset;
  }

  closeTop(endOffset: number | null): void {
    const top = this.stack.pop()!;
    const document = this.document;
    this.appendHtml(
      top.block,
      endOffset === null ? document.slice(top.prevOffset) : document.slice(top.prevOffset, endOffset),
    );
    if (top.leadingHtmlStart !== null)
      this.output.push(freeformBlock(document.slice(top.leadingHtmlStart, top.tokenStart)));
    this.output.push(top.block);
  }
}

/** Splits serialised block content into blocks, with the same recovery from malformed input as WordPress. */
export function parseBlocks(document: string): ParsedBlock[] {
  const parser = new BlockParser(document);
  const { output, stack } = parser;
  let offset = 0;
  BLOCK_DELIMITER.lastIndex = 0;
  for (;;) {
    const m = BLOCK_DELIMITER.exec(document);
    if (!m) {
      if (stack.length === 0) {
        if (offset < document.length) output.push(freeformBlock(document.slice(offset)));
      } else {
        // Unclosed blocks take the rest of the document (nested ones each, as WordPress does).
        while (stack.length) parser.closeTop(null);
      }
      break;
    }
    const [token, closer, ns, name, attrs, isVoid] = m;
    const start = m.index;
    const end = start + token.length;
    const leadingHtmlStart = start > offset ? offset : null;
    if (closer) {
      if (stack.length === 0) {
        // A closer without an opener: everything from here on is plain HTML.
        output.push(freeformBlock(document.slice(offset)));
        break;
      }
      if (stack.length === 1) parser.closeTop(start);
      else {
        // Closing a nested block keeps its last piece even when it is "0" (only this path does).
        const top = stack.pop()!;
        top.block.innerContent.push(document.slice(top.prevOffset, start));
        parser.addInner(top.block, top.tokenStart, end);
      }
    } else if (isVoid) {
      const block = newBlock(ns, name!, attrs);
      if (stack.length === 0) {
        if (leadingHtmlStart !== null) output.push(freeformBlock(document.slice(leadingHtmlStart, start)));
        output.push(block);
      } else parser.addInner(block, start, end);
    } else {
      stack.push({
        block: newBlock(ns, name!, attrs),
        tokenStart: start,
        tokenEnd: end,
        prevOffset: end,
        leadingHtmlStart,
      });
    }
    offset = end;
  }
  return output;
}

/** The HTML of a static block: its pieces with inner blocks rendered in place. */
export function renderBlock(block: ParsedBlock): string {
  let html = '';
  let inner = 0;
  for (const piece of block.innerContent) html += piece === null ? renderBlock(block.innerBlocks[inner++]!) : piece;
  return html;
}

/** Whether WordPress treats the content as block content (which turns autop off). */
export function hasBlocks(content: string): boolean {
  return content.includes('<!-- wp:');
}

/**
 * Block content as WordPress renders it for static blocks: the block comment delimiters go, the HTML
 * inside and between blocks stays (including the newlines around it).
 */
export function stripBlockDelimiters(content: string): string {
  if (!content.includes('wp:')) return content;
  return parseBlocks(content).map(renderBlock).join('');
}

// Blocks whose text may appear in a generated excerpt (WordPress 6.1: core/list-item is not among them, so a
// list in the 6.1 inner-block format is left out).
const EXCERPT_INNER_BLOCKS = new Set<string | null>([
  null,
  'core/freeform',
  'core/heading',
  'core/html',
  'core/list',
  'core/media-text',
  'core/paragraph',
  'core/preformatted',
  'core/pullquote',
  'core/quote',
  'core/table',
  'core/verse',
]);
const EXCERPT_WRAPPER_BLOCKS = new Set<string | null>(['core/columns', 'core/column', 'core/group']);
export const isExcerptBlock = (name: string | null) =>
  EXCERPT_INNER_BLOCKS.has(name) || EXCERPT_WRAPPER_BLOCKS.has(name);

function excerptInnerBlocks(block: ParsedBlock): string {
  let html = '';
  for (const inner of block.innerBlocks) {
    if (!isExcerptBlock(inner.name)) continue;
    html += inner.innerBlocks.length === 0 ? renderBlock(inner) : excerptInnerBlocks(inner);
  }
  return html;
}

/** Content reduced to the blocks whose text belongs in a generated excerpt (WordPress's excerpt_remove_blocks). */
export function excerptBlocksOnly(content: string): string {
  if (!hasBlocks(content)) return content;
  let html = '';
  for (const block of parseBlocks(content)) {
    if (!isExcerptBlock(block.name)) continue;
    if (block.innerBlocks.length > 0) {
      if (EXCERPT_WRAPPER_BLOCKS.has(block.name)) {
        html += excerptInnerBlocks(block);
        continue;
      }
      if (block.innerBlocks.some((b) => !EXCERPT_INNER_BLOCKS.has(b.name) || b.innerBlocks.length > 0)) continue;
    }
    html += renderBlock(block);
  }
  return html;
}
