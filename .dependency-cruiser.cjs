/**
 * Dependency rules checked by `npm run lint` (docs/architecture.md, "Layers"): no module imports itself back through
 * others, and no two folders under src/ (src/<layer>/, src/resources/<slice>/, and the folders inside them) import
 * each other, directly or through further folders. Biome's noImportCycles sees module cycles as well; only
 * dependency-cruiser sees folder cycles, where each file is innocent and the folders still depend on each other.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module in a cycle can be read before its imports are initialized: give the shared code its own module.',
      from: {},
      // As Biome's rule: an import of types only is erased when compiled, so it cannot be read too early.
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment:
        'Folders form layers and slices that import one way only: move the shared code to the lower one (a port type into src/ports, a helper into the layer both use).',
      scope: 'folder',
      from: { path: '^src/' },
      to: { path: '^src/', circular: true },
    },
  ],
  options: {
    // The sources only: the built-in projections (projections/) fold the slices' events, and the slices read their
    // documents, by design; test, bench and compat files are entry points nothing imports.
    includeOnly: '^src/',
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
