/**
 * The block patterns and pattern categories the site offers the block editor's inserter. WordPress registers its
 * own and fetches more from wordpress.org; here there are none unless the deployment gives some
 * (BLOCK_PATTERNS_DIR, read by load.ts). Pure data.
 */

export interface BlockPatternCategory {
  name: string;
  label: string;
  description?: string;
}

/** A pattern, with the fields the REST answer shows (each optional one only when given). */
export interface BlockPattern {
  name: string;
  title: string;
  content: string;
  description?: string;
  viewport_width?: number;
  block_types?: string[];
  post_types?: string[];
  categories?: string[];
  keywords?: string[];
  inserter?: boolean;
}

export interface BlockPatternLibrary {
  categories: readonly BlockPatternCategory[];
  patterns: readonly BlockPattern[];
}

export const EMPTY_LIBRARY: BlockPatternLibrary = Object.freeze({ categories: [], patterns: [] });

/**
 * The libraries of several files as one, in order: a name given again replaces the earlier entry in its place (as
 * registering a pattern or category of a registered name replaces it in WordPress).
 */
export function mergeLibraries(libraries: readonly BlockPatternLibrary[]): BlockPatternLibrary {
  const categories = new Map<string, BlockPatternCategory>();
  const patterns = new Map<string, BlockPattern>();
  for (const library of libraries) {
    for (const category of library.categories) categories.set(category.name, category);
    for (const pattern of library.patterns) patterns.set(pattern.name, pattern);
  }
  return { categories: [...categories.values()], patterns: [...patterns.values()] };
}
