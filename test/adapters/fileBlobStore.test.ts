import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFileBlobStore } from '../../src/adapters/files/blobStore';
import { blobStoreContract } from '../contracts/blobStore.contract';

blobStoreContract('local files', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'palimpsest-blobs-'));
  return {
    blobs: createFileBlobStore(path.join(root, 'uploads')),
    cleanup: async () => fs.rmSync(root, { recursive: true, force: true }),
  };
});
