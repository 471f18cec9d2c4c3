import { createMemoryBlobStore } from '../../src/adapters/memory/blobStore';
import { blobStoreContract } from '../contracts/blobStore.contract';

blobStoreContract('memory', async () => ({ blobs: createMemoryBlobStore(), cleanup: async () => undefined }));
